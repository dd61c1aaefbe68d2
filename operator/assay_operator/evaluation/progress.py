"""Statuses of a run between its Job's creation and its verdict (pure): waiting in its Kueue queue, admitted,
its pod unable to start, started after all. Each is a merge patch of the message and the conditions only:
the run's other figures stay as running_status wrote them."""

from __future__ import annotations

from assay_operator import bounded, conditions
from assay_operator.evaluation.api import MAX_MESSAGE_LENGTH, EvaluationStatus
from assay_operator.evaluation.starting import StartProblem


def _patch(
    current: EvaluationStatus, generation: int, message: str, desired: list[conditions.Desired]
) -> EvaluationStatus:
    return EvaluationStatus(
        message=bounded.text(message, MAX_MESSAGE_LENGTH),
        conditions=conditions.merge(current.conditions, desired, generation),
    )


def queued_status(current: EvaluationStatus, generation: int, job: str, queue: str) -> EvaluationStatus:
    message = f"Job {job} waits in Kueue queue {queue!r} for quota; it starts when Kueue admits it"
    return _patch(
        current,
        generation,
        message,
        [
            conditions.Desired(conditions.QUEUED, "True", "Queued", message),
            conditions.Desired(conditions.RECONCILING, "True", "Queued", message),
        ],
    )


def admitted_status(current: EvaluationStatus, generation: int, job: str, queue: str) -> EvaluationStatus:
    message = f"Job {job} admitted by Kueue from queue {queue!r}; running"
    return _patch(
        current,
        generation,
        message,
        [
            conditions.Desired(conditions.QUEUED, "False", "Admitted", message),
            conditions.Desired(conditions.RECONCILING, "True", "Running", message),
        ],
    )


def start_blocked_status(
    current: EvaluationStatus, generation: int, problem: StartProblem, stalls_at: str | None
) -> EvaluationStatus:
    """Reported within seconds; Reconciling keeps True (kstatus: InProgress, with this message) until the
    grace period ends (then stalled_start)."""
    if problem.heals:
        message = f"{problem.message}; waiting for it to clear (the run's deadline applies)"
    else:
        message = f"{problem.message}; the run ends Stalled at {stalls_at} unless this is fixed"
    return _patch(
        current,
        generation,
        message,
        [
            conditions.Desired(conditions.START_BLOCKED, "True", problem.reason, message),
            conditions.Desired(conditions.RECONCILING, "True", problem.reason, message),
        ],
    )


def started_status(current: EvaluationStatus, generation: int, job: str) -> EvaluationStatus:
    message = f"running Job {job} for generation {generation} (its pod started)"
    return _patch(
        current,
        generation,
        message,
        [
            conditions.Desired(conditions.START_BLOCKED, "False", "Started", message),
            conditions.Desired(conditions.RECONCILING, "True", "Running", message),
        ],
    )
