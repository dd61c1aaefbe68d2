"""Choosing among candidates: three questions that must not be confused.

1. Which candidate has the highest descriptive mean? (reported, never decisive)
2. Which candidate wins under the release key? The key is an ordered tuple of *the gate's own reductions*
   — by default the number of fully resolved tickets (passing in every repetition: what the `repetitions`
   rule counts), then the mean (what the `score` rule reads). Only reductions the gate uses can be named,
   so the selector and the gate cannot drift apart.
3. May that winner replace the incumbent? Only with complete coverage (every ticket x repetition judged),
   its own gate verdict Pass, and a strict improvement over the incumbent on the primary key.

Pure and free of pydantic: `assay compare` feeds it standings recomputed from result files, the operator's
Campaign feeds it standings read from its Evaluations' status. Both reach the same decision from the same
numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from assay_runner.errors import InputError

Reduction = Literal["fully-resolved", "mean", "lowest-ticket", "judges-passing"]
# name -> which gate rule reads it. Each is a number the gate decides on; a standing carries all of them.
REDUCTIONS: dict[Reduction, str] = {
    "fully-resolved": "tickets passing in every repetition (the repetitions rule's pass^k numerator)",
    "mean": "the evaluation score (the score rule)",
    "lowest-ticket": "the lowest ticket score (the ticketFloor rule)",
    "judges-passing": "judges at or above their thresholds (the judges rule)",
}
DEFAULT_KEY: tuple[Reduction, ...] = ("fully-resolved", "mean")
OnTie = Literal["keep", "full-key"]
Role = Literal["candidate", "incumbent"]


class NotComparable(InputError):
    """The candidates were not evaluated on the same tickets, suite and repetitions."""


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
    return names


@dataclass(frozen=True)
class Standing:
    """One candidate as its gate left it: the verdict and the numbers the gate's rules were decided on."""

    name: str
    verdict: str
    mean: float
    reductions: Mapping[str, float]
    """A value for every name in REDUCTIONS."""
    complete: bool
    """Every ticket x repetition was judged (the `complete` rule)."""
    coverage: float
    pass_rate: float
    pass_at_k: float
    pass_hat_k: float
    fully_resolved: int
    tickets: int
    k: int
    suite_digest: str | None
    ticket_ids: tuple[str, ...] | None = None
    """The evaluated ticket ids when known (result files); the cluster's status carries only the count."""
    blocked_because: tuple[str, ...] = ()
    """The failed gate rules, one line each (empty on Pass)."""

    @property
    def eligible(self) -> bool:
        return self.complete and self.verdict == "Pass"

    def key(self, names: Sequence[str]) -> tuple[float, ...]:
        return tuple(self.reductions[name] for name in names)


@dataclass(frozen=True)
class GateFigures:
    """What a finished evaluation's gate decided on, wherever it was read from: a result file's recomputed
    scorecard (`assay compare`) or an Evaluation's status (a Campaign). `standing_from` turns both into the
    same Standing, so the mapping from gate figures to the release key's reductions exists once."""

    verdict: str
    mean: float
    """The value the score rule compared (unrounded when known)."""
    lowest_ticket: float
    """The value the ticketFloor rule compared."""
    judges_passing: int
    complete: bool
    """The `complete` rule passed."""
    coverage: float
    pass_rate: float
    pass_at_k: float
    pass_hat_k: float
    fully_resolved: int
    tickets: int
    k: int
    suite_digest: str | None
    ticket_ids: tuple[str, ...] | None = None
    blocked_because: tuple[str, ...] = ()


def standing_from(name: str, figures: GateFigures) -> Standing:
    return Standing(
        name=name,
        verdict=figures.verdict,
        mean=figures.mean,
        reductions={
            "fully-resolved": float(figures.fully_resolved),
            "mean": figures.mean,
            "lowest-ticket": figures.lowest_ticket,
            "judges-passing": float(figures.judges_passing),
        },
        complete=figures.complete,
        coverage=figures.coverage,
        pass_rate=figures.pass_rate,
        pass_at_k=figures.pass_at_k,
        pass_hat_k=figures.pass_hat_k,
        fully_resolved=figures.fully_resolved,
        tickets=figures.tickets,
        k=figures.k,
        suite_digest=figures.suite_digest,
        ticket_ids=figures.ticket_ids,
        blocked_because=figures.blocked_because,
    )


@dataclass
class Decision:
    key: tuple[str, ...]
    candidates: list[Standing]
    incumbent: Standing | None
    highest_mean: str | None
    winner: str | None
    promote: bool
    reasons: list[str] = field(default_factory=list)
    rank_by_key: dict[str, int] = field(default_factory=dict)
    rank_by_mean: dict[str, int] = field(default_factory=dict)


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


def _ranks(standings: Sequence[Standing], sort_key: Callable[[Standing], object]) -> dict[str, int]:
    ordered = sorted(standings, key=sort_key, reverse=True)  # type: ignore[arg-type]
    return {s.name: index + 1 for index, s in enumerate(ordered)}


def _fmt(key: Sequence[str], values: Sequence[float]) -> str:
    return ", ".join(f"{name} {_num(value)}" for name, value in zip(key, values, strict=True))


def _num(value: float) -> str:
    """A count as an integer, a score to three places: 15, 0.985."""
    return f"{round(value, 3):g}"


def decide(
    candidates: Sequence[Standing],
    incumbent: Standing | None,
    key: tuple[str, ...] = DEFAULT_KEY,
    on_tie: OnTie = "keep",
) -> Decision:
    if not candidates:
        raise InputError("give at least one candidate")
    names = [c.name for c in candidates] + ([incumbent.name] if incumbent else [])
    if len(set(names)) != len(names):
        raise InputError(f"candidate names must differ: {names}")
    check_comparable([*candidates, *([incumbent] if incumbent else [])])
    reasons: list[str] = []
    by_mean = max(candidates, key=lambda c: (c.mean, c.name))
    decision = Decision(
        key=key,
        candidates=list(candidates),
        incumbent=incumbent,
        highest_mean=by_mean.name,
        winner=None,
        promote=False,
    )
    decision.rank_by_mean = _ranks(candidates, lambda c: (c.mean, c.name))
    decision.rank_by_key = _ranks(candidates, lambda c: (c.complete, c.key(key), c.name))
    reasons.append(f"highest mean: {by_mean.name} ({by_mean.mean:.3f}) — descriptive only")
    for c in candidates:
        if not c.complete:
            reasons.append(f"{c.name} is ineligible: incomplete coverage ({c.coverage:.0%} of cells judged)")
    complete = [c for c in candidates if c.complete]
    if not complete:
        reasons.append("no candidate has complete coverage: no winner")
        decision.reasons = reasons
        return decision
    best = max(complete, key=lambda c: (c.key(key), c.name))
    ties = [c.name for c in complete if c.key(key) == best.key(key) and c is not best]
    decision.winner = best.name
    reasons.append(
        f"release-key winner: {best.name} ({_fmt(key, best.key(key))})"
        + (f", tied on every key with {', '.join(ties)} (chosen by name)" if ties else "")
    )
    if by_mean.name != best.name:
        reasons.append(f"the plain mean would pick {by_mean.name}, but {best.name} ranks first on {key[0]}")
    decision.promote, verdict = _promotion(best, incumbent, key, on_tie)
    reasons.append(verdict)
    decision.reasons = reasons
    return decision


def _promotion(
    best: Standing, incumbent: Standing | None, key: tuple[str, ...], on_tie: OnTie
) -> tuple[bool, str]:
    if best.verdict != "Pass":
        because = "; ".join(best.blocked_because)[:300] or "see its rules"
        return False, f"no promotion: {best.name}'s own gate verdict is {best.verdict} ({because})"
    if incumbent is None:
        return True, f"promote {best.name}: it passes its gate and there is no incumbent"
    mine, theirs = best.key(key), incumbent.key(key)
    if not incumbent.complete:
        # Fail closed: an incumbent judged on part of the grid scores low for want of data, and "beating" it
        # would promote on a missing measurement.
        return False, (
            f"no promotion: the incumbent {incumbent.name}'s evaluation is incomplete "
            f"({incumbent.coverage:.0%} of cells judged), so no improvement over it is shown"
        )
    if mine[0] > theirs[0]:
        return True, f"promote {best.name}: {key[0]} {_num(mine[0])} beats the incumbent's {_num(theirs[0])}"
    if mine[0] == theirs[0] and on_tie == "full-key" and mine > theirs:
        return True, (
            f"promote {best.name}: ties the incumbent on {key[0]} and beats it on the full key "
            f"({_fmt(key, mine)} vs {_fmt(key, theirs)})"
        )
    if mine[0] == theirs[0]:
        return False, (
            f"keep the incumbent {incumbent.name}: {best.name} only matches it on {key[0]} "
            f"({_num(mine[0])}); a promotion needs a strict improvement"
        )
    return False, (
        f"keep the incumbent {incumbent.name}: {key[0]} {_num(mine[0])} is below its {_num(theirs[0])}"
    )


def standing_row(decision: Decision, standing: Standing) -> dict[str, object]:
    """One candidate as JSON (camelCase): the CLI's `--json` rows and the Campaign's status rows."""
    return {
        "name": standing.name,
        "mean": standing.mean,
        "passRate": standing.pass_rate,
        "passAtK": standing.pass_at_k,
        "passHatK": standing.pass_hat_k,
        "fullyResolved": standing.fully_resolved,
        "tickets": standing.tickets,
        "coverage": standing.coverage,
        "complete": standing.complete,
        "verdict": standing.verdict,
        "eligible": standing.eligible,
        "key": dict(zip(decision.key, standing.key(decision.key), strict=True)),
        "rankByKey": decision.rank_by_key.get(standing.name),
        "rankByMean": decision.rank_by_mean.get(standing.name),
    }


def decision_json(decision: Decision) -> dict[str, object]:
    return {
        "key": list(decision.key),
        "highestMean": decision.highest_mean,
        "winner": decision.winner,
        "promote": decision.promote,
        "reasons": decision.reasons,
        "candidates": [standing_row(decision, c) for c in decision.candidates],
        "incumbent": standing_row(decision, decision.incumbent) if decision.incumbent else None,
    }
