"""A RunSummary's figures as the Evaluation's status shows them (scores to three places, lists cut to the
schema's bounds), and the figures a Blocked status that rests on no gate clears."""

from __future__ import annotations

from assay_operator import bounded
from assay_operator.evaluation.api import (
    MAX_DETAIL,
    MAX_FAILING,
    MAX_FLAKY,
    MAX_MESSAGE_LENGTH,
    MAX_PAIRED,
    MAX_RULES,
    MAX_SHADOW_JUDGES,
    MAX_SHADOW_REASON,
    ConversationsStatus,
    EvaluationStatus,
    InputsStatus,
    MlflowStatus,
    PairedStatus,
    RepetitionsStatus,
    RuleStatus,
    TicketsStatus,
    UsageStatus,
)
from assay_runner.contract import RunSummary


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def verdict_status(summary: RunSummary) -> EvaluationStatus:
    """The figures of a RunSummary, as the status shows them (scores to three places)."""
    counts = summary.counts
    figures = summary.repetitions
    return EvaluationStatus(
        verdict=summary.verdict,
        score=_round(summary.score),
        judges={name: _round(mean) for name, mean in summary.judges.items()},
        rules=_rules(summary),
        judges_passing=counts.judges_passing,
        shadow_judges=_shadow_judges(summary),
        tickets=TicketsStatus(
            total=counts.tickets,
            passed=counts.passed_tickets,
            summary=f"{counts.passed_tickets}/{counts.tickets}",
            failing=list(summary.failing_tickets)[:MAX_FAILING],
            flaky=counts.flaky_tickets,
        ),
        usage=UsageStatus(
            input_tokens=summary.usage.input_tokens,
            output_tokens=summary.usage.output_tokens,
            cost_usd=round(summary.usage.cost_usd, 6),
        ),
        conversations=None
        if summary.conversations is None
        else ConversationsStatus.model_validate(summary.conversations.model_dump()),
        inputs=InputsStatus.model_validate(summary.inputs.model_dump()),
        paired=_paired(summary),
        mlflow=MlflowStatus(
            tracking_uri=summary.mlflow.tracking_uri,
            experiment_id=summary.mlflow.experiment_id,
            run_id=summary.mlflow.run_id,
            logged=summary.mlflow.logged,
        ),
        repetitions=None
        if figures is None
        else RepetitionsStatus(
            k=figures.k,
            pass_rate=_round(figures.pass_rate),
            pass_at_k=_round(figures.pass_at_k),
            pass_hat_k=_round(figures.pass_hat_k),
            fully_resolved=figures.fully_resolved,
            flaky=figures.flaky[:MAX_FLAKY],
        ),
    )


def _rules(summary: RunSummary) -> list[RuleStatus]:
    """The gate's rules, at most MAX_RULES: failed rules first when there are more, the last line counting
    the rules left out (the full list is in the result on MLflow)."""
    rules = [
        RuleStatus(
            name=r.name,
            passed=r.passed,
            detail=bounded.text(r.detail, MAX_DETAIL),
            value=r.value,
            shadow=True if r.shadow else None,
        )
        for r in summary.rules
    ]
    if len(rules) <= MAX_RULES:
        return rules
    ordered = sorted(rules, key=lambda r: r.passed)  # stable: failed rules first, each group in order
    kept, left = ordered[: MAX_RULES - 1], ordered[MAX_RULES - 1 :]
    detail = f"{len(left)} more rules ({sum(not r.passed for r in left)} failed): see the full result"
    return [*kept, RuleStatus(name="more", passed=all(r.passed for r in left), detail=detail)]


def _shadow_judges(summary: RunSummary) -> dict[str, str] | None:
    """The judges that ran without gating, with why (None when every judge gates, as before they existed)."""
    if not summary.shadow_judges:
        return None
    kept = list(summary.shadow_judges.items())[:MAX_SHADOW_JUDGES]
    return {name: bounded.text(why, MAX_SHADOW_REASON) for name, why in kept}


def _paired(summary: RunSummary) -> PairedStatus | None:
    """Per-ticket figures for a Campaign's paired tests; left out past MAX_PAIRED tickets (a Campaign then
    compares those Evaluations by their reductions only, as when the summary had no room)."""
    paired = summary.paired
    if paired is None or len(paired.scores) > MAX_PAIRED or len(paired.resolved) > MAX_PAIRED:
        return None
    return PairedStatus.model_validate(paired.model_dump())


NO_FIGURES: dict[str, None] = dict.fromkeys(
    (
        "score",
        "judges",
        "judges_passing",
        "shadow_judges",
        "rules",
        "tickets",
        "repetitions",
        "paired",
        "usage",
    )
)
"""A Blocked status that rests on no gate's figures clears them all: named (set to None), each is sent as
a null in the status patch, which removes what an earlier run or a forged write left."""


def blocked_reasons(summary: RunSummary) -> str:
    """The gate's failed rules, each with its detail, as status.message says them (cut to its bound)."""
    failed = [f"{r.name}: {r.detail}" for r in summary.rules if not r.passed and not r.shadow]
    return bounded.text("Blocked: " + "; ".join(failed), MAX_MESSAGE_LENGTH)
