"""Choosing among candidates: three questions that must not be confused.

1. Which candidate has the highest descriptive mean? (reported, never decisive)
2. Which candidate wins under the release key? The key is an ordered tuple of *the gate's own reductions*
   — by default the number of fully resolved tickets (passing in every repetition: what the `repetitions`
   rule counts), then the mean (what the `score` rule reads). Only reductions the gate uses can be named,
   so the selector and the gate cannot drift apart.
3. May that winner replace the incumbent? Only with complete coverage (every ticket x repetition judged),
   its own gate verdict Pass, and a strict improvement over the incumbent on the primary key — and, when the
   campaign asks for them, two more rules: no judge's mean falls below the incumbent's by more than a
   tolerance (`maxJudgeDrop`), and the improvement is unlikely to be noise (`minConfidence`, from a paired
   test over the same tickets, adjusted for the number of candidates; see `statistics`).

Every candidate compared with the incumbent gets its paired figures and per-judge differences, whether or
not a rule reads them: without a rule they inform, they do not decide.

Pure and free of pydantic: `assay compare` feeds it standings recomputed from result files, the operator's
Campaign feeds it standings read from its Evaluations' status (core.standing). Both reach the same decision
from the same numbers, and both read it back as the same typed report (core.decision_report).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from assay_runner.core.standing import DEFAULT_KEY, OnTie, Standing, check_comparable
from assay_runner.core.statistics import DEFAULT_LEVEL, DEFAULT_SEED, Comparison, compare, holm
from assay_runner.errors import InputError


@dataclass(frozen=True)
class PromotionRules:
    """The optional rules beyond "a strict improvement on the primary key"."""

    min_confidence: float | None = None
    """Promote only when the paired test's confidence (1 - its Holm-adjusted p-value) reaches this."""
    max_judge_drop: float | None = None
    """Promote only when no judge's mean is below the incumbent's by more than this."""
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        if self.min_confidence is not None and not 0.0 < self.min_confidence < 1.0:
            raise InputError(
                f"minConfidence {self.min_confidence}: give a number between 0 and 1 (e.g. 0.95)"
            )
        if self.max_judge_drop is not None and not 0.0 <= self.max_judge_drop <= 1.0:
            raise InputError(f"maxJudgeDrop {self.max_judge_drop}: give a number between 0 and 1")

    @property
    def level(self) -> float:
        return self.min_confidence if self.min_confidence is not None else DEFAULT_LEVEL


@dataclass(frozen=True)
class JudgeDelta:
    """One judge's mean, a candidate against the incumbent."""

    judge: str
    candidate: float | None
    incumbent: float | None

    @property
    def delta(self) -> float | None:
        if self.candidate is None or self.incumbent is None:
            return None
        return self.candidate - self.incumbent

    def regressed(self, tolerance: float) -> bool:
        """Fail closed: a judge the incumbent was scored on but the candidate was not counts as a fall."""
        if self.incumbent is None:
            return False
        if self.candidate is None:
            return True
        return self.candidate < self.incumbent - tolerance - 1e-12


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
    rules: PromotionRules = field(default_factory=PromotionRules)
    comparisons: dict[str, Comparison] = field(default_factory=dict)
    """Each complete candidate against a complete incumbent, when both carry per-ticket data."""
    adjusted_p: dict[str, float] = field(default_factory=dict)
    """The deciding test's p-value per candidate, Holm-adjusted over all compared candidates."""
    judge_deltas: dict[str, list[JudgeDelta]] = field(default_factory=dict)
    verdict: str = ""
    """The one line that decided: promote, keep the incumbent, or the rule that blocked the promotion."""

    def deciding_test(self) -> str:
        """The test that matches the primary key: fully resolved tickets are pass/fail (McNemar); every
        other reduction is read on the per-ticket scores (permutation)."""
        return "passes" if self.key[0] == "fully-resolved" else "scores"

    def confidence(self, name: str) -> float | None:
        p = self.adjusted_p.get(name)
        return None if p is None else 1.0 - p


def _ranks(standings: Sequence[Standing], sort_key: Callable[[Standing], object]) -> dict[str, int]:
    ordered = sorted(standings, key=sort_key, reverse=True)  # type: ignore[arg-type]
    return {s.name: index + 1 for index, s in enumerate(ordered)}


def _fmt(key: Sequence[str], values: Sequence[float]) -> str:
    return ", ".join(f"{name} {_shown(name, value)}" for name, value in zip(key, values, strict=True))


def _shown(name: str, value: float) -> str:
    if name == "cost":
        return "unknown" if math.isinf(value) else f"${value:.4f}"
    return _num(value)


def _num(value: float) -> str:
    """A count as an integer, a score to three places: 15, 0.985."""
    return f"{round(value, 3):g}"


def _judge_deltas(candidate: Standing, incumbent: Standing) -> list[JudgeDelta]:
    names = list(incumbent.judge_means) + [n for n in candidate.judge_means if n not in incumbent.judge_means]
    return [JudgeDelta(n, candidate.judge_means.get(n), incumbent.judge_means.get(n)) for n in names]


def _compare_all(decision: Decision, candidates: Sequence[Standing], incumbent: Standing | None) -> None:
    if incumbent is None:
        return
    for c in candidates:
        decision.judge_deltas[c.name] = _judge_deltas(c, incumbent)
    if incumbent.paired is None or not incumbent.complete:
        return
    rules = decision.rules
    for c in candidates:
        if c.paired is None or not c.complete:
            continue
        try:
            comparison = compare(c.paired, incumbent.paired, level=rules.level, seed=rules.seed)
        except InputError:
            continue  # not the same tickets: no paired figures, so minConfidence cannot be met
        decision.comparisons[c.name] = comparison
    test = decision.deciding_test()
    decision.adjusted_p = holm(
        {name: getattr(comparison, test).p_value for name, comparison in decision.comparisons.items()}
    )


def decide(
    candidates: Sequence[Standing],
    incumbent: Standing | None,
    key: tuple[str, ...] = DEFAULT_KEY,
    on_tie: OnTie = "keep",
    rules: PromotionRules | None = None,
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
        rules=rules or PromotionRules(),
    )
    _compare_all(decision, candidates, incumbent)
    decision.rank_by_mean = _ranks(candidates, lambda c: (c.mean, c.name))
    decision.rank_by_key = _ranks(candidates, lambda c: (c.complete, c.key(key), c.name))
    reasons.append(f"highest mean: {by_mean.name} ({by_mean.mean:.3f}) — descriptive only")
    for c in candidates:
        if not c.complete:
            reasons.append(f"{c.name} is ineligible: incomplete coverage ({c.coverage:.0%} of cells judged)")
    complete = [c for c in candidates if c.complete]
    if not complete:
        reasons.append("no candidate has complete coverage: no winner")
        decision.verdict = reasons[-1]
        decision.reasons = reasons
        return decision
    best = max(complete, key=lambda c: (c.key(key), c.name))
    ties = [c.name for c in complete if c.key(key) == best.key(key) and c is not best]
    decision.winner = best.name
    reasons.append(
        f"release-key winner: {best.name} ({_fmt(key, best.figures(key))})"
        + (f", tied on every key with {', '.join(ties)} (chosen by name)" if ties else "")
    )
    if by_mean.name != best.name:
        reasons.append(f"the plain mean would pick {by_mean.name}, but {best.name} ranks first on {key[0]}")
    decision.promote, verdict = _promotion(best, incumbent, key, on_tie)
    if incumbent is not None:
        reasons.extend(_figures(decision, best))
    reasons.append(verdict)
    if decision.promote and incumbent is not None:
        decision.promote, lines = _extra_rules(decision, best, incumbent)
        reasons.extend(lines)
        if not decision.promote:
            verdict = next(line for line in lines if line.startswith("no promotion"))
    decision.verdict = verdict
    decision.reasons = reasons
    return decision


def _figures(decision: Decision, best: Standing) -> list[str]:
    """The winner's paired figures, one line, whether or not a rule reads them."""
    comparison = decision.comparisons.get(best.name)
    if comparison is None:
        return []
    s, p = comparison.scores, comparison.passes
    level = f"{comparison.level:.0%}"
    return [
        f"paired vs the incumbent over {s.tickets} tickets: score {s.effect:+.3f} "
        f"({level} CI {s.ci_low:+.3f}..{s.ci_high:+.3f}, p={s.p_value:.3g}); fully resolved "
        f"+{p.gained}/-{p.lost} (McNemar p={p.p_value:.3g}); confidence after Holm over "
        f"{len(decision.comparisons)} candidate(s): {_pct(decision.confidence(best.name))}"
    ]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _extra_rules(decision: Decision, best: Standing, incumbent: Standing) -> tuple[bool, list[str]]:
    """The optional rules: both are checked and reported, either blocks."""
    rules, lines, promote = decision.rules, [], True
    if rules.max_judge_drop is not None:
        # A shadow judge's fall is shown with the deltas but never refuses a promotion: it decides nothing.
        shadow = best.shadow_judges | incumbent.shadow_judges
        fallen = [
            d
            for d in decision.judge_deltas.get(best.name, [])
            if d.judge not in shadow and d.regressed(rules.max_judge_drop)
        ]
        for d in fallen:
            shown = "not scored" if d.candidate is None else f"{d.candidate:.3f}"
            lines.append(
                f"judge {d.judge} regressed: {shown} vs the incumbent's {d.incumbent:.3f} "
                f"(allowed drop {rules.max_judge_drop:g})"
            )
        if fallen:
            promote = False
            lines.append(
                f"no promotion: {best.name} lets {len(fallen)} judge(s) fall below the incumbent "
                "(maxJudgeDrop)"
            )
    if rules.min_confidence is not None:
        confidence = decision.confidence(best.name)
        comparison = decision.comparisons.get(best.name)
        effect = None if comparison is None else getattr(comparison, decision.deciding_test()).effect
        if confidence is None or effect is None:
            promote = False
            lines.append(
                "no promotion: minConfidence needs per-ticket results of the winner and a complete incumbent "
                "to compare, and they are not available"
            )
        elif effect <= 0 or confidence < rules.min_confidence:
            promote = False
            lines.append(
                f"no promotion: the improvement of {best.name} may be noise — confidence "
                f"{_pct(confidence)} < minConfidence {rules.min_confidence:.0%} "
                f"({'fully-resolved' if decision.deciding_test() == 'passes' else 'score'} test)"
            )
        else:
            lines.append(
                f"the improvement is real at {_pct(confidence)} >= minConfidence {rules.min_confidence:.0%}"
            )
    return promote, lines


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
            f"({_fmt(key, best.figures(key))} vs {_fmt(key, incumbent.figures(key))})"
        )
    if mine[0] == theirs[0]:
        return False, (
            f"keep the incumbent {incumbent.name}: {best.name} only matches it on {key[0]} "
            f"({_num(mine[0])}); a promotion needs a strict improvement"
        )
    return False, (
        f"keep the incumbent {incumbent.name}: {key[0]} {_num(mine[0])} is below its {_num(theirs[0])}"
    )
