"""Pure reconciliation: from what the cluster shows (the Job, its pods) to the Evaluation's status.

Every shape the status takes — waiting for a dependency, invalid, running, finished — is built here, once,
as a typed `EvaluationStatus`; the handlers only patch it. Fail closed everywhere: a Job that failed, ran out
of time, was OOM-killed, or finished without a summary that validates gives verdict Blocked with
Stalled=True and the precise reason — never Pass, never silence. The summary is accepted only from a
container that exited 0 (the runner exits 0 for both verdicts in a Job; non-zero means it could not run).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from assay_operator import conditions
from assay_operator.evaluation.api import (
    EvaluationStatus,
    InputsStatus,
    MlflowStatus,
    PairedStatus,
    RepetitionsStatus,
    RuleStatus,
    TicketsStatus,
    UsageStatus,
)
from assay_operator.evaluation.layout import ANSWER_CONTAINER, JUDGE_CONTAINER, SPLIT_CONTAINER
from assay_operator.evaluation.names import ANNOTATION_BRAIN, ANNOTATION_KEY, ANNOTATION_PUBLIC
from assay_runner.contract import SUMMARY_SCHEMA_VERSION, RunSummary

MAX_MESSAGE = 1024


@dataclass(frozen=True)
class Outcome:
    """What became of a Job."""

    state: str
    """running | succeeded | failed"""
    reason: str = ""
    message: str = ""
    summary: RunSummary | None = None


def _condition(job: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind and condition.get("status") == "True":
            return dict(condition)
    return None


def _terminated(pod: dict[str, Any], name: str = JUDGE_CONTAINER) -> dict[str, Any] | None:
    status = pod.get("status") or {}
    for container in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        if container.get("name") == name:
            state = container.get("state") or {}
            return state.get("terminated") or (container.get("lastState") or {}).get("terminated")
    return None


def _phases_terminated(pod: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each phase's container that terminated, the pod's order (the answer phase first)."""
    found = []
    for name in (SPLIT_CONTAINER, ANSWER_CONTAINER, JUDGE_CONTAINER):
        terminated = _terminated(pod, name)
        if terminated is not None:
            found.append((name, terminated))
    return found


def _oom(pods: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    for pod in pods:
        for name, terminated in _phases_terminated(pod):
            if terminated.get("reason") == "OOMKilled" or terminated.get("exitCode") == 137:
                return name, terminated
    return None


def digest_mismatch(job: dict[str, Any], summary: RunSummary) -> str:
    """Empty when the RunSummary is bound to what this Job mounted: the brain snapshot, and for a ConfigMap
    suite the public part and the key. A summary that names other inputs is not this Job's verdict."""
    annotations = (job.get("metadata") or {}).get("annotations") or {}
    reported = summary.inputs
    checks = (
        ("brain", ANNOTATION_BRAIN, reported.brain_digest),
        ("suite's public part", ANNOTATION_PUBLIC, reported.public_digest),
        ("answer key", ANNOTATION_KEY, reported.key_digest),
    )
    for what, annotation, value in checks:
        expected = annotations.get(annotation)
        if expected is not None and value != expected:
            return (
                f"the RunSummary's {what} digest {value or '(none)'} is not the snapshot's {expected}: the "
                "verdict is not bound to what this Job mounted"
            )
    return ""


def parse_summary(message: str) -> tuple[RunSummary | None, str]:
    if not message.strip():
        return None, "the runner wrote no summary to its termination message"
    try:
        summary = RunSummary.model_validate_json(message)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        return None, f"the termination message is not a valid RunSummary: {where}: {first['msg']}"
    if summary.schema_version != SUMMARY_SCHEMA_VERSION:
        # Fail closed: a newer runner's summary may mean something this operator cannot read.
        return None, (
            f"the RunSummary has schemaVersion {summary.schema_version}; this operator reads "
            f"{SUMMARY_SCHEMA_VERSION}: run a runner image that matches the operator"
        )
    return summary, ""


def classify(job: dict[str, Any], pods: list[dict[str, Any]]) -> Outcome:
    complete = _condition(job, "Complete")
    failed = _condition(job, "Failed")
    if complete is None and failed is None:
        return Outcome("running")
    if failed is not None:
        reason = failed.get("reason") or "JobFailed"
        message = failed.get("message") or ""
        oom = _oom(pods)
        if oom is not None:
            container, killed = oom
            return Outcome(
                "failed",
                "OOMKilled",
                f"the {container} container was OOMKilled (exit code {killed.get('exitCode')}): raise "
                f"spec.resources.memory or lower spec.concurrency. Job: {reason}: {message}",
            )
        hints = {
            "DeadlineExceeded": "the evaluation ran past spec.deadlineSeconds (or its pod never started): "
            "raise the deadline, lower the ticket count or raise concurrency",
            "BackoffLimitExceeded": "the runner pod failed and its retries are used up; see the pod's logs",
            "PodFailurePolicy": "the runner could not run (bad input); its message says what is wrong",
        }
        failures = [
            t for pod in pods for _, t in _phases_terminated(pod) if t.get("message") and t.get("exitCode")
        ]
        terminal = failures[0] if failures else None
        detail = f": {terminal['message'].strip()[:400]}" if terminal else ""
        return Outcome("failed", reason, f"{hints.get(reason, 'the Job failed')} ({message}){detail}")
    succeeded = [p for p in pods if (p.get("status") or {}).get("phase") == "Succeeded"]
    terminated = next((t for t in map(_terminated, succeeded) if t is not None), None)
    if terminated is None:
        return Outcome(
            "failed",
            "ResultUnreadable",
            "the Job completed but no runner pod with a termination message was found (pods gone?)",
        )
    if terminated.get("exitCode") != 0:
        return Outcome("failed", "ResultUnreadable", f"the runner exited {terminated.get('exitCode')}")
    summary, problem = parse_summary(terminated.get("message") or "")
    if summary is None:
        return Outcome("failed", "ResultUnreadable", problem)
    mismatch = digest_mismatch(job, summary)
    if mismatch:
        return Outcome("failed", "ResultUnreadable", mismatch)
    return Outcome("succeeded", "Completed", "", summary)


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
        rules=[
            RuleStatus(name=r.name, passed=r.passed, detail=r.detail[:512], value=r.value)
            for r in summary.rules
        ],
        judges_passing=counts.judges_passing,
        tickets=TicketsStatus(
            total=counts.tickets,
            passed=counts.passed_tickets,
            summary=f"{counts.passed_tickets}/{counts.tickets}",
            failing=list(summary.failing_tickets)[:10],
        ),
        usage=UsageStatus(
            input_tokens=summary.usage.input_tokens,
            output_tokens=summary.usage.output_tokens,
            cost_usd=round(summary.usage.cost_usd, 6),
        ),
        inputs=InputsStatus.model_validate(summary.inputs.model_dump()),
        paired=PairedStatus.model_validate(summary.paired.model_dump()) if summary.paired else None,
        mlflow=MlflowStatus(
            tracking_uri=summary.mlflow.tracking_uri,
            experiment_id=summary.mlflow.experiment_id,
            run_id=summary.mlflow.run_id,
            logged=summary.mlflow.logged,
        ),
        **(
            {}
            if figures is None
            else {
                "repetitions": RepetitionsStatus(
                    k=figures.k,
                    pass_rate=_round(figures.pass_rate),
                    pass_at_k=_round(figures.pass_at_k),
                    pass_hat_k=_round(figures.pass_hat_k),
                    fully_resolved=figures.fully_resolved,
                )
            }
        ),
    )


def blocked_reasons(summary: RunSummary) -> str:
    failed = [f"{r.name}: {r.detail}" for r in summary.rules if not r.passed]
    return "; ".join(failed)[:MAX_MESSAGE]


def finished_status(
    outcome: Outcome, current: EvaluationStatus, generation: int, completion_time: str, job_name: str
) -> EvaluationStatus:
    """The status of a finished run of `generation`: the verdict, or Blocked with the reason the Job gave."""
    if outcome.summary is not None:
        summary = outcome.summary
        status = verdict_status(summary)
        if summary.verdict == "Pass":
            message = f"Pass: score {summary.score:.3f}, every gate rule passed"
            desired = conditions.finished("Pass", "Passed", message)
        else:
            message = f"Blocked: {blocked_reasons(summary)}"
            desired = conditions.finished("Blocked", "GateBlocked", message)
    else:
        message = f"Blocked: {outcome.reason}: {outcome.message}"[:MAX_MESSAGE]
        status = EvaluationStatus(verdict="Blocked", score=None)
        desired = conditions.finished("Blocked", outcome.reason, message)
    status.observed_generation = generation
    status.job_name = job_name
    status.completion_time = completion_time
    status.message = message
    status.conditions = conditions.merge(current.conditions, desired, generation)
    return status


def running_status(
    current: EvaluationStatus,
    generation: int,
    job_name: str,
    brain_digest: str,
    started: str,
    suite_digests: tuple[str | None, str | None] = (None, None),
    rerun: str | None = None,
) -> EvaluationStatus:
    """A new run of `generation` has its Job: every figure of an earlier run is cleared."""
    again = f" (rerun {rerun[:64]!r})" if rerun else ""
    message = f"running Job {job_name} for generation {generation}{again}"
    return EvaluationStatus(
        observed_generation=generation,
        job_name=job_name,
        rerun=rerun[:253] if rerun else None,
        start_time=started,
        completion_time=None,
        verdict=None,
        score=None,
        judges=None,
        judges_passing=None,
        rules=None,
        tickets=None,
        repetitions=None,
        usage=None,
        mlflow=None,
        message=message,
        inputs=InputsStatus(
            brain_digest=brain_digest, public_digest=suite_digests[0], key_digest=suite_digests[1]
        ),
        conditions=conditions.merge(current.conditions, conditions.running(message), generation),
    )


def waiting_status(
    current: EvaluationStatus, generation: int, reason: str, message: str, stalled: bool
) -> EvaluationStatus:
    """A dependency (the brain's or the suite's ConfigMap) does not exist yet."""
    return EvaluationStatus(
        observed_generation=generation,
        message=message,
        conditions=conditions.merge(
            current.conditions, conditions.waiting(reason, message, stalled), generation
        ),
    )


def invalid_status(current: EvaluationStatus, generation: int, message: str) -> EvaluationStatus:
    """The spec cannot be run: Blocked at once, no Job."""
    return EvaluationStatus(
        observed_generation=generation,
        verdict="Blocked",
        message=message,
        conditions=conditions.merge(
            current.conditions, conditions.finished("Blocked", "InvalidSpec", message), generation
        ),
    )


def run_started(current: EvaluationStatus, generation: int, job_name: str, rerun: str | None = None) -> bool:
    """The status already names this generation's Job (resumed after a restart: its watch brings the
    verdict) — or the run was a rerun and the annotation is gone now, which asks for nothing new."""
    if current.observed_generation != generation:
        return False
    return current.job_name == job_name or (not rerun and current.rerun is not None)


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
