"""Where an Evaluation stands, read from the object as the watch delivers it (pure): the phase and verdict of
its current generation, and when that generation's run passes its deadline. Feeds the cluster-state gauges
(assay_operator.metrics.EvaluationsCollector)."""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import Field

from assay_operator.cluster_views import Condition, Meta, View
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.metrics import EvaluationState

DEFAULT_DEADLINE: int = EvaluationSpec.model_fields["deadline_seconds"].default


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class _Status(View):
    observed_generation: int | None = None
    verdict: str | None = None
    start_time: str | None = None
    job_name: str | None = None
    conditions: list[Condition] = Field(default_factory=list)


class _Spec(View):
    deadline_seconds: object = None
    """Read as given: anything but a whole number leaves the default deadline."""


class SeenEvaluation(View):
    """The parts of an Evaluation the gauges read, from the whole object a watch event carries."""

    metadata: Meta = Meta()
    spec: _Spec = _Spec()
    status: _Status = _Status()


def _holds(status: _Status, kind: str, generation: int | None) -> bool:
    return any(
        c.type == kind and c.status == "True" and c.observed_generation == generation
        for c in status.conditions
    )


def evaluation_state(obj: SeenEvaluation) -> EvaluationState:
    metadata, status = obj.metadata, obj.status
    generation = metadata.generation
    current = generation is not None and status.observed_generation == generation
    verdict = status.verdict if current else None
    if verdict in ("Pass", "Blocked"):
        return EvaluationState("Finished", str(verdict), None)
    # Without a verdict: the deadline runs from the run's start, else from the object's creation.
    started = (_time(status.start_time) if current else None) or _time(metadata.creation_timestamp)
    given = obj.spec.deadline_seconds
    deadline = given if isinstance(given, int) else DEFAULT_DEADLINE
    deadline_at = None if started is None else started + timedelta(seconds=deadline)
    if current and _holds(status, "Stalled", generation):
        return EvaluationState("Stalled", "None", deadline_at)
    if current and status.job_name:
        return EvaluationState("Running", "None", deadline_at)
    return EvaluationState("Pending", "None", deadline_at)
