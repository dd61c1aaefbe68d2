"""The status fields the operator reads back to decide (the journal: see the package's docstring): whose run
the status describes, which Jobs are its, whether its verdict is written, and the stored status parsed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from assay_operator import conditions
from assay_operator.evaluation.api import (
    EvaluationStatus,
)


def run_started(current: EvaluationStatus, generation: int, job_name: str, rerun: str | None = None) -> bool:
    """The status already names this generation's Job (resumed after a restart: its watch brings the
    verdict) — or the run was a rerun and the annotation is gone now, which asks for nothing new."""
    if current.observed_generation != generation:
        return False
    return current.job_name == job_name or (not rerun and current.rerun is not None)


def run_jobs(current: EvaluationStatus) -> set[str]:
    """The Jobs of the run the status describes: its answer Job and its judge Job."""
    found = {current.job_name} if current.job_name else set()
    if current.answer is not None and current.answer.job_name:
        found.add(current.answer.job_name)
    return found


def superseded_run(current: EvaluationStatus, generation: int, job_name: str) -> bool:
    """The Job is an earlier run of this generation, replaced by a rerun: its result is not the verdict."""
    return (
        current.observed_generation == generation
        and current.job_name is not None
        and current.job_name != job_name
    )


def verdict_written(current: EvaluationStatus, generation: int, job_name: str) -> bool:
    return (
        conditions.holds(current.conditions, conditions.COMPLETED, generation)
        and current.job_name == job_name
    )


def seconds_between(start: str, end: datetime) -> float:
    """Seconds from an RFC 3339 timestamp (a Job's startTime) to `end`, never negative."""
    started = datetime.fromisoformat(start.replace("Z", "+00:00"))
    return max(0.0, (end - started).total_seconds())


def parse_status(status: Any) -> EvaluationStatus:
    """The stored status as the typed model (the apiserver has pruned it to the schema's fields)."""
    return EvaluationStatus.model_validate(dict(status or {}))
