"""A run whose pod cannot start is reported, then stopped: the StartBlocked condition names what is missing
within seconds of the kubelet saying so (starting.py reads it from the pod and its Events); a problem that
cannot heal by itself that is still there after the grace period (ASSAY_POD_START_GRACE_SECONDS) ends the
run — verdict Blocked, Stalled=True with the reason, the Job deleted — instead of waiting out the deadline.

The grace period runs from the condition's lastTransitionTime, so it survives an operator restart: the
restarted operator lists the pods again and re-arms the check.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from assay_operator import conditions, events, kube, metrics, timers
from assay_operator.evaluation.api import KIND, EvaluationStatus
from assay_operator.evaluation.build.names import LABEL_GENERATION
from assay_operator.evaluation.read import progress, reconcile, starting
from assay_operator.evaluation.read.outcome import Outcome
from assay_operator.evaluation.read.starting import StartProblem
from assay_operator.evaluation.steps import finish
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.startup import settings

log = logging.getLogger("assay.operator.pods")
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
Key = tuple[str, str]  # (namespace, job)

_lock = threading.Lock()
_blocked: dict[Key, StartProblem] = {}
"""Runs whose pod could not start when last seen, so a pod that starts clears the condition."""
_timers: dict[Key, threading.Timer] = {}
_owners: dict[Key, str] = {}
"""Job -> its Evaluation's name (a Job's owner never changes)."""


def _owner(namespace: str, job: str) -> str | None:
    with _lock:
        if (namespace, job) in _owners:
            return _owners[(namespace, job)]
    found = finish.read_job(job, namespace)
    reference = None if found is None else found.metadata.owner(KIND)
    if reference is None:
        return None
    with _lock:
        _owners[(namespace, job)] = reference.name
    return reference.name


def _job_of(pod: Mapping[str, Any]) -> tuple[str, int] | None:
    labels = (pod.get("metadata") or {}).get("labels") or {}
    job, generation = labels.get(JOB_NAME_LABEL) or labels.get("job-name"), labels.get(LABEL_GENERATION)
    return None if job is None or generation is None else (str(job), int(generation))


def _current_run(namespace: str, evaluation: str, job: str, generation: int) -> Watched | None:
    """The Evaluation when `job` is its current run and that has no verdict yet."""
    watched = Watched.read(namespace, evaluation)
    if watched is None or watched.generation != generation:
        return None
    status = watched.status
    if job not in reconcile.run_jobs(status) or conditions.holds(
        status.conditions, conditions.COMPLETED, generation
    ):
        return None
    return watched


def _stalls_at(status: EvaluationStatus, generation: int) -> datetime:
    """When the grace period of the current StartBlocked ends (it began when the condition turned True)."""
    found = conditions.find(status.conditions, conditions.START_BLOCKED)
    began = datetime.now(UTC)
    if found is not None and found.status == "True" and found.observed_generation == generation:
        began = datetime.fromisoformat(found.last_transition_time.replace("Z", "+00:00"))
    return began + timedelta(seconds=settings().pod_start_grace_seconds)


def _stamp(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def report(namespace: str, job: str, generation: int, problem: StartProblem | None, started: bool) -> None:
    """What one pod (or Event) of `job` says: a problem, that it started, or neither."""
    key = (namespace, job)
    with _lock:
        known = _blocked.get(key)
    if problem is None and not (started and known is not None):
        return
    evaluation = _owner(namespace, job)
    run = None if evaluation is None else _current_run(namespace, evaluation, job, generation)
    if evaluation is None or run is None:
        return
    status = run.status
    if started:
        with _lock:
            _blocked.pop(key, None)
            timer = _timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        if conditions.find(status.conditions, conditions.START_BLOCKED) is not None:
            run.write(progress.started_status(status, generation, job))
        return
    assert problem is not None
    stalls_at = _stalls_at(status, generation)
    blocked = conditions.find(status.conditions, conditions.START_BLOCKED)
    unchanged = blocked is not None and blocked.status == "True" and blocked.reason == problem.reason
    with _lock:
        _blocked[key] = problem
    if not unchanged:
        run.write(progress.start_blocked_status(status, generation, problem, _stamp(stalls_at)))
        events.warning(run.body, problem.reason, problem.message)
    if not problem.heals:
        _arm(namespace, job, generation, evaluation, stalls_at)


def _arm(namespace: str, job: str, generation: int, evaluation: str, at: datetime) -> None:
    key = (namespace, job)
    delay = max(0.0, (at - datetime.now(UTC)).total_seconds())
    with _lock:
        if key in _timers:
            return
        _timers[key] = timers.after(
            delay + 0.5, _give_up_if_still_blocked, namespace, job, generation, evaluation
        )


def _give_up_if_still_blocked(namespace: str, job: str, generation: int, evaluation: str) -> None:
    with _lock:
        _timers.pop((namespace, job), None)
        problem = _blocked.get((namespace, job))
    try:
        pods = finish.pods_of(namespace, job)
        if problem is None or any(p.started for p in pods):
            return
        run = _current_run(namespace, evaluation, job, generation)
        if run is None:
            return
        if datetime.now(UTC) < _stalls_at(run.status, generation):  # the problem came back later: wait again
            _arm(namespace, job, generation, evaluation, _stalls_at(run.status, generation))
            return
        _stop(job, generation, run, problem)
    except Exception:
        log.exception("checking whether Job %s/%s still cannot start", namespace, job)


def _stop(job: str, generation: int, watched: Watched, problem: StartProblem) -> None:
    grace = settings().pod_start_grace_seconds
    message = (
        f"{problem.message}; not fixed within {grace} s, so the run was stopped (Job {job} deleted). Fix it, "
        "then set the annotation rerun.assay.dev/token to a new value to run again"
    )
    outcome = Outcome("failed", problem.reason, message)
    namespace, evaluation, status = watched.namespace, watched.name, watched.status
    run = status.job_name or job  # the run's name (its judge Job), whichever of its Jobs could not start
    written = watched.write(
        lambda: reconcile.finished_status(outcome, status, generation, conditions.now(), run)
    )
    if written is None:
        return
    delete = kube.batch().delete_namespaced_job
    kube.delete_if_present(functools.partial(delete, job, namespace, propagation_policy="Background"))
    with _lock:
        _blocked.pop((namespace, job), None)
    metrics.EVALUATIONS.labels("Blocked", problem.reason).inc()
    events.warning(watched.body, problem.reason, message)
    log.info("Evaluation %s/%s: stopped Job %s: %s", namespace, evaluation, job, problem.message)


def worth_a_look(pod: Mapping[str, Any], namespace: str) -> bool:
    """Whether a pod's event can change anything here: it shows a problem, or a run reported blocked
    started. Cheap, and run on every pod event (the watch's filter), so the others cost nothing more."""
    if starting.from_pod(pod) is not None:
        return True
    run = _job_of(pod)
    with _lock:
        known = run is not None and (namespace, run[0]) in _blocked
    return known and starting.started(pod)


def pod_seen(pod: Mapping[str, Any], namespace: str) -> None:
    run = _job_of(pod)
    if run is None:
        return
    job, generation = run
    report(namespace, job, generation, starting.from_pod(pod), starting.started(pod))


def event_seen(event: Mapping[str, Any], namespace: str) -> None:
    if starting.from_event(event) is None and "non-existent" not in str(event.get("message")):
        return  # not about a pod that cannot start: no need to read the pod
    name = str((event.get("involvedObject") or {}).get("name") or "")
    pod = kube.if_present(lambda: kube.core().read_namespaced_pod(name, namespace)) if name else None
    if pod is None:
        return
    found = kube.plain(pod)
    run = _job_of(found)
    problem = starting.from_event(event, found)
    if run is None or problem is None or starting.started(found):
        return
    job, generation = run
    report(namespace, job, generation, problem, started=False)
