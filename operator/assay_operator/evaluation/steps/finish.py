"""Finishing a run: when its judge Job is done, read the runner's termination message from its pod, and
write the verdict — or Blocked with the precise reason (outcome.py) — onto the Evaluation, once per run.
A run whose answer Job left nothing to judge ends here too (judging.py), with that Job's reason."""

from __future__ import annotations

from datetime import UTC, datetime

from assay_operator import bounded, conditions, events, kube, metrics
from assay_operator.cluster_views import Job, Pod
from assay_operator.evaluation.read import reconcile
from assay_operator.evaluation.read.outcome import Outcome, classify
from assay_operator.evaluation.steps.watched import Watched


def read_job(name: str, namespace: str) -> Job | None:
    job = kube.if_present(lambda: kube.read_plain(kube.batch().read_namespaced_job, name, namespace))
    return None if job is None else Job.of(job)


def pods_of(namespace: str, job: str) -> list[Pod]:
    pods = kube.read_plain(kube.core().list_namespaced_pod, namespace, label_selector=f"job-name={job}")
    return [Pod.of(pod) for pod in pods.get("items") or []]


def finish_if_done(job: Job, namespace: str, evaluation: str, generation: int) -> None:
    """The judge Job (or a one-Job run's Job) is done: its verdict, or Blocked with the reason."""
    job_name = job.metadata.name
    if classify(job, []).state == "running":
        return  # the Job's conditions say it all: no need to list its pods
    outcome = classify(job, pods_of(namespace, job_name))
    current = Watched.read(namespace, evaluation)
    if current is None:
        return
    if not current.owns(job):
        return  # the Job of a deleted Evaluation that had this name: not this one's verdict
    record(outcome, current, generation, job_name, job.status.start_time)


def record(outcome: Outcome, current: Watched, generation: int, job_name: str, started: str | None) -> None:
    """Write the outcome of the run whose judge Job is `job_name` onto the Evaluation `current` (as read),
    once: not for a superseded generation or run, not twice."""
    if current.generation != generation:
        return  # a newer spec superseded this Job
    status = current.status
    if reconcile.verdict_written(status, generation, job_name):
        return
    if reconcile.superseded_run(status, generation, job_name):
        return  # an earlier run of this generation; a rerun replaced it
    finished = current.write(
        lambda: reconcile.finished_status(outcome, status, generation, conditions.now(), job_name)
    )
    if finished is None:
        return
    verdict = finished.verdict or "Blocked"
    reason = outcome.reason if outcome.summary is None else ("Passed" if verdict == "Pass" else "GateBlocked")
    metrics.EVALUATIONS.labels(verdict, reason).inc()
    began = status.start_time or started  # the run's start (its answer Job's creation), else this Job's
    if began:
        metrics.EVALUATION_SECONDS.observe(reconcile.seconds_between(str(began), datetime.now(UTC)))
    message = finished.message or ""
    if verdict == "Pass":
        events.normal(current.body, "Completed", message)
    else:
        events.warning(current.body, "Blocked", message)


def cannot_finish(namespace: str, evaluation: str, generation: int, error: BaseException) -> None:
    """The verdict could not be read or written, again and again: Stalled with the reason, never silence."""
    current = Watched.read(namespace, evaluation)
    if current is None or current.generation != generation:
        return
    problem = bounded.text(f"the operator cannot read or write the run's verdict: {error}", 400)
    current.write(reconcile.refused_status(current.status, generation, problem), warn=False)
