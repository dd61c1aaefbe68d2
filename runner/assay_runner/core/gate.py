"""The release gate: rules over the scored tickets, each reported with value, threshold and offenders.

The verdict is Pass if and only if every deciding rule passes; there is no other way to Pass. The rules:

1. `score`       the evaluation score reaches `minScore`;
2. `judges`      every judge's mean reaches its own threshold (and no judge errored);
3. `ticketFloor` every ticket's score reaches `ticketFloor` (one broken ticket cannot hide in the mean);
4. `judgeFloors` a judge with a `floor` reaches it on every repetition of every ticket it applies to;
5. `repetitions` with k > 1 and `minPassHatK` set: that share of tickets passes in every repetition;
6. `complete`    every expected ticket x repetition was judged without error (fail closed);
7. `mlflow`      when `requireMlflow` is set: the run was logged;
8-11.            when the suite sets them, the limits on time and cost (core.limits): `maxAnswerSeconds`,
                 `answerSecondsPercentile`, `maxTicketCostUsd`, `maxRunCostUsd`.

A suite can mark rules as shadow (`gate.shadowRules`): they are evaluated and reported ("would block") but
do not decide. A shadow judge is left out of every rule (it decides nothing) and named in the judges rule's
detail with what it would have done.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.contract import (
    GateSettings,
    JudgeConfigSummary,
    JudgeSummary,
    RepetitionFigures,
    RuleResult,
    TicketResult,
)
from assay_runner.core.scoring import at_least, cell_errors, shadow_names, unit, verdict_score
from assay_runner.vocabulary import GateRule, Verdict

MAX_LISTED = 5


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" (+{len(items) - MAX_LISTED} more)" if len(items) > MAX_LISTED else "")


def score_rule(score: float, gate: GateSettings) -> RuleResult:
    passed = at_least(score, gate.min_score)
    relation = ">=" if passed else "<"
    return RuleResult(
        name=GateRule.SCORE,
        passed=passed,
        value=score,
        threshold=gate.min_score,
        detail=f"{score:.3f} {relation} {gate.min_score:.3f}",  # read as "score: 0.419 < 0.900"
    )


def _shortfall(name: str, summary: JudgeSummary) -> str:
    if summary.errors:
        return f"{name} had {summary.errors} error(s)"
    shown = summary.raw_mean if summary.raw_mean is not None else summary.mean
    return f"{name} {shown:.3f} < {summary.threshold:g}"


def judges_rule(summaries: dict[str, JudgeSummary]) -> RuleResult:
    gating = {name: s for name, s in summaries.items() if s.shadow is None}
    failing = [name for name, summary in gating.items() if not summary.passed]
    parts = [_shortfall(name, gating[name]) for name in failing]
    detail = "; ".join(parts) if failing else f"all {len(gating)} judges at or above their thresholds"
    shadows = [name for name, s in summaries.items() if s.shadow is not None]
    if shadows:
        would = [_shortfall(n, summaries[n]) for n in shadows if not summaries[n].passed]
        detail += f"; shadow, not deciding: {', '.join(shadows)}" + (
            f" (would fail: {'; '.join(would)})" if would else ""
        )
    return RuleResult(
        name=GateRule.JUDGES,
        passed=not failing,
        value=float(len(failing)),
        threshold=0.0,
        detail=detail,
        offenders=failing,
    )


def ticket_floor_rule(tickets: Sequence[TicketResult], gate: GateSettings) -> RuleResult:
    low = [t for t in tickets if not at_least(t.score, gate.ticket_floor)]
    lowest = min((t.score for t in tickets), default=0.0)
    offenders = [t.id for t in sorted(low, key=lambda t: t.score)]
    detail = (
        f"{len(low)} ticket(s) below {gate.ticket_floor:g}: "
        + _listed([f"{t.id} {t.score:.2f}" for t in sorted(low, key=lambda t: t.score)])
        if low
        else f"every ticket >= {gate.ticket_floor:g} (lowest {lowest:.3f})"
    )
    return RuleResult(
        name=GateRule.TICKET_FLOOR,
        passed=not low,
        value=lowest,
        threshold=gate.ticket_floor,
        detail=detail,
        offenders=offenders,
    )


def judge_floor_breaks(ticket: TicketResult, configs: Sequence[JudgeConfigSummary]) -> list[str]:
    """'judge@ticket#rep' for every repetition where a judge with a floor scored below it."""
    breaks: list[str] = []
    for config in configs:
        if config.floor is None or config.shadow is not None:
            continue
        floor = unit(config, config.floor)
        for rep in ticket.repetitions:
            verdict = rep.judges.get(config.name)
            if verdict is not None and verdict.applicable and not at_least(verdict_score(verdict), floor):
                breaks.append(f"{config.name}@{ticket.id}#{rep.index}")
    return breaks


def judge_floors_rule(tickets: Sequence[TicketResult], configs: Sequence[JudgeConfigSummary]) -> RuleResult:
    floored = [c.name for c in configs if c.floor is not None and c.shadow is None]
    breaks = [b for t in tickets for b in judge_floor_breaks(t, configs)]
    if not floored:
        detail = "no judge sets a per-ticket floor"
    elif breaks:
        detail = f"{len(breaks)} floor break(s): {_listed(breaks)}"
    else:
        detail = f"{', '.join(floored)} held their floor on every ticket"
    return RuleResult(
        name=GateRule.JUDGE_FLOORS,
        passed=not breaks,
        value=float(len(breaks)),
        threshold=0.0,
        detail=detail,
        offenders=breaks,
    )


def repetitions_rule(figures: RepetitionFigures, gate: GateSettings) -> RuleResult | None:
    if figures.k <= 1 or gate.min_pass_hat_k is None:
        return None
    passed = at_least(figures.pass_hat_k, gate.min_pass_hat_k)
    detail = (
        f"pass^{figures.k} {figures.pass_hat_k:.3f} {'>=' if passed else '<'} {gate.min_pass_hat_k:g} "
        f"({figures.fully_resolved} ticket(s) pass every repetition)"
    )
    return RuleResult(
        name=GateRule.REPETITIONS,
        passed=passed,
        value=figures.pass_hat_k,
        threshold=gate.min_pass_hat_k,
        detail=detail,
    )


def complete_rule(
    tickets: Sequence[TicketResult], k: int, configs: Sequence[JudgeConfigSummary] = ()
) -> RuleResult:
    """Every cell judged without error; a shadow judge's error is recorded on its verdict and does not
    count (`configs`: the judges, to tell which are shadow)."""
    shadow = shadow_names(configs)
    expected = len(tickets) * k
    problems: list[str] = []
    offenders: list[str] = []
    clean = 0
    for ticket in tickets:
        broken = False
        if len(ticket.repetitions) < k:
            problems.append(f"{ticket.id}: {k - len(ticket.repetitions)} repetition(s) missing")
            broken = True
        for rep in ticket.repetitions:
            errors = ([rep.error] if rep.error else []) + cell_errors(rep.judges, shadow)
            if errors:
                problems.append(f"{ticket.id}#{rep.index}: {errors[0]}")
                broken = True
            else:
                clean += 1
        if broken:
            offenders.append(ticket.id)
    if expected == 0:
        return RuleResult(
            name=GateRule.COMPLETE, passed=False, value=0.0, threshold=1.0, detail="no ticket was evaluated"
        )
    value = clean / expected
    detail = (
        f"{expected - clean} of {expected} cell(s) not judged: {_listed(problems)}"
        if problems
        else f"all {expected} cell(s) judged without error"
    )
    return RuleResult(
        name=GateRule.COMPLETE,
        passed=not problems,
        value=value,
        threshold=1.0,
        detail=detail,
        offenders=offenders,
    )


def mlflow_rule(logged: bool, error: str | None) -> RuleResult:
    detail = "run logged to MLflow" if logged else f"MLflow logging failed: {error or 'not attempted'}"
    return RuleResult(
        name=GateRule.MLFLOW, passed=logged, value=1.0 if logged else 0.0, threshold=1.0, detail=detail
    )


def as_shadow(rules: Sequence[RuleResult], gate: GateSettings) -> list[RuleResult]:
    """The rules, those the gate names in `shadowRules` marked as not deciding."""
    shadow = set(gate.shadow_rules)
    return [rule.model_copy(update={"shadow": True}) if rule.name in shadow else rule for rule in rules]


def deciding(rules: Sequence[RuleResult]) -> list[RuleResult]:
    return [rule for rule in rules if not rule.shadow]


def verdict_of(rules: Sequence[RuleResult]) -> Verdict:
    """Pass when every deciding rule passes (and there is one); a shadow rule never decides."""
    decisive = deciding(rules)
    return "Pass" if decisive and all(rule.passed for rule in decisive) else "Blocked"
