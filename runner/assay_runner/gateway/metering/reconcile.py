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

A retried answer pod leaves its ledger set aside (`ledger-<pod>.json`), and each cell's record names the
attempt (pod) that answered it (`answers.json` `answeredBy`). Each ledger is reconciled with the cells its
own attempt answered; what it counted for cells another attempt answered again was spent all the same:
it is added up (`Reconciled.retried`), so the run's usage still equals what the gateway billed. Calls
such an attempt had in flight when its pod was killed were billed or not, no one knows: they are counted
(`unknown_calls`) and said, and do not block, since no verdict rests on their answers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
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
    retried: Usage = field(default_factory=Usage)
    """What earlier attempts spent on cells another attempt answered again (priced by the sidecar)."""
    unknown_calls: int = 0
    """Calls of those attempts whose spend is not known (in flight when their pod ended, a torn line)."""
    around: Usage = field(default_factory=Usage)
    """What the sidecar counted that no sealed cell accounts for (calls around a cell's proxy, for no cell or
    beyond a cell's record): it blocks, and it was billed all the same, so the run's usage counts it."""


def _spent(count: SpendCount) -> bool:
    return bool(count.requests or count.input_tokens or count.output_tokens or count.in_flight or count.lost)


def _tokens(count: SpendCount) -> str:
    return f"{count.input_tokens} input and {count.output_tokens} output tokens in {count.requests} call(s)"


def reconcile_attempts(
    current: SidecarLedger,
    earlier: Sequence[SidecarLedger],
    sealed: Mapping[str, Usage | None],
    answered_by: Mapping[str, str],
    shard: tuple[int, int] | None,
) -> Reconciled:
    """The current attempt's ledger and those of the earlier attempts it set aside, each reconciled with the
    cells its own attempt answered (`answered_by`: cell -> pod; a cell without one is the current pod's)."""
    by_pod = {ledger.pod: ledger for ledger in (current, *earlier)}
    attempt = {cell: answered_by.get(cell, current.pod) for cell in sealed}
    whole: list[str] = []
    cells: dict[str, str] = {}
    retried, unknown, around = Usage(), 0, Usage()
    for cell, pod in sorted(attempt.items()):
        if pod not in by_pod:
            cells[cell] = (
                f"answered by pod {pod}, whose gateway sidecar ledger is not beside this tree's: what it "
                "spent cannot be accounted for"
            )
    for ledger in by_pod.values():
        own = {cell: usage for cell, usage in sealed.items() if attempt[cell] == ledger.pod}
        again = set(sealed) - set(own)
        found = reconcile(ledger, own, shard, again, check_shard=ledger is current or ledger.claimed)
        if found.whole is not None:
            whole.append(found.whole)
        for cell, problem in found.cells.items():
            cells[cell] = f"{cells[cell]}; {problem}" if cell in cells else problem
        retried, unknown = retried.plus(found.retried), unknown + found.unknown_calls
        around = around.plus(found.around)
    return Reconciled("; ".join(whole) or None, cells, retried, unknown, around)


def reconcile(
    ledger: SidecarLedger,
    sealed: Mapping[str, Usage | None],
    shard: tuple[int, int] | None,
    answered_again: Collection[str] = (),
    *,
    check_shard: bool = True,
) -> Reconciled:
    """`sealed`: every cell this ledger's attempt answered (`<ticket>/<repetition>`) -> the usage its sealed
    record carries. `answered_again`: the tree's other cells, which another attempt answered: what this
    ledger counted for them was spent on answers thrown away."""
    whole: list[str] = []
    retried, unknown, around = Usage(), 0, Usage()
    if check_shard and ledger.shard != shard:
        whole.append(f"the gateway sidecar's ledger is shard {ledger.shard}'s, this tree is shard {shard}'s")
    if ledger.torn and not sealed:
        # An attempt none of whose answers are kept: its bill is short, not its verdicts.
        unknown += ledger.torn
    elif ledger.torn:
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
        if name in answered_again:
            retried = retried.plus(count.usage())
            unknown += count.in_flight + count.lost + (count.error is not None)
            continue
        if name not in sealed and _spent(count):
            around = around.plus(count.usage())
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
        around = around.plus(_beyond(counted, usage or Usage()))
    return Reconciled("; ".join(whole) or None, cells, retried, unknown, around)


def _beyond(count: SpendCount, usage: Usage) -> Usage:
    """What the sidecar counted for a cell beyond the cell's sealed record (its tokens, and the cost over)."""
    if count.input_tokens <= usage.input_tokens and count.output_tokens <= usage.output_tokens:
        return Usage()
    return Usage(
        input_tokens=max(0, count.input_tokens - usage.input_tokens),
        output_tokens=max(0, count.output_tokens - usage.output_tokens),
        cost_usd=round(max(0.0, count.cost_usd - usage.cost_usd), 6),
    )


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
