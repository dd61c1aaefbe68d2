"""A candidate as its gate left it: the verdict, and the numbers the gate's rules were decided on.

A standing is read from wherever a finished evaluation is known — a result file's recomputed scorecard
(`assay compare`, core.result_standing) or an Evaluation's status (a Campaign) — and each reader builds
it directly, so there is one shape and one mapping from gate figures to the release key's reductions.

The release key is an ordered tuple of those reductions. Only reductions the gate itself uses can be
named (REDUCTIONS, each with the rule that reads it), so the selector and the gate cannot drift apart.
`cost` (the run's priced usage, what the budget reads) is the one a lower value of is better; it can only
break ties, never come first: a cheaper candidate never replaces a better one, nor the incumbent, for cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from assay_runner.core.statistics import Paired
from assay_runner.errors import InputError
from assay_runner.vocabulary import GateRule

Reduction = Literal["fully-resolved", "mean", "lowest-ticket", "judges-passing", "cost"]
DEFAULT_KEY: tuple[Reduction, ...] = ("fully-resolved", "mean")
OnTie = Literal["keep", "full-key"]
Role = Literal["candidate", "incumbent"]


class NotComparable(InputError):
    """The candidates were not evaluated on the same tickets, suite and repetitions."""


@dataclass(frozen=True)
class Standing:
    name: str
    verdict: str
    mean: float
    """The value the score rule compared (unrounded when known)."""
    lowest_ticket: float
    """The value the ticketFloor rule compared."""
    judges_passing: int
    """Judges at or above their thresholds (the judges rule's count)."""
    complete: bool
    """Every ticket x repetition was judged (the `complete` rule)."""
    coverage: float
    pass_rate: float
    pass_at_k: float
    pass_hat_k: float
    fully_resolved: int
    """Tickets passing in every repetition (the repetitions rule's pass^k numerator)."""
    tickets: int
    k: int
    suite_digest: str | None
    ticket_ids: tuple[str, ...] | None = None
    """The evaluated ticket ids when known (result files); the cluster's status carries only the count."""
    blocked_because: tuple[str, ...] = ()
    """The failed gate rules, one line each (empty on Pass)."""
    judge_means: Mapping[str, float | None] = field(default_factory=dict)
    """Each judge's mean (None: the judge applied to no ticket)."""
    paired: Paired | None = None
    """Per-ticket scores and outcomes for the paired tests (None when only the totals are known)."""
    cost_usd: float | None = None
    """The run's priced usage in US dollars (result.json's and the status's `usage.costUsd`: the agent's
    calls through the metering proxy and the model judges'); None when not known, which ranks last on cost.
    A run without prices costs 0: compare priced runs with priced runs."""
    shadow_judges: frozenset[str] = frozenset()
    """Judges recorded but not deciding: compared (their deltas are shown), never a reason to refuse."""

    @property
    def eligible(self) -> bool:
        return self.complete and self.verdict == "Pass"

    def reduction(self, name: str) -> float:
        """The reduction's value as stated (a count, a score, dollars)."""
        return REDUCTIONS[name].value(self)  # type: ignore[index]

    def figures(self, names: Sequence[str]) -> tuple[float, ...]:
        """The key's values as stated, for people (`cost` in dollars)."""
        return tuple(self.reduction(name) for name in names)

    def key(self, names: Sequence[str]) -> tuple[float, ...]:
        """The key's values as they are ordered: greater is better (`cost` negated)."""
        return tuple(REDUCTIONS[name].ordered(self) for name in names)  # type: ignore[index]


@dataclass(frozen=True)
class ReductionOf:
    rule: GateRule | str
    """The gate rule that decides on this number (cost: the budget, `maxCostUsd`)."""
    description: str
    value: Callable[[Standing], float]
    lower_is_better: bool = False
    tie_breaker_only: bool = False
    """May not be the key's first reduction: the one a promotion over the incumbent must strictly improve."""

    def ordered(self, standing: Standing) -> float:
        value = self.value(standing)
        return -value if self.lower_is_better else value


BUDGET = "maxCostUsd"
"""What reads a run's cost: the budget that stops its spending (and the gate's cost rules, where a suite
sets them)."""


def _cost(standing: Standing) -> float:
    """Fail closed: a cost that is not known is no saving."""
    return math.inf if standing.cost_usd is None else standing.cost_usd


REDUCTIONS: dict[Reduction, ReductionOf] = {
    "fully-resolved": ReductionOf(
        GateRule.REPETITIONS,
        "tickets passing in every repetition (the repetitions rule's pass^k numerator)",
        lambda s: float(s.fully_resolved),
    ),
    "mean": ReductionOf(GateRule.SCORE, "the evaluation score (the score rule)", lambda s: s.mean),
    "lowest-ticket": ReductionOf(
        GateRule.TICKET_FLOOR, "the lowest ticket score (the ticketFloor rule)", lambda s: s.lowest_ticket
    ),
    "judges-passing": ReductionOf(
        GateRule.JUDGES,
        "judges at or above their thresholds (the judges rule)",
        lambda s: float(s.judges_passing),
    ),
    "cost": ReductionOf(
        BUDGET,
        "the run's priced usage in US dollars, lower is better (what the budget reads); a tie-breaker",
        _cost,
        lower_is_better=True,
        tie_breaker_only=True,
    ),
}


def parse_key(text: str | Sequence[str]) -> tuple[str, ...]:
    parts = text.split(",") if isinstance(text, str) else list(text)
    names = tuple(part.strip() for part in parts if part.strip())
    unknown = [n for n in names if n not in REDUCTIONS]
    if not names or unknown or len(set(names)) != len(names):
        shown = text if isinstance(text, str) else ",".join(text)
        problem = f" (unknown: {', '.join(unknown)})" if unknown else ""
        if len(set(names)) != len(names):
            problem = " (a reduction is named twice)"
        raise InputError(f"key {shown!r}: name reductions the gate uses: {', '.join(REDUCTIONS)}{problem}")
    if REDUCTIONS[names[0]].tie_breaker_only:  # type: ignore[index]
        raise InputError(
            f"key {','.join(names)!r}: {names[0]} only breaks ties; put a reduction of quality first "
            f"(for example fully-resolved,mean,{names[0]})"
        )
    return names


def check_comparable(standings: Sequence[Standing]) -> None:
    reference = standings[0]
    for other in standings[1:]:
        if other.ticket_ids is not None and reference.ticket_ids is not None:
            same_tickets = sorted(other.ticket_ids) == sorted(reference.ticket_ids)
        else:
            same_tickets = other.tickets == reference.tickets
        if not same_tickets:
            raise NotComparable(
                f"{other.name} was evaluated on other tickets than {reference.name}: not comparable"
            )
        if other.k != reference.k:
            raise NotComparable(
                f"{other.name} has k={other.k} repetitions, {reference.name} k={reference.k}: "
                "fully-resolved counts are not comparable"
            )
        if other.suite_digest != reference.suite_digest:
            raise NotComparable(
                f"{other.name} and {reference.name} used different suites (suite digests differ)"
            )
