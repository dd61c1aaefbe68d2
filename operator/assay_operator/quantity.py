"""Resource quantities for the runner pod, checked as Kubernetes checks them and bounded to what a node can
run — at admission (the CRD: int-or-string with Kubernetes' quantity pattern, and CEL's quantity() library)
and again in the operator (the same syntax and bounds), so an object admitted before a CRD upgrade still
fails closed with the same message.

Syntax is Kubernetes' own (k8s.io/apimachinery resource.Quantity): an integer or a string such as `2`,
`500m`, `1.5`, `1e3`, `100u`, `1n`, `512Mi`, `1G`. Bounds (inclusive), chosen for one evaluation's runner:
- cpu: 10m to 64 cores. `0`, `1n` and `100u` parse but are below 10m; `1e3` (1000 cores) is above 64.
- memory: 64Mi to 256Gi. `5m` (0.005 bytes) and `1e3` (1000 bytes) parse but are below 64Mi;
  `99999999999999999999Ti` parses (Kubernetes would cap it near 8 EiB) and is above 256Gi.
- storage (the answers volume): 16Mi to 16Ti.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

from kubernetes.utils import parse_quantity as _untyped_parse_quantity
from pydantic import AfterValidator, BeforeValidator, WithJsonSchema

# The pattern controller-gen emits for resource.Quantity (it applies to the string form only).
_NUMBER = r"(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
PATTERN = rf"^{_NUMBER}(([KMGTPE]i)|[numkMGTPE]|([eE]{_NUMBER}))?$"
MAX_LENGTH = 64


@dataclass(frozen=True)
class Bounds:
    resource: str
    low: str
    high: str
    unit: str

    def cel_rules(self, field: str) -> tuple[tuple[str, str], ...]:
        value = f"string(self.{field})"
        return (
            (f"isQuantity({value})", f"{self.resource} must be a Kubernetes quantity such as {self.example}"),
            (
                f"!isQuantity({value}) || (quantity({value}).compareTo(quantity('{self.low}')) >= 0 && "
                f"quantity({value}).compareTo(quantity('{self.high}')) <= 0)",
                self.range_message,
            ),
        )

    @property
    def example(self) -> str:
        return {"cpu": "500m, 2 or 1.5", "storage": "512Mi, 1Gi or 20Gi"}.get(
            self.resource, "512Mi, 6Gi or 1e9"
        )

    @property
    def range_message(self) -> str:
        return f"{self.resource} must be between {self.low} and {self.high} ({self.unit})"


CPU = Bounds("cpu", "10m", "64", "cores")
MEMORY = Bounds("memory", "64Mi", "256Gi", "bytes")
STORAGE = Bounds("storage", "16Mi", "16Ti", "bytes")


def parse_quantity(value: str) -> Decimal:
    """The kubernetes client's parser (untyped), on a string that already has Kubernetes' syntax."""
    parsed: Decimal = _untyped_parse_quantity(value)  # type: ignore[no-untyped-call]
    return parsed


def parse(value: str) -> Decimal | None:
    """The quantity's value, or None when Kubernetes would refuse the syntax."""
    if len(value) > MAX_LENGTH or not re.fullmatch(PATTERN, value):
        return None
    try:
        return Decimal(parse_quantity(value))
    except (ValueError, ArithmeticError):
        return None


def _as_string(value: Any) -> Any:
    # int-or-string: YAML `cpu: 2` arrives as an integer, as in a pod's resources.
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _checker(bounds: Bounds) -> Any:
    def check(value: str) -> str:
        parsed = parse(value)
        if parsed is None:
            raise ValueError(f"{bounds.resource} must be a Kubernetes quantity such as {bounds.example}")
        if not Decimal(parse_quantity(bounds.low)) <= parsed <= Decimal(parse_quantity(bounds.high)):
            raise ValueError(f"{bounds.range_message}; got {value}")
        return value

    return check


SCHEMA = {
    "x-kubernetes-int-or-string": True,
    "anyOf": [{"type": "integer"}, {"type": "string"}],
    "pattern": PATTERN,
    "maxLength": MAX_LENGTH,
}

Cpu = Annotated[str, BeforeValidator(_as_string), AfterValidator(_checker(CPU)), WithJsonSchema(SCHEMA)]
Memory = Annotated[str, BeforeValidator(_as_string), AfterValidator(_checker(MEMORY)), WithJsonSchema(SCHEMA)]
Storage = Annotated[
    str, BeforeValidator(_as_string), AfterValidator(_checker(STORAGE)), WithJsonSchema(SCHEMA)
]
