"""Every shape the Evaluation's status takes — running, finished, waiting for a dependency, invalid, refused
— built once as a typed `EvaluationStatus` cut to the schema's bounds (assay_operator.bounded); the steps
only patch it. Fail closed everywhere: a failed run gives verdict Blocked with Stalled=True and the precise
reason — never Pass, never silence."""

from __future__ import annotations

from assay_operator import bounded, conditions, status_writer
from assay_operator.evaluation.api import (
    MAX_MESSAGE_LENGTH,
    AnswerStatus,
    EvaluationStatus,
    InputsStatus,
)
from assay_operator.evaluation.read.outcome import Outcome
from assay_operator.evaluation.read.reconcile.figures import NO_FIGURES, blocked_reasons, verdict_status


def finished_status(
    outcome: Outcome, current: EvaluationStatus, generation: int, completion_time: str, job_name: str
) -> EvaluationStatus:
    """The status of a finished run of `generation`: the verdict, or Blocked with the reason the Job gave."""
    if outcome.summary is not None:
        summary = outcome.summary
        status = verdict_status(summary)
        if status.inputs is not None and current.inputs is not None:
            # A `suite.oci` run's artifact, set at its start: the judge pod's split pulled it by that digest
            # and verified it (the runner's `assay score` reads the split folder, not the artifact).
            status.inputs.suite_artifact_digest = (
                status.inputs.suite_artifact_digest or current.inputs.suite_artifact_digest
            )
        if summary.verdict == "Pass":
            message = f"Pass: score {summary.score:.3f}, every gate rule passed"
            desired = conditions.finished("Pass", "Passed", message)
        else:
            message = blocked_reasons(summary)
            desired = conditions.finished("Blocked", "GateBlocked", message)
    else:
        message = bounded.text(f"Blocked: {outcome.reason}: {outcome.message}", MAX_MESSAGE_LENGTH)
        status = EvaluationStatus(verdict="Blocked", **NO_FIGURES)
        desired = conditions.finished("Blocked", outcome.reason, message)
    status.observed_generation = generation
    status.job_name = job_name
    status.completion_time = completion_time
    status.message = message
    ended = conditions.settled(current.conditions, "RunEnded", "the run ended")
    status.conditions = conditions.merge(current.conditions, [*desired, *ended], generation)
    return status


def running_status(
    current: EvaluationStatus,
    generation: int,
    job_name: str,
    brain_digest: str,
    started: str,
    suite_digests: tuple[str | None, str | None] = (None, None),
    rerun: str | None = None,
    answer: AnswerStatus | None = None,
    suite_artifact: str | None = None,
) -> EvaluationStatus:
    """A new run of `generation` has its answer Job (`answer`); `job_name` is its judge Job, made once the
    answers are in. Every figure of an earlier run is cleared. `suite_artifact`: the manifest digest of a
    `suite.oci` suite, which its pods pull by."""
    again = f" (rerun {rerun[:64]!r})" if rerun else ""
    if answer is None:
        message = f"running Job {job_name} for generation {generation}{again}"
    else:
        message = (
            f"answering with Job {answer.job_name} ({answer.shards} shard(s)) for generation {generation}"
            f"{again}; then judging with Job {job_name}"
        )
    return EvaluationStatus(
        observed_generation=generation,
        job_name=job_name,
        answer=answer,
        rerun=rerun[:253] if rerun else None,
        start_time=started,
        completion_time=None,
        verdict=None,
        score=None,
        judges=None,
        judges_passing=None,
        shadow_judges=None,
        rules=None,
        tickets=None,
        repetitions=None,
        usage=None,
        mlflow=None,
        paired=None,
        override=None,
        message=message,
        inputs=InputsStatus(
            brain_digest=brain_digest,
            public_digest=suite_digests[0],
            key_digest=suite_digests[1],
            suite_artifact_digest=suite_artifact,
        ),
        conditions=conditions.merge(
            current.conditions,
            [*conditions.running(message), *conditions.settled(current.conditions, "NewRun", message)],
            generation,
        ),
    )


def with_conditions(
    status: EvaluationStatus, desired: list[conditions.Desired], generation: int
) -> EvaluationStatus:
    """`status` with `desired` merged into its conditions (the network probe's beside the run's)."""
    if not desired:
        return status
    merged = conditions.merge(status.conditions, desired, generation)
    return status.model_copy(update={"conditions": merged})


def waiting_status(
    current: EvaluationStatus, generation: int, reason: str, message: str, stalled: bool
) -> EvaluationStatus:
    """A dependency (the brain's or the suite's ConfigMap) does not exist yet."""
    message = bounded.text(message, MAX_MESSAGE_LENGTH)
    return EvaluationStatus(
        observed_generation=generation,
        message=message,
        conditions=conditions.merge(
            current.conditions, conditions.waiting(reason, message, stalled), generation
        ),
    )


def invalid_status(current: EvaluationStatus, generation: int, message: str) -> EvaluationStatus:
    """The spec cannot be run: Blocked at once, no Job."""
    message = bounded.text(message, MAX_MESSAGE_LENGTH)
    return EvaluationStatus(
        observed_generation=generation,
        verdict="Blocked",
        message=message,
        conditions=conditions.merge(
            current.conditions, conditions.finished("Blocked", "InvalidSpec", message), generation
        ),
    )


def image_refused_status(
    current: EvaluationStatus, generation: int, reason: str, message: str
) -> EvaluationStatus:
    """The runner image failed verification: Blocked at once, no Job, the ImageVerified condition naming
    why (assay_operator.image_verification's reasons)."""
    return verification_refused_status(current, generation, conditions.IMAGE_VERIFIED, reason, message)


def verification_refused_status(
    current: EvaluationStatus, generation: int, condition: str, reason: str, message: str
) -> EvaluationStatus:
    """What the run needs failed verification (the runner image: ImageVerified; the suite's artifact:
    SuiteVerified): Blocked at once, no Job, that condition False naming why."""
    message = bounded.text(message, MAX_MESSAGE_LENGTH)
    desired = [
        *conditions.finished("Blocked", reason, message),
        conditions.Desired(condition, "False", reason, message),
    ]
    return EvaluationStatus(
        observed_generation=generation,
        verdict="Blocked",
        message=message,
        conditions=conditions.merge(current.conditions, desired, generation),
    )


def refused_status(current: EvaluationStatus, generation: int, problem: str) -> EvaluationStatus:
    """The status the operator meant to write was refused (assay_operator.status_writer): Stalled with the
    reason, so nobody waits for a status that never comes. The conditions are replaced whole: only what
    this says is certain."""
    message = bounded.text(
        f"the operator could not write this Evaluation's status: {problem}", MAX_MESSAGE_LENGTH
    )
    desired = conditions.waiting(status_writer.REASON, message, stalled=True)
    return EvaluationStatus(
        observed_generation=generation,
        message=message,
        conditions=conditions.merge(None, desired, generation),
    )
