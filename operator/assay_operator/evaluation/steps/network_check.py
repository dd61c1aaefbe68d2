"""An Evaluation that asks for an enforced boundary (spec.network.requireEnforced) runs only once the network
probe (build/network_probe.py) found its answer pods' NetworkPolicy enforced: the probe's Job is made after
the policy and before the answer Job, its pod's report read from its termination message, and the
NetworkEnforced condition and the assay_network_policy_enforced{namespace} gauge say what it found. A
connection that got through, a probe that wrote no report, made no pod or did not end within
ASSAY_NETWORK_PROBE_SECONDS, or no policy at all (ASSAY_ANSWER_NETWORK_POLICY off) ends the run Blocked
(NetworkNotEnforced), with no answer Job: fail closed.

While the probe runs the step raises kopf.TemporaryError (a short retry) instead of holding a worker; each
attempt of the run reads the Job's pod again. Evaluations that do not ask run no probe.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import NoReturn, cast

import kopf

from assay_operator import bounded, conditions, events, kube, metrics
from assay_operator.cluster_views import Object, Pod
from assay_operator.conditions import Desired
from assay_operator.evaluation.api import MAX_MESSAGE_LENGTH, EvaluationSpec, EvaluationStatus
from assay_operator.evaluation.build import names
from assay_operator.evaluation.build.network_probe import build_probe_job
from assay_operator.evaluation.read import network_report
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.settings import Settings

REASON = "NetworkNotEnforced"
PROBING = "NetworkProbe"
POLL_SECONDS = 2


def required(spec: EvaluationSpec) -> bool:
    return spec.network is not None and spec.network.require_enforced


def _status(
    current: EvaluationStatus, generation: int, desired: list[Desired], message: str
) -> EvaluationStatus:
    return EvaluationStatus(
        observed_generation=generation,
        message=bounded.text(message, MAX_MESSAGE_LENGTH),
        conditions=conditions.merge(current.conditions, desired, generation),
    )


def _refuse(watched: Watched, generation: int, message: str) -> NoReturn:
    """Blocked at once, no answer Job: the boundary the Evaluation requires is not shown to hold."""
    message = f"the answer pods' network boundary is not enforced: {message}"
    desired = [
        *conditions.finished("Blocked", REASON, message),
        Desired(conditions.NETWORK_ENFORCED, "False", REASON, message),
    ]
    watched.write(
        lambda: _status(watched.status, generation, desired, message).model_copy(
            update={"verdict": "Blocked"}
        )
    )
    kopf.warn(cast(kopf.Body, watched.body), reason=REASON, message=message[:1024])
    metrics.EVALUATIONS.labels("Blocked", REASON).inc()
    raise kopf.PermanentError(message)


def ensure_enforced(
    watched: Watched, generation: int, spec: EvaluationSpec, settings: Settings, has_policy: bool
) -> Desired:
    """The NetworkEnforced=True condition, once the probe found the boundary enforced (the run's status
    carries it); kopf.TemporaryError while the probe runs, kopf.PermanentError (Blocked) when the boundary
    does not hold."""
    namespace = watched.namespace
    if not has_policy:
        _refuse(
            watched,
            generation,
            "the operator makes no NetworkPolicy for answer pods (ASSAY_ANSWER_NETWORK_POLICY)",
        )
    batch = kube.batch()
    name = names.network_probe_name(watched.name, generation)
    job = kube.if_present(lambda: kube.read_plain(batch.read_namespaced_job, name, namespace))
    if job is not None and not watched.owns(Object.of(job)):
        raise kopf.TemporaryError(f"a Job named {name} that is not this Evaluation's is in the way", delay=5)
    if job is None:
        body = build_probe_job(spec, watched.name, generation, settings)
        kopf.adopt(body, owner=cast(kopf.Body, watched.body))
        kube.create(batch.create_namespaced_job, namespace, body)
        message = f"probing whether the answer pods' NetworkPolicy is enforced (Job {name})"
        desired = [
            *conditions.waiting(PROBING, message, stalled=False),
            Desired(conditions.NETWORK_ENFORCED, "Unknown", PROBING, message),
        ]
        watched.write(lambda: _status(watched.status, generation, desired, message))
        raise kopf.TemporaryError(message, delay=POLL_SECONDS)
    listed = kube.read_plain(kube.core().list_namespaced_pod, namespace, label_selector=f"job-name={name}")
    pods = sorted(
        listed.get("items") or [], key=lambda pod: str((pod.get("metadata") or {}).get("creationTimestamp"))
    )
    if not pods:
        found = network_report.no_pod(Object.of(job), settings.network_probe_seconds, datetime.now(UTC))
        if found.enforced is None:
            raise kopf.TemporaryError(found.message, delay=POLL_SECONDS)
        _remove(namespace, name)
        _refuse(watched, generation, found.message)
    pod = pods[-1]
    found = network_report.finding(Pod.of(pod), settings.network_probe_seconds, datetime.now(UTC))
    if found.enforced is None:
        raise kopf.TemporaryError(found.message, delay=POLL_SECONDS)
    _remove(namespace, name)
    metrics.NETWORK_ENFORCED.labels(namespace).set(1 if found.enforced else 0)
    if not found.enforced:
        _refuse(watched, generation, found.message)
    events.normal(watched.body, "NetworkEnforced", found.message)
    return Desired(conditions.NETWORK_ENFORCED, "True", "Enforced", found.message)


def _remove(namespace: str, name: str) -> None:
    """The probe's Job and its pod (without a propagation policy a deleted Job leaves its pods behind)."""
    delete = kube.batch().delete_namespaced_job
    kube.delete_if_present(functools.partial(delete, name, namespace, propagation_policy="Background"))
