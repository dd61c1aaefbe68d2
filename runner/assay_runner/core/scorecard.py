"""From judged cells to the whole verdict: the one reduction used by `score`, `run`, `gate` and `compare`.

`assemble` recomputes every derived number (cell scores, ticket scores, judge means, repetition figures,
rules, verdict) from the judges' verdicts alone, so re-gating a stored result with new thresholds gives
exactly what a fresh run would have given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay_runner.contract import (
    JudgeSummary,
    MlflowRef,
    RepetitionFigures,
    ResultConfig,
    RuleResult,
    TicketResult,
    Usage,
)
from assay_runner.core import gate, limits, repetitions, scoring
from assay_runner.vocabulary import Verdict


@dataclass(frozen=True)
class Scorecard:
    verdict: Verdict
    score: float
    reasons: list[str]
    judges: dict[str, JudgeSummary]
    rules: list[RuleResult]
    tickets: list[TicketResult]
    repetitions: RepetitionFigures

    def as_update(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def _rescore_ticket(ticket: TicketResult, config: ResultConfig, k: int) -> TicketResult:
    shadow = scoring.shadow_names(config.judges)
    reps = []
    for rep in ticket.repetitions:
        if rep.error is not None:
            reps.append(rep.model_copy(update={"score": 0.0, "passed": False}))
            continue
        score, error = scoring.cell_score(rep.judges, config.judges)
        passed = error is None and scoring.cell_passes(
            rep.judges, config.judges, config.pass_criterion, score
        )
        reps.append(rep.model_copy(update={"score": score, "passed": passed, "error": error}))
    # Missing repetitions count as 0: averaging only what exists would reward a run that stopped early.
    scores = [r.score for r in reps] + [0.0] * max(0, k - len(reps))
    rescored = ticket.model_copy(update={"repetitions": reps, "score": scoring.mean(scores)})
    passed = (
        scoring.at_least(rescored.score, config.gate.ticket_floor)
        and not gate.judge_floor_breaks(rescored, config.judges)
        and len(reps) >= k
        and all(r.error is None and not scoring.cell_errors(r.judges, shadow) for r in reps)
    )
    return rescored.model_copy(update={"passed": passed})


def assemble(
    tickets: Sequence[TicketResult],
    config: ResultConfig,
    k: int,
    mlflow: MlflowRef | None = None,
    *,
    usage: Usage | None = None,
) -> Scorecard:
    """`usage`: the run's total, which `maxRunCostUsd` decides on (None: not recorded, which blocks it)."""
    rescored = [_rescore_ticket(ticket, config, k) for ticket in tickets]
    score = scoring.mean(t.score for t in rescored)
    judges = {c.name: scoring.judge_summary(c, rescored) for c in config.judges}
    figures = repetitions.figures(rescored, k)
    rules: list[RuleResult] = [
        gate.score_rule(score, config.gate),
        gate.judges_rule(judges),
        gate.ticket_floor_rule(rescored, config.gate),
        gate.judge_floors_rule(rescored, config.judges),
    ]
    repetition_rule = gate.repetitions_rule(figures, config.gate)
    if repetition_rule is not None:
        rules.append(repetition_rule)
    rules.extend(limits.limit_rules(rescored, k, config.gate, usage, config.unpriced))
    rules.append(gate.complete_rule(rescored, k, config.judges))
    if config.gate.require_mlflow:
        ref = mlflow or MlflowRef()
        rules.append(gate.mlflow_rule(ref.logged, ref.error))
    rules = gate.as_shadow(rules, config.gate)
    verdict = gate.verdict_of(rules)
    reasons = [f"{rule.name}: {rule.detail}" for rule in gate.deciding(rules) if not rule.passed]
    return Scorecard(
        verdict=verdict,
        score=score,
        reasons=reasons,
        judges=judges,
        rules=rules,
        tickets=rescored,
        repetitions=figures,
    )
