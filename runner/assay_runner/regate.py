"""Re-applying a gate to stored results: new thresholds, no agent and no judge run again."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from assay_runner.contract import MlflowRef, Result
from assay_runner.errors import InputError, Problem
from assay_runner.scorecard import assemble


def read_result(path: Path) -> Result:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError([Problem(str(path), "", "result file not found")]) from None
    except json.JSONDecodeError as exc:
        raise InputError([Problem(str(path), "", f"invalid JSON: {exc.msg}", exc.lineno)]) from None
    try:
        return Result.model_validate(data)
    except ValidationError as exc:
        problems = [Problem(str(path), ".".join(str(p) for p in e["loc"]), e["msg"]) for e in exc.errors()]
        raise InputError(problems) from None


def regate(
    result: Result,
    *,
    min_score: float | None = None,
    ticket_floor: float | None = None,
    thresholds: dict[str, float] | None = None,
    min_pass_hat_k: float | None = None,
) -> Result:
    gate = result.config.gate.model_copy(
        update={
            key: value
            for key, value in (
                ("min_score", min_score),
                ("ticket_floor", ticket_floor),
                ("min_pass_hat_k", min_pass_hat_k),
            )
            if value is not None
        }
    )
    judges = list(result.config.judges)
    for name, threshold in (thresholds or {}).items():
        index = next((i for i, j in enumerate(judges) if j.name == name), None)
        if index is None:
            raise InputError(
                f"--threshold {name}=...: the result has no judge {name!r} "
                f"(judges: {', '.join(j.name for j in judges)})"
            )
        low, high = judges[index].scale or (0.0, 1.0)
        if not low <= threshold <= high:
            raise InputError(
                f"--threshold {name}={threshold:g}: outside the judge's scale [{low:g}, {high:g}]"
            )
        judges[index] = judges[index].model_copy(update={"threshold": threshold})
    config = result.config.model_copy(update={"gate": gate, "judges": judges})
    card = assemble(result.tickets, config, result.repetitions.k, result.mlflow)
    return result.model_copy(update={"config": config, **card.as_update()})


def with_mlflow(result: Result, ref: MlflowRef) -> Result:
    """The result with its MLflow reference, re-gated: `requireMlflow` makes logging part of the gate."""
    card = assemble(result.tickets, result.config, result.repetitions.k, ref)
    return result.model_copy(update={"mlflow": ref, **card.as_update()})
