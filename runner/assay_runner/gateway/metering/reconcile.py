"""Reconciling an answers tree with the gateway sidecar's ledger: spend no sealed cell accounts for blocks.

Each cell's sealed record carries the usage the runner's metering proxy counted for it; the sidecar counted
what actually reached the gateway, by the cell the runner named. Both read the same replies, so for every
cell the sidecar's count is at most the sealed one (less only where the runner replayed recorded
exchanges, which never reach the sidecar). Anything else means some process of the pod reached the
gateway without going through its cell's proxy:

- a call that reached the sidecar without the runner's key (refused, and recorded);
- spend counted for a name that is no cell of this tree;
- more tokens counted for a cell than its sealed record says;
- a call still in flight when the ledger was last written, or lost when the sidecar restarted (its spend
  is unknown), or a reply whose usage the sidecar could not count;
- a line of the ledger's journal the sidecar did not finish writing (some call's spend is unknown).

The first two and the last concern the whole tree (no cell can be told apart: every cell blocks with the
reason); the others name their cell. Pure: the judge phase reads the files (`run.sidecar_spend`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from assay_runner.contract import Usage
from assay_runner.gateway.metering.sidecar_ledger import NO_CELL, SidecarLedger, SpendCount

AROUND = "an agent called the gateway around its cell's proxy"


@dataclass(frozen=True)
class Reconciled:
    whole: str | None = None
    """What blocks every cell of the tree."""
    cells: dict[str, str] = field(default_factory=dict)
    """cell -> what blocks it."""


def _spent(count: SpendCount) -> bool:
    return bool(count.requests or count.input_tokens or count.output_tokens or count.in_flight or count.lost)


def _tokens(count: SpendCount) -> str:
    return f"{count.input_tokens} input and {count.output_tokens} output tokens in {count.requests} call(s)"


def reconcile(
    ledger: SidecarLedger, sealed: Mapping[str, Usage | None], shard: tuple[int, int] | None
) -> Reconciled:
    """`sealed`: every cell of the tree (`<ticket>/<repetition>`) -> the usage its sealed record carries."""
    whole: list[str] = []
    if ledger.shard != shard:
        whole.append(f"the gateway sidecar's ledger is shard {ledger.shard}'s, this tree is shard {shard}'s")
    if ledger.torn:
        whole.append(
            f"{ledger.torn} line(s) of the gateway sidecar's ledger could not be read (it stopped while "
            "writing them): what some call spent is not known"
        )
    if ledger.refused.count:
        asked = "; ".join(ledger.refused.first[:3])
        whole.append(
            f"{ledger.refused.count} call(s) reached the gateway sidecar without the runner's key ({asked}): "
            f"{AROUND}"
        )
    for name, count in sorted(ledger.cells.items()):
        if name not in sealed and _spent(count):
            who = "no cell" if name == NO_CELL else f"{name!r}, which is no cell of this tree"
            whole.append(f"the gateway sidecar counted {_tokens(count)} for {who}: {AROUND}")
    cells: dict[str, str] = {}
    for cell, usage in sealed.items():
        counted = ledger.cells.get(cell)
        if counted is None:
            continue
        problem = _cell_problem(counted, usage or Usage())
        if problem is not None:
            cells[cell] = problem
    return Reconciled("; ".join(whole) or None, cells)


def _cell_problem(count: SpendCount, usage: Usage) -> str | None:
    if count.in_flight or count.lost:
        return (
            f"{count.in_flight + count.lost} model call(s) of this cell were in flight at the gateway "
            "sidecar when it last wrote its ledger (or when it restarted): what they spent is not known"
        )
    if count.error is not None:
        return f"the gateway sidecar could not count this cell's usage: {count.error}"
    if count.input_tokens > usage.input_tokens or count.output_tokens > usage.output_tokens:
        return (
            f"the gateway sidecar counted {_tokens(count)} for this cell, its sealed record "
            f"{usage.input_tokens} input and {usage.output_tokens} output tokens: {AROUND}"
        )
    return None
