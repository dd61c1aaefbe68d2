"""What the run itself records: metrics, params and tags, each computed from the result (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay_runner.contract import Result
from assay_runner.core.limits import LIMIT_RULES, LIMIT_SETTINGS

FLAKY_TAGGED = 50  # MLflow keeps a tag's first 5000 characters; the result names them all


def seconds_of(iso: str | None) -> float | None:
    if not iso:
        return None
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def metrics_of(result: Result) -> dict[str, float]:
    metrics: dict[str, float] = {"score": result.score}
    for name, judge in result.judges.items():
        if judge.mean is not None:
            metrics[f"judge.{name}.mean"] = judge.mean
        if judge.raw_mean is not None:
            metrics[f"judge.{name}.raw_mean"] = judge.raw_mean
    figures = result.repetitions
    metrics.update(
        pass_rate=figures.pass_rate,
        pass_at_k=figures.pass_at_k,
        pass_hat_k=figures.pass_hat_k,
        fully_resolved=float(figures.fully_resolved),
        flaky_tickets=float(len(figures.flaky)),
    )
    for rule in result.rules:
        # The limits' figures (slowest answer, percentile, dearest cell, run cost), as the gate read them.
        if rule.name in LIMIT_RULES and rule.value is not None:
            metrics[f"rule.{rule.name}"] = rule.value
    metrics.update(
        input_tokens=float(result.usage.input_tokens),
        output_tokens=float(result.usage.output_tokens),
        cost_usd=result.usage.cost_usd,
    )
    if (talks := result.conversations) is not None:  # what the conversations cost, agent and customer apart
        metrics["conversation.turns"] = float(talks.turns)
        for who, usage in (("agent", talks.agent), ("customer", talks.customer)):
            metrics[f"conversation.{who}.input_tokens"] = float(usage.input_tokens)
            metrics[f"conversation.{who}.output_tokens"] = float(usage.output_tokens)
            metrics[f"conversation.{who}.cost_usd"] = usage.cost_usd
    started, finished = seconds_of(result.started_at), seconds_of(result.finished_at)
    if started is not None and finished is not None:
        metrics["duration_seconds"] = finished - started
    return metrics


def tags_of(result: Result) -> dict[str, str]:
    tags = {
        "assay.verdict": result.verdict,
        "assay.suite": result.suite,
        "assay.mode": result.mode,
        "assay.digest.suite": result.inputs.suite_digest,
        "assay.digest.judges": result.inputs.judges_digest,
    }
    if result.inputs.brain_digest:
        tags["assay.digest.brain"] = result.inputs.brain_digest
    if result.inputs.tickets_digest:
        tags["assay.digest.tickets"] = result.inputs.tickets_digest
    for rule in result.rules:
        outcome = "pass" if rule.passed else "fail"
        # A shadow rule is evaluated and does not decide: its failure is a "would block", never a "fail".
        tags[f"assay.rule.{rule.name}"] = f"shadow-{outcome}" if rule.shadow else outcome
    for name, judge in result.judges.items():
        if judge.shadow is not None:
            tags[f"assay.judge.{name}.shadow"] = judge.shadow[:500]
    if result.reasons:
        tags["assay.reasons"] = "; ".join(result.reasons)[:4000]
    flaky = result.repetitions.flaky
    if flaky:
        shown = ", ".join(flaky[:FLAKY_TAGGED])
        tags["assay.flaky"] = shown + (
            f" (+{len(flaky) - FLAKY_TAGGED} more)" if len(flaky) > FLAKY_TAGGED else ""
        )
    return tags


def params_of(result: Result, extra: Mapping[str, str]) -> dict[str, str]:
    gate = result.config.gate
    params = {
        "suite": result.suite,
        "tickets": str(len(result.tickets)),
        "repetitions": str(result.repetitions.k),
        "gate.minScore": str(gate.min_score),
        "gate.ticketFloor": str(gate.ticket_floor),
        "passCriterion": result.config.pass_criterion.kind,
    }
    if gate.min_pass_hat_k is not None:
        params["gate.minPassHatK"] = str(gate.min_pass_hat_k)
    for key, value in gate.model_dump(by_alias=True, include=set(LIMIT_SETTINGS), exclude_none=True).items():
        params[f"gate.{key}"] = str(value)
    if gate.shadow_rules:
        params["gate.shadowRules"] = ",".join(gate.shadow_rules)
    for judge in result.config.judges:
        params[f"judge.{judge.name}"] = (
            f"{judge.type} weight={judge.weight:g} threshold={judge.threshold:g}"
            + (f" floor={judge.floor:g}" if judge.floor is not None else "")
            + (" shadow" if judge.shadow is not None else "")
        )
    params.update(extra)
    return {key: value[:6000] for key, value in params.items()}


def summary_params(**values: Any) -> dict[str, str]:
    """How the evaluation was run, as params (None: not set, not logged)."""
    return {key: str(value) for key, value in values.items() if value is not None}
