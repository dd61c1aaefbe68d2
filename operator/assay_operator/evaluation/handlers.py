"""kopf handlers for Evaluations: which cluster changes start which step. The steps are their own modules.

- `ensure_run` (create / resume / spec update / rerun annotation): start the generation's run (run.py).
  Status writes never re-trigger it (it reacts to `spec` and the rerun annotation only).
- `job_changed` (a watch on the runner Jobs): a queued Job's admission (admission.py); the answer Job's
  shards as they finish, then the judge Job once it is over (judging.py); when the judge Job finishes, the
  verdict (finish.py).
- `config_map_seen` (a watch on ConfigMaps): a ConfigMap an Evaluation waits for wakes it (wakeups.py).
- `pod_seen`, `start_event_seen` (watches on the runner pods and Warning Events): a pod that cannot start
  (or a Job that cannot create its pods, a claim that cannot be provisioned) is reported, then the run
  stopped (pod_start.py).
- `override_requested`: a person's verdict override is recorded (override.py).
- `foreign_override_seen`: an override in the status the operator did not seal is undone (override.py).
- `foreign_verdict_seen`: a verdict (score, Ready, ...) the operator did not seal is undone (verdict.py).
- `evaluation_seen`: the cluster-state gauges.

No finalizers: there are no delete handlers, timers or daemons on Evaluations, so deleting one never waits
for the operator; children go through ownerReferences and the garbage collector.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

import kopf
from kubernetes.client.exceptions import ApiException

from assay_operator import approvals, metrics
from assay_operator.cluster_views import Job
from assay_operator.evaluation.api import GROUP, KIND, PLURAL, VERSION
from assay_operator.evaluation.build import names
from assay_operator.evaluation.read import claims, pod_creation, starting, state
from assay_operator.evaluation.steps import admission, finish, judging, override, pod_start, run, verdict
from assay_operator.evaluation.steps.wakeups import WAKEUPS
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.retries import Retries
from assay_operator.startup import RETRY_SECONDS

RETRIES = Retries()
log = logging.getLogger("assay.operator")


@kopf.on.create(GROUP, VERSION, PLURAL, backoff=RETRY_SECONDS)
@kopf.on.resume(GROUP, VERSION, PLURAL, backoff=RETRY_SECONDS)
@kopf.on.update(GROUP, VERSION, PLURAL, field="spec", backoff=RETRY_SECONDS)
@kopf.on.update(
    GROUP,
    VERSION,
    PLURAL,
    field=("metadata", "annotations", names.RERUN_ANNOTATION),
    backoff=RETRY_SECONDS,
)
def ensure_run(body: kopf.Body, retry: int, **_: Any) -> None:
    run.start(Watched.of(body), retry)  # the one typed view of this event, handed to every step


_running: set[str] = set()


@kopf.on.event(
    "batch",
    "v1",
    "jobs",
    labels={names.LABEL_MANAGED_BY: names.MANAGED_BY, names.LABEL_EVALUATION: kopf.PRESENT},
)
def job_changed(event: kopf.RawEvent, body: kopf.Body, namespace: str | None, **_: Any) -> None:
    assert namespace is not None
    job = Job.of(body)  # the one typed view of this event, handed to every step
    uid = job.metadata.uid
    if event["type"] == "DELETED":
        _running.discard(uid)
        metrics.JOBS_RUNNING.set(len(_running))
        return
    owner = job.metadata.owner(KIND)
    generation = job.metadata.labels.get(names.LABEL_GENERATION)
    if owner is None or generation is None:
        return
    finished = job.finished
    (_running.discard if finished else _running.add)(uid)
    metrics.JOBS_RUNNING.set(len(_running))
    evaluation = owner.name
    if not finished:
        _retried(
            ("Admission", namespace, job.metadata.name),
            lambda: admission.job_seen(job, namespace, evaluation, int(generation)),
        )
    if job.metadata.labels.get(names.LABEL_COMPONENT) == names.ANSWER:
        _retried(
            ("Answers", namespace, job.metadata.name),
            lambda: judging.answer_job_seen(job, namespace, evaluation, int(generation)),
            lambda last: finish.cannot_finish(namespace, evaluation, int(generation), last),
        )
        return
    if not finished:
        return
    _retried(
        ("Job", namespace, job.metadata.name),
        lambda: finish.finish_if_done(job, namespace, evaluation, int(generation)),
        lambda last: finish.cannot_finish(namespace, evaluation, int(generation), last),
    )


def _retried(
    key: tuple[str, str, str],
    step: Callable[[], None],
    give_up: Callable[[BaseException], None] | None = None,
) -> None:
    """Run a step a watch event asked for; one the apiserver fails is run again later (kopf would drop it:
    no later event may come), then reported: `give_up`, or an error in the log and assay_errors_total."""
    try:
        step()
    except ApiException as error:
        metrics.ERRORS.labels("api").inc()
        RETRIES.failed(key, step, error, give_up or (lambda last: log.error("%s gave up: %s", key, last)))


def _awaited(name: str, namespace: str | None, **_: Any) -> bool:
    return namespace is not None and bool(WAKEUPS.waiting_for(namespace, name))


def _pod_worth_a_look(body: kopf.Body, namespace: str | None, **_: Any) -> bool:
    return namespace is not None and pod_start.worth_a_look(body, namespace)


def _event_about_a_start(body: kopf.Body, **_: Any) -> bool:
    return starting.concerns_a_pod(body) or claims.concerns_a_claim(body) or pod_creation.concerns_a_job(body)


# The apiserver filters these watches first (startup.select_on_the_server); the `when` filters are cheap and
# let through only what can matter, so the rest costs no handler call (nor its log line).
@kopf.on.event("", "v1", "configmaps", when=_awaited)
def config_map_seen(event: kopf.RawEvent, namespace: str | None, name: str, **_: Any) -> None:
    """Users' ConfigMaps (the operator's own snapshots are not sent: startup.select_on_the_server): one an
    Evaluation waits for wakes it now."""
    if namespace is None or event["type"] == "DELETED":
        return
    for evaluation in WAKEUPS.appeared(namespace, name):
        _retried(("Wake", namespace, evaluation), functools.partial(run.wake, namespace, evaluation))


@kopf.on.event(
    "",
    "v1",
    "pods",
    labels={names.LABEL_MANAGED_BY: names.MANAGED_BY, names.LABEL_EVALUATION: kopf.PRESENT},
    when=_pod_worth_a_look,
)
def pod_seen(event: kopf.RawEvent, body: kopf.Body, namespace: str | None, **_: Any) -> None:
    if namespace is None or event["type"] == "DELETED":
        return
    pod = dict(body)
    _retried(("Pod", namespace, pod["metadata"]["name"]), lambda: pod_start.pod_seen(pod, namespace))


@kopf.on.event("", "v1", "events", when=_event_about_a_start)
def start_event_seen(event: kopf.RawEvent, body: kopf.Body, namespace: str | None, **_: Any) -> None:
    """Warning Events that say why a run cannot start, each the only report of it: the kubelet's FailedMount
    (a missing Secret volume), the PersistentVolume controller's ProvisioningFailed (a missing StorageClass),
    the Job controller's FailedCreate (a ResourceQuota that refuses the pods)."""
    if namespace is None or event["type"] == "DELETED":
        return
    event_body = dict(body)
    _retried(
        ("Event", namespace, event_body["metadata"]["name"]),
        lambda: pod_start.event_seen(event_body, namespace),
    )


@kopf.on.event(GROUP, VERSION, PLURAL, annotations={approvals.OVERRIDE_VERDICT: kopf.PRESENT})
def override_requested(namespace: str | None, name: str, **_: Any) -> None:
    """A person overrides the verdict (admitted only with a checked identity): record it, spend it."""
    assert namespace is not None
    _retried(("Override", namespace, name), functools.partial(override.take_latest, namespace, name))


def _foreign_override(body: kopf.Body, **_: Any) -> bool:
    return bool((body.get("status") or {}).get("override")) and override.foreign(Watched.of(body))


@kopf.on.event(GROUP, VERSION, PLURAL, when=_foreign_override)
def foreign_override_seen(namespace: str | None, name: str, **_: Any) -> None:
    """status.override was written around admission: undo it (on the object as it is now)."""
    assert namespace is not None
    _retried(
        ("ForeignOverride", namespace, name), functools.partial(override.undo_foreign_latest, namespace, name)
    )


def _foreign_verdict(body: kopf.Body, **_: Any) -> bool:
    watched = Watched.of(body)
    return verdict.foreign(watched) and not override.foreign(watched)  # an override's undo comes first


@kopf.on.event(GROUP, VERSION, PLURAL, when=_foreign_verdict)
def foreign_verdict_seen(namespace: str | None, name: str, **_: Any) -> None:
    """The decision in the status was written around admission, with no override: undo it (on the object
    as it is now)."""
    assert namespace is not None
    _retried(
        ("ForeignVerdict", namespace, name), functools.partial(verdict.undo_foreign_latest, namespace, name)
    )


@kopf.on.event(GROUP, VERSION, PLURAL)
def evaluation_seen(event: kopf.RawEvent, body: kopf.Body, **_: Any) -> None:
    """Keep the cluster-state gauges current: every watch event carries the Evaluation's whole object."""
    uid = body["metadata"].get("uid", "")
    if event["type"] == "DELETED":
        metrics.CLUSTER.record(uid, None)
    else:
        metrics.CLUSTER.record(uid, state.evaluation_state(state.SeenEvaluation.of(body)))
