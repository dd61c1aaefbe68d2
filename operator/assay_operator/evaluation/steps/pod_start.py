"""A run whose pod cannot start is reported, then stopped: the StartBlocked condition names what is missing
within seconds of the cluster saying so — the kubelet and the scheduler on the pod and its Events
(starting.py), the PersistentVolume controller and the provisioner on the answers claim (claims.py), the Job
controller's FailedCreate on the Job when admission refuses its pods, a ResourceQuota's (pod_creation.py); a
problem that cannot heal by itself that is still there after the grace period
(ASSAY_POD_START_GRACE_SECONDS) ends the run — verdict Blocked, Stalled=True with the reason, the Job
deleted — instead of waiting out the deadline.

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
from assay_operator.cluster_views import Object
from assay_operator.evaluation.api import KIND, EvaluationStatus
from assay_operator.evaluation.build.names import LABEL_GENERATION, LABEL_MANAGED_BY, MANAGED_BY
from assay_operator.evaluation.read import claims, pod_creation, progress, reconcile, starting
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


def _explained(namespace: str, problem: StartProblem | None, pod: str) -> StartProblem | None:
    """A pod the scheduler says waits for its claim: why the claim is not bound, read from the claim and its
    Events (the scheduler's words do not name it); the scheduler's problem when the claim names nothing."""
    if problem is None or problem.claim is None:
        return problem
    name = problem.claim
    claim = kube.if_present(lambda: kube.core().read_namespaced_persistent_volume_claim(name, namespace))
    if claim is None:
        return problem
    selector = f"involvedObject.kind={claims.KIND},involvedObject.name={name}"
    listed = kube.read_plain(kube.core().list_namespaced_event, namespace, field_selector=selector)
    return claims.from_claim(kube.plain(claim), listed.get("items") or [], pod) or problem


def pod_seen(pod: Mapping[str, Any], namespace: str) -> None:
    run = _job_of(pod)
    if run is None:
        return
    job, generation = run
    name = str((pod.get("metadata") or {}).get("name") or "?")
    problem = _explained(namespace, starting.from_pod(pod), name)
    report(namespace, job, generation, problem, starting.started(pod))


def _ours(found: Object) -> int | None:
    """The generation of an object the operator made for a run, or None for anyone else's."""
    labels = found.metadata.labels
    generation = labels.get(LABEL_GENERATION)
    if labels.get(LABEL_MANAGED_BY) != MANAGED_BY or generation is None or not generation.isdigit():
        return None
    return int(generation)


def _claim_event_seen(event: Mapping[str, Any], namespace: str) -> None:
    """The claim of a run cannot be provisioned: the run's answer Job is what cannot start (its pods mount
    the claim first). Before that Job exists there is nothing to report on; the controller repeats the Event
    at every resync (15 s by default)."""
    name = str((event.get("involvedObject") or {}).get("name") or "")
    found = kube.if_present(lambda: kube.core().read_namespaced_persistent_volume_claim(name, namespace))
    if found is None:
        return
    claim = kube.plain(found)
    generation = _ours(Object.of(claim))
    owner = Object.of(claim).metadata.owner(KIND)
    problem = claims.from_event(event, claim)
    if generation is None or owner is None or problem is None:
        return
    if (claim.get("status") or {}).get("phase") == "Bound":
        return  # provisioned after all (the Event is an old one)
    run = _current_run_of(namespace, owner.name, generation)
    if run is not None:
        report(namespace, run, generation, problem, started=False)


def _current_run_of(namespace: str, evaluation: str, generation: int) -> str | None:
    """The answer Job of the Evaluation's current run, when that run is `generation`'s and has no verdict."""
    watched = Watched.read(namespace, evaluation)
    if watched is None or watched.generation != generation or watched.status.answer is None:
        return None
    if conditions.holds(watched.status.conditions, conditions.COMPLETED, generation):
        return None
    return watched.status.answer.job_name


def _job_event_seen(event: Mapping[str, Any], namespace: str) -> None:
    """A Job of a run could not create its pods (admission refused them: a ResourceQuota, PodSecurity)."""
    problem = pod_creation.from_event(event)
    name = str((event.get("involvedObject") or {}).get("name") or "")
    job = None if problem is None else finish.read_job(name, namespace)
    generation = None if job is None else _ours(job)
    if problem is None or job is None or generation is None or job.finished:
        return
    report(namespace, name, generation, problem, started=False)


def event_seen(event: Mapping[str, Any], namespace: str) -> None:
    """A Warning Event the watch let through: on a runner pod, a run's claim or a run's Job."""
    kind = (event.get("involvedObject") or {}).get("kind")
    if kind == claims.KIND:
        _claim_event_seen(event, namespace)
        return
    if kind == pod_creation.KIND:
        _job_event_seen(event, namespace)
        return
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
    report(namespace, job, generation, _explained(namespace, problem, name), started=False)
