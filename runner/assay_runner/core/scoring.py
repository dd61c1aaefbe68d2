"""Pure arithmetic from judge verdicts to cell, ticket and judge scores.

Applicability is the rule that keeps this honest: a judge that did not apply is left out of the cell's
weighted mean (the other weights renormalise) and out of its own mean — it never contributes a free 1.0.
A judge error counts as an applicable 0 and is flagged, so an error can only lower a score.

A shadow judge (`JudgeConfigSummary.shadow`) is scored and summarised like any other, but it is left out of
every number that decides: the cell's weighted mean (its weight does not count, so it cannot move a score),
the pass criterion and the errors that block. Like a dry-run metric in Argo Rollouts, its failure, even its
error, never fails the run.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Iterable, Mapping, Sequence

from assay_runner.contract import JudgeConfigSummary, JudgeSummary, JudgeVerdict, PassCriterion, TicketResult

EPSILON = 1e-9  # 0.1 + 0.8 must reach a 0.9 threshold


def at_least(value: float, threshold: float) -> bool:
    return value >= threshold - EPSILON


def unit(config: JudgeConfigSummary, value: float) -> float:
    """A threshold or floor given on the judge's own scale, mapped to [0, 1]."""
    if config.scale is None:
        return value
    low, high = config.scale
    return (value - low) / (high - low)


def shadow_names(configs: Sequence[JudgeConfigSummary]) -> frozenset[str]:
    """The judges that are recorded but do not decide."""
    return frozenset(config.name for config in configs if config.shadow is not None)


def gating_judges_passing(summaries: Mapping[str, JudgeSummary]) -> int:
    """Gating judges at or above their thresholds (the judges rule's count; shadow judges left out)."""
    return sum(1 for summary in summaries.values() if summary.passed and summary.shadow is None)


def verdict_score(verdict: JudgeVerdict) -> float:
    return 0.0 if verdict.error is not None or verdict.score is None else verdict.score


def cell_score(
    verdicts: dict[str, JudgeVerdict], configs: Sequence[JudgeConfigSummary]
) -> tuple[float, str | None]:
    """Weighted mean of the applicable weighted judges, and an error when none applied."""
    total_weight = 0.0
    weighted = 0.0
    for config in configs:
        verdict = verdicts.get(config.name)
        if verdict is None:
            return 0.0, f"judge {config.name!r} has no verdict"
        if config.weight <= 0 or config.shadow is not None or not verdict.applicable:
            continue
        total_weight += config.weight
        weighted += config.weight * verdict_score(verdict)
    if total_weight == 0:
        return 0.0, "no weighted judge applies to this ticket"
    return weighted / total_weight, None


def cell_errors(verdicts: dict[str, JudgeVerdict], shadow: Collection[str] = ()) -> list[str]:
    """The judges' errors that block: a shadow judge's error is recorded on its verdict, not here."""
    return [
        f"{name}: {v.error}" for name, v in verdicts.items() if v.error is not None and name not in shadow
    ]


def cell_passes(
    verdicts: dict[str, JudgeVerdict],
    configs: Sequence[JudgeConfigSummary],
    criterion: PassCriterion,
    score: float,
) -> bool:
    """Whether one ticket repetition counts as passing (for pass rate, pass@k and pass^k); shadow judges
    do not count."""
    if cell_errors(verdicts, shadow_names(configs)):
        return False
    applicable = [
        (c, verdicts[c.name])
        for c in configs
        if c.shadow is None and c.name in verdicts and verdicts[c.name].applicable
    ]
    if criterion.kind == "minTicketScore":
        assert criterion.min_ticket_score is not None
        return at_least(score, criterion.min_ticket_score)
    if criterion.kind == "allJudgesThreshold":
        return all(at_least(verdict_score(v), unit(c, c.threshold)) for c, v in applicable)
    return all(at_least(verdict_score(v), 1.0) for _, v in applicable)


def mean(values: Iterable[float]) -> float:
    collected = list(values)
    return statistics.fmean(collected) if collected else 0.0


def judge_summary(config: JudgeConfigSummary, tickets: Sequence[TicketResult]) -> JudgeSummary:
    """A judge's mean over the tickets where it applied, repetitions averaged per ticket first."""
    per_ticket: list[float] = []
    per_ticket_raw: list[float] = []
    errors = 0
    for ticket in tickets:
        verdicts = [r.judges[config.name] for r in ticket.repetitions if config.name in r.judges]
        applicable = [v for v in verdicts if v.applicable]
        errors += sum(1 for v in verdicts if v.error is not None)
        if not applicable:
            continue
        per_ticket.append(mean(verdict_score(v) for v in applicable))
        raws = [v.raw for v in applicable if v.raw is not None and v.error is None]
        if config.scale is not None:
            low = config.scale[0]
            # An errored sample has no raw score; count it at the bottom of the scale, like its 0.
            per_ticket_raw.append(mean(raws + [low] * (len(applicable) - len(raws))))
    judge_mean = mean(per_ticket) if per_ticket else None
    raw_mean = mean(per_ticket_raw) if per_ticket_raw else None
    passed = errors == 0 and (judge_mean is None or at_least(judge_mean, unit(config, config.threshold)))
    return JudgeSummary(
        type=config.type,
        weight=config.weight,
        mean=judge_mean,
        raw_mean=raw_mean,
        threshold=config.threshold,
        passed=passed,
        applicable_tickets=len(per_ticket),
        errors=errors,
        shadow=config.shadow,
    )
