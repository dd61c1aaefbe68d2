"""Comparing candidates: three questions that must not be confused.

1. Which candidate has the highest descriptive mean? (reported, never decisive)
2. Which candidate wins under the release key? The key is an ordered tuple of *the gate's own reductions*
   — by default the number of fully resolved tickets (passing in every repetition: what the `repetitions`
   rule counts), then the mean (what the `score` rule reads). Only reductions the gate uses can be named,
   so the selector and the gate cannot drift apart.
3. May that winner replace the incumbent? Only with complete coverage (every ticket x repetition judged),
   its own gate verdict Pass, and a strict improvement over the incumbent on the primary key.

Every number is recomputed from the candidates' judged cells with the same `assemble` the gate uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from assay_runner.contract import Result
from assay_runner.errors import InputError
from assay_runner.scorecard import Scorecard, assemble


def _rule_value(card: Scorecard, name: str) -> float:
    rule = next(r for r in card.rules if r.name == name)
    return float(rule.value or 0.0)


# Each reduction reads the number a gate rule is decided on, from a scorecard the gate itself produced.
REDUCTIONS: dict[str, tuple[str, Callable[[Scorecard], float]]] = {
    "fully-resolved": (
        "tickets passing in every repetition (the repetitions rule's pass^k numerator)",
        lambda card: float(card.repetitions.fully_resolved),
    ),
    "mean": ("the evaluation score (the score rule)", lambda card: _rule_value(card, "score")),
    "lowest-ticket": (
        "the lowest ticket score (the ticketFloor rule)",
        lambda card: _rule_value(card, "ticketFloor"),
    ),
    "judges-passing": (
        "judges at or above their thresholds (the judges rule)",
        lambda card: float(sum(1 for j in card.judges.values() if j.passed)),
    ),
}
DEFAULT_KEY = ("fully-resolved", "mean")


def parse_key(text: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [n for n in names if n not in REDUCTIONS]
    if not names or unknown:
        raise InputError(
            f"--key {text!r}: name reductions the gate uses: {', '.join(REDUCTIONS)}"
            + (f" (unknown: {', '.join(unknown)})" if unknown else "")
        )
    return names


@dataclass(frozen=True)
class Candidate:
    name: str
    result: Result
    card: Scorecard
    key: tuple[float, ...]
    complete: bool
    coverage: float

    @property
    def eligible(self) -> bool:
        return self.complete and self.card.verdict == "Pass"


@dataclass
class Decision:
    key: tuple[str, ...]
    candidates: list[Candidate]
    incumbent: Candidate | None
    highest_mean: str | None
    winner: str | None
    promote: bool
    reasons: list[str] = field(default_factory=list)
    rank_by_key: dict[str, int] = field(default_factory=dict)
    rank_by_mean: dict[str, int] = field(default_factory=dict)


def candidate(name: str, result: Result, key: Sequence[str]) -> Candidate:
    card = assemble(result.tickets, result.config, result.repetitions.k, result.mlflow)
    complete = next(r for r in card.rules if r.name == "complete")
    return Candidate(
        name=name,
        result=result,
        card=card,
        key=tuple(REDUCTIONS[k][1](card) for k in key),
        complete=complete.passed,
        coverage=float(complete.value or 0.0),
    )


def _check_comparable(candidates: Sequence[Candidate]) -> None:
    reference = candidates[0]
    tickets = [t.id for t in reference.result.tickets]
    for other in candidates[1:]:
        if sorted(t.id for t in other.result.tickets) != sorted(tickets):
            raise InputError(
                f"{other.name} was evaluated on other tickets than {reference.name}: not comparable"
            )
        if other.result.repetitions.k != reference.result.repetitions.k:
            raise InputError(
                f"{other.name} has k={other.result.repetitions.k} repetitions, {reference.name} "
                f"k={reference.result.repetitions.k}: fully-resolved counts are not comparable"
            )
        if other.result.inputs.suite_digest != reference.result.inputs.suite_digest:
            raise InputError(
                f"{other.name} and {reference.name} used different suites (suite digests differ)"
            )


def _ranks(candidates: Sequence[Candidate], sort_key: Callable[[Candidate], object]) -> dict[str, int]:
    ordered = sorted(candidates, key=sort_key, reverse=True)  # type: ignore[arg-type]
    return {c.name: index + 1 for index, c in enumerate(ordered)}


def _fmt(key: Sequence[str], values: Sequence[float]) -> str:
    return ", ".join(f"{name} {value:g}" for name, value in zip(key, values, strict=True))


def decide(
    candidates: Sequence[Candidate],
    incumbent: Candidate | None,
    key: tuple[str, ...] = DEFAULT_KEY,
    on_tie: Literal["keep", "full-key"] = "keep",
) -> Decision:
    if not candidates:
        raise InputError("give at least one candidate result")
    _check_comparable([*candidates, *([incumbent] if incumbent else [])])
    reasons: list[str] = []
    by_mean = max(candidates, key=lambda c: (c.card.score, c.name))
    decision = Decision(
        key=key,
        candidates=list(candidates),
        incumbent=incumbent,
        highest_mean=by_mean.name,
        winner=None,
        promote=False,
    )
    decision.rank_by_mean = _ranks(candidates, lambda c: (c.card.score, c.name))
    decision.rank_by_key = _ranks(candidates, lambda c: (c.complete, c.key, c.name))
    reasons.append(f"highest mean: {by_mean.name} ({by_mean.card.score:.3f}) — descriptive only")
    for c in candidates:
        if not c.complete:
            reasons.append(f"{c.name} is ineligible: incomplete coverage ({c.coverage:.0%} of cells judged)")
    eligible_by_coverage = [c for c in candidates if c.complete]
    if not eligible_by_coverage:
        reasons.append("no candidate has complete coverage: no winner")
        decision.reasons = reasons
        return decision
    best = max(eligible_by_coverage, key=lambda c: (c.key, c.name))
    ties = [c.name for c in eligible_by_coverage if c.key == best.key and c is not best]
    decision.winner = best.name
    reasons.append(
        f"release-key winner: {best.name} ({_fmt(key, best.key)})"
        + (f", tied on every key with {', '.join(ties)} (chosen by name)" if ties else "")
    )
    if by_mean.name != best.name:
        reasons.append(f"the plain mean would pick {by_mean.name}, but {best.name} ranks first on {key[0]}")
    if best.card.verdict != "Pass":
        reasons.append(
            f"no promotion: {best.name}'s own gate verdict is {best.card.verdict} "
            f"({'; '.join(best.card.reasons)[:300]})"
        )
    elif incumbent is None:
        decision.promote = True
        reasons.append(f"promote {best.name}: it passes its gate and there is no incumbent")
    else:
        primary, incumbent_primary = best.key[0], incumbent.key[0]
        if primary > incumbent_primary:
            decision.promote = True
            reasons.append(
                f"promote {best.name}: {key[0]} {primary:g} beats the incumbent's {incumbent_primary:g}"
            )
        elif primary == incumbent_primary and on_tie == "full-key" and best.key > incumbent.key:
            decision.promote = True
            reasons.append(
                f"promote {best.name}: ties the incumbent on {key[0]} and beats it on the full key "
                f"({_fmt(key, best.key)} vs {_fmt(key, incumbent.key)})"
            )
        elif primary == incumbent_primary:
            reasons.append(
                f"keep the incumbent {incumbent.name}: {best.name} only matches it on {key[0]} "
                f"({primary:g}); a promotion needs a strict improvement"
            )
        else:
            reasons.append(
                f"keep the incumbent {incumbent.name}: {key[0]} {primary:g} is below its "
                f"{incumbent_primary:g}"
            )
    decision.reasons = reasons
    return decision


def candidate_name(result: Result, path: Path) -> str:
    return result.run_name or path.parent.name or path.stem


def decision_json(decision: Decision) -> dict[str, object]:
    def row(c: Candidate) -> dict[str, object]:
        figures = c.card.repetitions
        return {
            "name": c.name,
            "mean": c.card.score,
            "passRate": figures.pass_rate,
            "passAtK": figures.pass_at_k,
            "passHatK": figures.pass_hat_k,
            "fullyResolved": figures.fully_resolved,
            "coverage": c.coverage,
            "complete": c.complete,
            "verdict": c.card.verdict,
            "eligible": c.eligible,
            "key": dict(zip(decision.key, c.key, strict=True)),
            "rankByKey": decision.rank_by_key.get(c.name),
            "rankByMean": decision.rank_by_mean.get(c.name),
        }

    return {
        "key": list(decision.key),
        "highestMean": decision.highest_mean,
        "winner": decision.winner,
        "promote": decision.promote,
        "reasons": decision.reasons,
        "candidates": [row(c) for c in decision.candidates],
        "incumbent": row(decision.incumbent) if decision.incumbent else None,
    }
