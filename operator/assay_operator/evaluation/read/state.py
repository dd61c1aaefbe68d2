"""Where an Evaluation stands, read from the object as the watch delivers it (pure): the phase and verdict of
its current generation, and when that generation's run passes its deadline. Feeds the cluster-state gauges
(assay_operator.metrics.EvaluationsCollector)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.metrics import EvaluationState

DEFAULT_DEADLINE: int = EvaluationSpec.model_fields["deadline_seconds"].default


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _holds(status: dict[str, Any], kind: str, generation: Any) -> bool:
    return any(
        c.get("type") == kind and c.get("status") == "True" and c.get("observedGeneration") == generation
        for c in status.get("conditions") or []
    )


def evaluation_state(obj: dict[str, Any]) -> EvaluationState:
    metadata, status = obj.get("metadata") or {}, obj.get("status") or {}
    generation = metadata.get("generation")
    current = generation is not None and status.get("observedGeneration") == generation
    verdict = status.get("verdict") if current else None
    if verdict in ("Pass", "Blocked"):
        return EvaluationState("Finished", str(verdict), None)
    # Without a verdict: the deadline runs from the run's start, else from the object's creation.
    started = (_time(status.get("startTime")) if current else None) or _time(
        metadata.get("creationTimestamp")
    )
    spec = obj.get("spec") or {}
    given = spec.get("deadlineSeconds")
    deadline = given if isinstance(given, int) else DEFAULT_DEADLINE
    deadline_at = None if started is None else started + timedelta(seconds=deadline)
    if current and _holds(status, "Stalled", generation):
        return EvaluationState("Stalled", "None", deadline_at)
    if current and status.get("jobName"):
        return EvaluationState("Running", "None", deadline_at)
    return EvaluationState("Pending", "None", deadline_at)
