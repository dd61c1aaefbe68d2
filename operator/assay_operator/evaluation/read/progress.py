"""Statuses of a run between its Jobs' creation and its verdict (pure): waiting in its Kueue queue, admitted,
its pod unable to start, started after all, its shards answering, its judge Job judging. Each is a merge
patch of a few fields: the run's other figures stay as running_status wrote them."""

from __future__ import annotations

from assay_operator import bounded, conditions
from assay_operator.evaluation.api import (
    MAX_FAILED_SHARDS,
    MAX_MESSAGE_LENGTH,
    MAX_SHARD_REASON,
    AnswerStatus,
    EvaluationStatus,
    ShardFailureStatus,
)
from assay_operator.evaluation.read.answers_state import AnswersState
from assay_operator.evaluation.read.starting import StartProblem


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


def admitted_status(
    current: EvaluationStatus, generation: int, job: str, queue: str, judging: bool = False
) -> EvaluationStatus:
    """`judging`: the admitted Job is the run's judge Job (Reconciling reads Judging, as before its queue)."""
    message = f"Job {job} admitted by Kueue from queue {queue!r}; " + ("judging" if judging else "running")
    return _patch(
        current,
        generation,
        message,
        [
            conditions.Desired(conditions.QUEUED, "False", "Admitted", message),
            conditions.Desired(conditions.RECONCILING, "True", "Judging" if judging else "Running", message),
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


def answer_status(state: AnswersState, job: str, claim: str | None) -> AnswerStatus:
    """The answer phase as the status shows it: shards succeeded (and failed) of all, cells answered."""
    failed = [
        ShardFailureStatus(index=index, reason=bounded.text(reason, MAX_SHARD_REASON))
        for index, reason in sorted(state.failed.items())
    ]
    summary = f"{len(state.succeeded)}/{state.shards}" + (f" ({len(failed)} failed)" if failed else "")
    cells = None
    if state.cells_total is not None:
        cells = f"{state.cells_done or 0}/{state.cells_total}"
    return AnswerStatus(
        job_name=job,
        claim_name=claim,
        shards=state.shards,
        shards_succeeded=len(state.succeeded),
        shards_failed=len(failed),
        failed=failed[:MAX_FAILED_SHARDS],
        cells_done=state.cells_done,
        cells_total=state.cells_total,
        shards_summary=summary,
        cells_summary=cells,
    )


def answering_status(answer: AnswerStatus) -> EvaluationStatus:
    """A shard finished: the answer figures only (the message may say why a pod cannot start)."""
    return EvaluationStatus(answer=answer)


def judging_status(
    current: EvaluationStatus, generation: int, judge: str, answer: AnswerStatus
) -> EvaluationStatus:
    shards = f"{answer.shards_succeeded} of {answer.shards} shard(s) answered"
    cells = f", {answer.cells_summary} cells" if answer.cells_summary else ""
    failed = f"; {answer.shards_failed} failed for good, their cells block" if answer.shards_failed else ""
    message = f"judging: Job {judge} ({shards}{cells}{failed})"
    patch = _patch(
        current, generation, message, [conditions.Desired(conditions.RECONCILING, "True", "Judging", message)]
    )
    patch.answer = answer
    return patch
