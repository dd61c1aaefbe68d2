"""Which cell a model call is made for, as the runner tells the gateway sidecar.

The runner's calls to the sidecar carry two headers: the key only the runner holds (`KEY_HEADER`, from its
claim: `gateway.sidecar_link`) and the cell the call is for (`CELL_HEADER`). The cell is the one in whose
context the call is made: the answer step runs each agent inside `attributed(cell)`, and the per-cell
metering proxy forwards each call inside it. An agent can send neither header through the runner's proxy
(both are dropped from what it sends), and a call made around the proxy has no key: the sidecar refuses it
and records the attempt.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

KEY_HEADER = "x-assay-sidecar-key"
CELL_HEADER = "x-assay-cell"
OWN_HEADERS = frozenset({KEY_HEADER, CELL_HEADER})
"""Headers only the runner sets: never passed on from an agent's request."""

CURRENT_CELL: ContextVar[str | None] = ContextVar("assay_current_cell", default=None)


@contextlib.contextmanager
def attributed(cell: str) -> Iterator[None]:
    """Model calls made inside this block are `cell`'s."""
    token = CURRENT_CELL.set(cell)
    try:
        yield
    finally:
        CURRENT_CELL.reset(token)
