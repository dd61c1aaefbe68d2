"""The gate's limits on what an answer takes: its time and its cost (the rules 8-11 of core.gate).

Each is decided on what the run recorded per cell — the agent's own wall time (`wallSeconds`, not the time
its cell waited for a slot) and its priced usage (from the metering proxy's counts, or the gateway client's
for the chat agent) — and fails closed: a cell without a wall time blocks a latency rule, a cell without
usage or a run that called a model it had no price for blocks a cost rule, each named. A missing repetition
is a cell without either.

- `maxAnswerSeconds`        every cell's wall time at most the limit;
- `answerSecondsPercentile` the p-th percentile of the cells' wall times at most `maxSeconds`, by nearest
                            rank: the ceil(p/100 x n)-th smallest of the n cells (p95 of 20 cells is the
                            19th), a time some cell took, never an interpolation;
- `maxTicketCostUsd`        every cell's cost at most the limit: a ticket costs what its dearest repetition
                            cost (the limit is on one answer, as a customer's ticket is answered once);
- `maxRunCostUsd`           the run's total cost, the agents' and the model judges', at most the limit.

These are release rules, not the budget (`maxCostUsd`), which stops a run from spending more.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay_runner.contract import GateSettings, RepetitionResult, RuleResult, TicketResult, Usage
from assay_runner.vocabulary import GateRule

LIMIT_RULES = frozenset(
    {
        GateRule.MAX_ANSWER_SECONDS,
        GateRule.ANSWER_SECONDS_PERCENTILE,
        GateRule.MAX_TICKET_COST_USD,
        GateRule.MAX_RUN_COST_USD,
    }
)
LIMIT_SETTINGS = frozenset(
    {"max_answer_seconds", "answer_seconds_percentile", "max_ticket_cost_usd", "max_run_cost_usd"}
)
"""The GateSettings fields that set them (each named as its rule)."""
MAX_LISTED = 5
SECONDS = "{:.4g}s"
DOLLARS = "${:.6g}"


@dataclass(frozen=True)
class CellFigure:
    cell: str
    """'T-1#2': ticket T-1, repetition 2."""
    value: float


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" (+{len(items) - MAX_LISTED} more)" if len(items) > MAX_LISTED else "")


def _cells(
    tickets: Sequence[TicketResult], k: int
) -> list[tuple[TicketResult, int, RepetitionResult | None]]:
    """Every expected cell: (ticket, repetition index, its result or None when it is missing)."""
    cells: list[tuple[TicketResult, int, RepetitionResult | None]] = []
    for ticket in tickets:
        by_index = {rep.index: rep for rep in ticket.repetitions}
        indexes = sorted(set(range(1, k + 1)) | set(by_index))
        cells.extend((ticket, index, by_index.get(index)) for index in indexes)
    return cells


def _wall_seconds(rep: RepetitionResult) -> float | None:
    return rep.wall_seconds


def _cost_usd(rep: RepetitionResult) -> float | None:
    return None if rep.usage is None else rep.usage.cost_usd


def _figures(
    tickets: Sequence[TicketResult], k: int, read: Callable[[RepetitionResult], float | None]
) -> tuple[list[CellFigure], list[str]]:
    """The figure `read` takes from each cell, and the cells that lack it ('T-1#2')."""
    figures: list[CellFigure] = []
    missing: list[str] = []
    for ticket, index, rep in _cells(tickets, k):
        value = None if rep is None else read(rep)
        if value is None:
            missing.append(f"{ticket.id}#{index}")
        else:
            figures.append(CellFigure(f"{ticket.id}#{index}", value))
    return figures, missing


def _tickets_of(cells: Sequence[str]) -> list[str]:
    """The ticket ids of 'T-1#2' cells, each once, in order."""
    return list(dict.fromkeys(cell.rsplit("#", 1)[0] for cell in cells))


def _missing(name: GateRule, threshold: float, what: str, missing: Sequence[str]) -> RuleResult:
    return RuleResult(
        name=name,
        passed=False,
        value=None,
        threshold=threshold,
        detail=f"{len(missing)} cell(s) without a recorded {what}: {_listed(missing)}",
        offenders=_tickets_of(missing),
    )


def _over(name: GateRule, figures: Sequence[CellFigure], limit: float, show: str, what: str) -> RuleResult:
    over = sorted((f for f in figures if f.value > limit), key=lambda f: -f.value)
    highest = max(figures, key=lambda f: f.value, default=None)
    if over:
        shown = [f"{f.cell} {show.format(f.value)}" for f in over]
        detail = f"{len(over)} cell(s) over {show.format(limit)}: {_listed(shown)}"
    elif highest is None:
        detail = "no cell was recorded"
    else:
        detail = (
            f"every {what} within {show.format(limit)} (highest {show.format(highest.value)}, {highest.cell})"
        )
    return RuleResult(
        name=name,
        passed=not over and highest is not None,
        value=None if highest is None else highest.value,
        threshold=limit,
        detail=detail,
        offenders=_tickets_of([f.cell for f in over]),
    )


def max_answer_seconds_rule(tickets: Sequence[TicketResult], k: int, gate: GateSettings) -> RuleResult | None:
    limit = gate.max_answer_seconds
    if limit is None:
        return None
    figures, missing = _figures(tickets, k, _wall_seconds)
    if missing:
        return _missing(GateRule.MAX_ANSWER_SECONDS, limit, "wall time", missing)
    return _over(GateRule.MAX_ANSWER_SECONDS, figures, limit, SECONDS, "answer")


def nearest_rank(values: Sequence[float], percentile: float) -> float:
    """The p-th percentile by nearest rank: the ceil(p/100 x n)-th smallest value (at least the first)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(percentile / 100 * len(ordered)))
    return ordered[rank - 1]


def answer_seconds_percentile_rule(
    tickets: Sequence[TicketResult], k: int, gate: GateSettings
) -> RuleResult | None:
    setting = gate.answer_seconds_percentile
    if setting is None:
        return None
    name, limit = GateRule.ANSWER_SECONDS_PERCENTILE, setting.max_seconds
    figures, missing = _figures(tickets, k, _wall_seconds)
    if missing:
        return _missing(name, limit, "wall time", missing)
    if not figures:
        return RuleResult(name=name, passed=False, value=None, threshold=limit, detail="no cell was recorded")
    value = nearest_rank([f.value for f in figures], setting.percentile)
    passed = value <= limit
    label = f"p{setting.percentile:g} (nearest rank of {len(figures)} cells) {SECONDS.format(value)}"
    over = sorted((f for f in figures if f.value > limit), key=lambda f: -f.value)
    detail = f"{label} {'<=' if passed else '>'} {SECONDS.format(limit)}"
    if not passed:
        shown = [f"{f.cell} {SECONDS.format(f.value)}" for f in over]
        detail += f"; cells over {SECONDS.format(limit)}: {_listed(shown)}"
    return RuleResult(
        name=name,
        passed=passed,
        value=value,
        threshold=limit,
        detail=detail,
        offenders=[] if passed else _tickets_of([f.cell for f in over]),
    )


def _unpriced(name: GateRule, limit: float, unpriced: Sequence[str] | None) -> RuleResult | None:
    """Blocks when the run's cost is not known to be priced: a model without a price cost $0 on paper."""
    if unpriced is None:
        detail = "the result does not say whether every model the run called had a price"
    elif unpriced:
        detail = f"no price for {', '.join(unpriced)}: what was not priced cannot be held to a cost limit"
    else:
        return None
    return RuleResult(name=name, passed=False, value=None, threshold=limit, detail=detail)


def max_ticket_cost_rule(
    tickets: Sequence[TicketResult], k: int, gate: GateSettings, unpriced: Sequence[str] | None
) -> RuleResult | None:
    limit = gate.max_ticket_cost_usd
    if limit is None:
        return None
    name = GateRule.MAX_TICKET_COST_USD
    blocked = _unpriced(name, limit, unpriced)
    if blocked is not None:
        return blocked
    figures, missing = _figures(tickets, k, _cost_usd)
    if missing:
        return _missing(name, limit, "usage", missing)
    return _over(name, figures, limit, DOLLARS, "cell's cost")


def max_run_cost_rule(
    usage: Usage | None, gate: GateSettings, unpriced: Sequence[str] | None
) -> RuleResult | None:
    limit = gate.max_run_cost_usd
    if limit is None:
        return None
    name = GateRule.MAX_RUN_COST_USD
    blocked = _unpriced(name, limit, unpriced)
    if blocked is not None:
        return blocked
    if usage is None:
        return RuleResult(
            name=name, passed=False, value=None, threshold=limit, detail="the run's usage was not recorded"
        )
    passed = usage.cost_usd <= limit
    relation = "<=" if passed else ">"
    return RuleResult(
        name=name,
        passed=passed,
        value=usage.cost_usd,
        threshold=limit,
        detail=f"the run cost {DOLLARS.format(usage.cost_usd)} {relation} {DOLLARS.format(limit)}",
    )


def limit_rules(
    tickets: Sequence[TicketResult],
    k: int,
    gate: GateSettings,
    usage: Usage | None,
    unpriced: Sequence[str] | None,
) -> list[RuleResult]:
    """The latency and cost rules the gate sets, in that order (none when it sets none)."""
    rules = [
        max_answer_seconds_rule(tickets, k, gate),
        answer_seconds_percentile_rule(tickets, k, gate),
        max_ticket_cost_rule(tickets, k, gate, unpriced),
        max_run_cost_rule(usage, gate, unpriced),
    ]
    return [rule for rule in rules if rule is not None]
