"""Re-applying a gate to stored results: new thresholds, no agent and no judge run again."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from assay_runner.contract import GateSettings, MlflowRef, Result, judge_scale, threshold_problem
from assay_runner.core.scorecard import assemble
from assay_runner.errors import InputError


def regate(
    result: Result,
    *,
    min_score: float | None = None,
    ticket_floor: float | None = None,
    thresholds: dict[str, float] | None = None,
    min_pass_hat_k: float | None = None,
    limits: Mapping[str, object] | None = None,
) -> Result:
    """`limits`: new time and cost limits (core.limits), by GateSettings field name; None leaves one as
    stored."""
    updates = {
        key: value
        for key, value in (
            ("min_score", min_score),
            ("ticket_floor", ticket_floor),
            ("min_pass_hat_k", min_pass_hat_k),
            *(limits or {}).items(),
        )
        if value is not None
    }
    try:
        # Validated as a suite's gate is: a limit that could not decide anything is bad input.
        gate = GateSettings.model_validate({**result.config.gate.model_dump(), **updates})
    except ValidationError as error:
        raise InputError(f"the gate's new settings: {error}") from error
    judges = list(result.config.judges)
    for name, threshold in (thresholds or {}).items():
        index = next((i for i, j in enumerate(judges) if j.name == name), None)
        if index is None:
            raise InputError(
                f"--threshold {name}=...: the result has no judge {name!r} "
                f"(judges: {', '.join(j.name for j in judges)})"
            )
        judge = judges[index]
        problem = threshold_problem("threshold", threshold, judge_scale(judge.type, judge.scale))
        if problem is not None:
            raise InputError(f"--threshold {name}={threshold:g}: {problem}")
        judges[index] = judges[index].model_copy(update={"threshold": threshold})
    config = result.config.model_copy(update={"gate": gate, "judges": judges})
    card = assemble(result.tickets, config, result.repetitions.k, result.mlflow, usage=result.usage)
    return result.model_copy(update={"config": config, **card.as_update()})


def with_mlflow(result: Result, ref: MlflowRef) -> Result:
    """The result with its MLflow reference, re-gated: `requireMlflow` makes logging part of the gate."""
    card = assemble(result.tickets, result.config, result.repetitions.k, ref, usage=result.usage)
    return result.model_copy(update={"mlflow": ref, **card.as_update()})
