"""A grid of candidates: the product of named axes (e.g. brain x agent x model), one cell per combination.

A cell is named by its values joined with "-" in axis order (`terse-chat-gpt-5-mini`), the same name a
Campaign grid gives the cell's Evaluation, so a grid on a laptop and on the cluster read alike.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assay_runner.errors import InputError

MAX_CELLS = 256
_VALUE = re.compile(r"^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$")


@dataclass(frozen=True)
class Cell:
    name: str
    coordinates: Mapping[str, str]
    """axis -> value."""


def cells(axes: Mapping[str, Sequence[str]]) -> list[Cell]:
    """Every combination, in axis order (the last axis varies fastest); refuses what cannot name a cell."""
    if not axes:
        raise InputError("a grid needs at least one axis")
    for axis, values in axes.items():
        if not values:
            raise InputError(f"grid axis {axis!r} has no values")
        if len(set(values)) != len(values):
            raise InputError(f"grid axis {axis!r} names a value twice: {list(values)}")
        bad = [v for v in values if not _VALUE.match(v)]
        if bad:
            raise InputError(
                f"grid axis {axis!r}: values name cells, so use lowercase letters, digits, '-' and '.': {bad}"
            )
    count = 1
    for values in axes.values():
        count *= len(values)
    if count > MAX_CELLS:
        raise InputError(f"the grid has {count} cells; at most {MAX_CELLS}")
    names = list(axes)
    out = [
        Cell("-".join(combination), dict(zip(names, combination, strict=True)))
        for combination in itertools.product(*axes.values())
    ]
    taken = [c.name for c in out]
    if len(set(taken)) != len(taken):
        raise InputError("two grid cells get the same name (values joined with '-'): rename a value")
    return out
