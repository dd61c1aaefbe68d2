"""The YAML loader every suite and RunConfig is read with: YAML's safe schema, with numbers read only as
they are written plainly.

PyYAML implements YAML 1.1, whose implicit numbers surprise: `1:30` is the sexagesimal 90, `017` is octal
15, `0x1F`, `0b101` and `1_000` are integers, `1:30.5` a float. A suite's `maxWords: 1:30` was read as 90
and accepted. Here a number is what it looks like — an optional sign and decimal digits without a leading
zero (an integer), with a point or an exponent after the point's digits (a float), `.inf`, `.nan` — and
everything else stays the text it was, which the strict models then refuse with its own spelling ("Input
should be a valid integer (got '1:30')"). Booleans and nulls are YAML's safe ones.

Shared by the runner and the operator (which reads a suite ConfigMap's structure the same way): standard
library and PyYAML only, as the rest of `contract`.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
PLAIN_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
PLAIN_FLOAT = re.compile(
    r"""^(?:[-+]?(?:0|[1-9][0-9]*)\.[0-9]*(?:[eE][-+]?[0-9]+)?
    |[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)


class StrictLoader(_BASE):  # type: ignore[valid-type,misc]
    """`yaml.CSafeLoader` (libyaml's parser where installed) with plain numbers only (module docstring)."""


StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag not in (_INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
StrictLoader.add_implicit_resolver(_INT, PLAIN_INT, list("-+0123456789"))
StrictLoader.add_implicit_resolver(_FLOAT, PLAIN_FLOAT, list("-+0123456789."))


def strict_load(text: str | bytes) -> Any:
    """One YAML document read with `StrictLoader` (as `yaml.safe_load` reads it, numbers aside)."""
    return yaml.load(text, Loader=StrictLoader)
