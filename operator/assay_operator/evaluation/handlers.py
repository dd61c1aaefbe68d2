"""kopf handlers for Evaluations: thin glue between the cluster and the pure builders and reconciler.

Run with `kopf run -m assay_operator.evaluation.handlers --liveness=http://0.0.0.0:8080/healthz` (or
`assay-operator`, which adds the namespaces from the settings). Two flows:

- `ensure_run` (create / resume / spec update): snapshot the brain, render the RunConfig, create the
  generation's Job — each idempotently (409 means it is already there: adopt it) — delete superseded Jobs,
  and mark the Evaluation Reconciling. Status writes never re-trigger it (it reacts to `spec` only).
- `job_changed` (a watch on the runner Jobs): when a Job finishes, read its pod's termination message,
  validate it as a RunSummary and write the verdict, or Blocked with the precise reason.

No finalizers: there are no delete handlers, timers or daemons on Evaluations, so deleting one never waits
for the operator; children go through ownerReferences and the garbage collector.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any, NoReturn, cast

import kopf
from kubernetes import config
from kubernetes.client.exceptions import ApiException
from pydantic import ValidationError

from assay_operator import conditions, kube, metrics
from assay_operator.evaluation import api, builders, reconcile
from assay_operator.evaluation.api import GROUP, KIND, PLURAL, VERSION, EvaluationSpec
from assay_operator.settings import Settings, from_environment

log = logging.getLogger("assay.operator")
STALLED_AFTER_RETRIES = 5
# An unexpected error (the apiserver briefly unavailable, a conflict) is retried after this long, not after
# kopf's default minute: a user watching `kubectl get` should not wait a minute for a transient blip.
RETRY_SECONDS = 10


@functools.cache
def settings() -> Settings:
    return from_environment()


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    operator = globals()["settings"]()  # validate the environment first: a bad setting stops the start
    settings.persistence.progress_storage = kopf.AnnotationsProgressStorage(prefix="assay.dev")
    settings.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage(
        prefix="assay.dev", key="last-handled-configuration"
    )
    settings.persistence.finalizer = "assay.dev/kopf-finalizer"
    settings.peering.standalone = True  # one replica (Recreate): no peering objects, no extra RBAC
    # The namespaces are explicit (--namespace) and the CRD is installed before the operator: no cluster-wide
    # list/watch of namespaces and CRDs, which a namespaced Role forbids (kopf would retry them for ~40 s at
    # start, logging errors, before serving anything).
    settings.scanning.disabled = True
    # kopf turns its own log lines of this level and above into Events: only problems. Our own Events go
    # through _normal_event/kopf.warn, which this level does not filter (kopf.info would be dropped by it).
    settings.posting.level = logging.WARNING
    settings.watching.server_timeout = 300
    settings.watching.client_timeout = 330
    try:
        config.load_incluster_config()  # type: ignore[no-untyped-call]
    except config.ConfigException:
        config.load_kube_config()  # type: ignore[no-untyped-call]
    metrics.serve(operator.metrics_port)


def _patch_status(namespace: str, name: str, status: dict[str, Any]) -> None:
    try:
        kube.custom().patch_namespaced_custom_object_status(
            GROUP, VERSION, namespace, PLURAL, name, {"status": status}
        )
    except ApiException as exc:
        if exc.status != 404:
            raise
        # Deleted while we reconciled: there is no one left to report to, and the garbage collector takes
        # the children through their ownerReferences.
        log.info("Evaluation %s/%s is gone; status not written", namespace, name)


def _get_config_map(namespace: str, name: str) -> Any | None:
    try:
        return kube.core().read_namespaced_config_map(name, namespace)
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise


def _wait_for(
    kind: str,
    name: str,
    namespace: str,
    retry: int,
    body: dict[str, Any],
    generation: int,
    status: dict[str, Any],
) -> NoReturn:
    reason = f"{kind}NotFound"
    message = (
        f"ConfigMap {name!r} ({kind.lower()}) not found in namespace {namespace}; retrying until it exists"
    )
    stalled = retry >= STALLED_AFTER_RETRIES
    _patch_status(
        namespace,
        body["metadata"]["name"],
        {
            "observedGeneration": generation,
            "message": message,
            "conditions": conditions.merge(
                status.get("conditions"), conditions.waiting(reason, message, stalled), generation
            ),
        },
    )
    if retry == 0:
        kopf.warn(cast(kopf.Body, body), reason=reason, message=message)
    raise kopf.TemporaryError(message, delay=min(5 * 2**retry, 120))


def _invalid(
    body: dict[str, Any], namespace: str, generation: int, status: dict[str, Any], message: str
) -> NoReturn:
    desired = conditions.finished("Blocked", "InvalidSpec", message)
    _patch_status(
        namespace,
        body["metadata"]["name"],
        {
            "observedGeneration": generation,
            "verdict": "Blocked",
            "message": message,
            "conditions": conditions.merge(status.get("conditions"), desired, generation),
        },
    )
    kopf.warn(cast(kopf.Body, body), reason="InvalidSpec", message=message)
    metrics.EVALUATIONS.labels("Blocked", "InvalidSpec").inc()
    raise kopf.PermanentError(message)


def _already_handled(status: dict[str, Any], generation: int, job: str) -> bool:
    return status.get("observedGeneration") == generation and status.get("jobName") == job


@kopf.on.create(GROUP, VERSION, PLURAL, backoff=RETRY_SECONDS)
@kopf.on.resume(GROUP, VERSION, PLURAL, backoff=RETRY_SECONDS)
@kopf.on.update(GROUP, VERSION, PLURAL, field="spec", backoff=RETRY_SECONDS)
def ensure_run(
    body: kopf.Body,
    spec: kopf.Spec,
    meta: kopf.Meta,
    status: kopf.Status,
    namespace: str | None,
    name: str,
    retry: int,
    **_: Any,
) -> None:
    assert namespace is not None  # Evaluations are namespaced
    started = time.monotonic()
    generation = int(meta["generation"])
    current = dict(status)
    job = builders.job_name(name, generation)
    if _already_handled(current, generation, job):
        return  # resumed after a restart: the Job exists; its watch brings the verdict
    try:
        evaluation = EvaluationSpec.model_validate(dict(spec))
    except ValidationError as exc:
        _invalid(dict(body), namespace, generation, current, f"invalid spec: {api.problems(exc)}")
    operator = settings()
    brain = _get_config_map(namespace, evaluation.brain.config_map.name)
    if brain is None:
        _wait_for(
            "Brain", evaluation.brain.config_map.name, namespace, retry, dict(body), generation, current
        )
    for ref in (evaluation.suite.config_map, evaluation.suite.kb_config_map):
        if ref is not None and _get_config_map(namespace, ref.name) is None:
            _wait_for("Suite", ref.name, namespace, retry, dict(body), generation, current)

    data, binary = dict(brain.data or {}), dict(brain.binary_data or {})
    digest = builders.brain_digest(data, binary)
    snapshot = builders.build_brain_snapshot(name, generation, data, binary, digest)
    run_config = builders.build_run_config_map(evaluation, name, namespace, generation, operator)
    job_body = builders.build_job(
        evaluation, name, namespace, generation, snapshot["metadata"]["name"], operator
    )
    for child in (snapshot, run_config, job_body):
        kopf.adopt(child, owner=body)
    core, batch = kube.core(), kube.batch()
    for create, read, child in (
        (core.create_namespaced_config_map, core.read_namespaced_config_map, snapshot),
        (core.create_namespaced_config_map, core.read_namespaced_config_map, run_config),
    ):
        if not kube.create(create, namespace, child):
            _refuse_stale(read, namespace, child, body)
    created = kube.create(batch.create_namespaced_job, namespace, job_body)
    if not created:
        _refuse_stale(batch.read_namespaced_job, namespace, job_body, body)
    existing = kube.plain(batch.read_namespaced_job(job, namespace)) if not created else None
    if existing is not None and not kube.owned_by(existing, body["metadata"]["uid"]):
        _invalid(
            dict(body),
            namespace,
            generation,
            current,
            f"a Job named {job} already exists and is not owned by this Evaluation",
        )
    _delete_superseded(namespace, body, generation)
    if created:
        metrics.JOBS_CREATED.inc()
        _normal_event(
            body,
            reason="JobCreated",
            message=f"created Job {job} for generation {generation} (brain {digest[:19]})",
        )
    message = f"running Job {job} for generation {generation}"
    new_status: dict[str, Any] = {
        "observedGeneration": generation,
        "jobName": job,
        "startTime": conditions.now(),
        "completionTime": None,
        "verdict": None,
        "score": None,
        "judges": None,
        "judgesPassing": None,
        "rules": None,
        "tickets": None,
        "repetitions": None,
        "usage": None,
        "mlflow": None,
        "message": message,
        "inputs": {"brainDigest": digest},
        "conditions": conditions.merge(current.get("conditions"), conditions.running(message), generation),
    }
    _patch_status(namespace, name, new_status)
    # The Job may have finished before that write (adopted after a restart, or a very fast runner): its watch
    # event may have come and gone, or written a verdict the write above just replaced. Look once more.
    latest = _read_job(job, namespace)
    if latest is not None:
        _finish_if_done(latest, namespace, name, generation)
    metrics.RECONCILE_SECONDS.observe(time.monotonic() - started)


def _refuse_stale(read: Any, namespace: str, child: dict[str, Any], owner: kopf.Body) -> None:
    """A child name was taken (409). When the holder belongs to a deleted Evaluation of the same name (a
    delete and re-create, common under GitOps) it is garbage the collector has not removed yet: adopting it
    would mount the old run's config, and its Job's verdict would land on this Evaluation. Wait for it."""
    kind, child_name = child["kind"], child["metadata"]["name"]
    try:
        existing = kube.plain(read(child_name, namespace))
    except ApiException as exc:
        if exc.status != 404:
            raise
        existing = None  # collected between our create and this read: create again
    refs = (existing or {}).get("metadata", {}).get("ownerReferences") or []
    stale = existing is None or any(
        ref.get("kind") == KIND
        and ref.get("name") == owner["metadata"]["name"]
        and ref.get("uid") != owner["metadata"]["uid"]
        for ref in refs
    )
    if stale:
        raise kopf.TemporaryError(
            f"{kind} {child_name} of a deleted Evaluation named {owner['metadata']['name']} is still there; "
            "waiting for the garbage collector to remove it",
            delay=2,
        )


def _normal_event(body: kopf.Body, *, reason: str, message: str) -> None:
    """A Normal Event. Not kopf.info: that one is silently dropped below settings.posting.level."""
    kopf.event(body, type="Normal", reason=reason, message=message)


def _delete_superseded(namespace: str, owner: kopf.Body, generation: int) -> None:
    evaluation = owner["metadata"]["name"]
    selector = f"{builders.LABEL_EVALUATION}={builders.labels(evaluation)[builders.LABEL_EVALUATION]}"
    for item in kube.batch().list_namespaced_job(namespace, label_selector=selector).items:
        job = kube.plain(item)
        labels = job["metadata"].get("labels") or {}
        # Only this Evaluation's own Jobs: a label value is not proof of ownership.
        if kube.owned_by(job, owner["metadata"]["uid"]) and labels.get(builders.LABEL_GENERATION) != str(
            generation
        ):
            try:
                # Background: without a propagation policy a deleted Job leaves its pods behind.
                kube.batch().delete_namespaced_job(
                    job["metadata"]["name"], namespace, propagation_policy="Background"
                )
            except ApiException as exc:
                if exc.status != 404:
                    raise


def _read_job(name: str, namespace: str) -> dict[str, Any] | None:
    try:
        return kube.plain(kube.batch().read_namespaced_job(name, namespace))
    except ApiException as exc:
        if exc.status == 404:
            return None  # deleted meanwhile (superseded, or by the TTL controller)
        raise


def _pods_of(namespace: str, job: str) -> list[dict[str, Any]]:
    pods = kube.core().list_namespaced_pod(namespace, label_selector=f"job-name={job}").items
    return [kube.plain(p) for p in pods]


def _finish_if_done(job: dict[str, Any], namespace: str, evaluation: str, generation: int) -> None:
    job_name = job["metadata"]["name"]
    if reconcile.classify(job, []).state == "running":
        return  # the Job's conditions say it all: no need to list its pods
    outcome = reconcile.classify(job, _pods_of(namespace, job_name))
    try:
        current = cast(
            dict[str, Any],
            kube.custom().get_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, evaluation),
        )
    except ApiException as exc:
        if exc.status == 404:
            return
        raise
    if int(current["metadata"]["generation"]) != generation:
        return  # a newer spec superseded this Job
    if not kube.owned_by(job, current["metadata"]["uid"]):
        return  # the Job of a deleted Evaluation that had this name: not this one's verdict
    status = current.get("status") or {}
    completed = conditions.find(status.get("conditions"), conditions.COMPLETED)
    if (
        completed
        and completed.get("status") == "True"
        and completed.get("observedGeneration") == generation
        and status.get("jobName") == job_name
    ):
        return  # the verdict is already written
    new_status = reconcile.finished_status(outcome, status, generation, conditions.now())
    new_status["jobName"] = job_name
    _patch_status(namespace, evaluation, new_status)
    verdict = new_status["verdict"]
    reason = outcome.reason if outcome.summary is None else ("Passed" if verdict == "Pass" else "GateBlocked")
    metrics.EVALUATIONS.labels(verdict, reason).inc()
    started = (job.get("status") or {}).get("startTime")
    if started:
        from datetime import datetime

        elapsed = time.time() - datetime.fromisoformat(str(started).replace("Z", "+00:00")).timestamp()
        metrics.EVALUATION_SECONDS.observe(max(0.0, elapsed))
    event = cast(
        kopf.Body, {"kind": KIND, "apiVersion": f"{GROUP}/{VERSION}", "metadata": current["metadata"]}
    )
    if verdict == "Pass":
        _normal_event(event, reason="Completed", message=new_status["message"])
    else:
        kopf.warn(event, reason="Blocked", message=new_status["message"])


_running: set[str] = set()


@kopf.on.event(
    "batch",
    "v1",
    "jobs",
    labels={builders.LABEL_MANAGED_BY: "assay-operator", builders.LABEL_EVALUATION: kopf.PRESENT},
)
def job_changed(event: kopf.RawEvent, body: kopf.Body, namespace: str | None, **_: Any) -> None:
    assert namespace is not None
    uid = body["metadata"].get("uid", "")
    if event["type"] == "DELETED":
        _running.discard(uid)
        metrics.JOBS_RUNNING.set(len(_running))
        return
    owner = next((r for r in body["metadata"].get("ownerReferences") or [] if r.get("kind") == KIND), None)
    generation = (body["metadata"].get("labels") or {}).get(builders.LABEL_GENERATION)
    if owner is None or generation is None:
        return
    finished = any(
        c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
        for c in (body.get("status") or {}).get("conditions") or []
    )
    (_running.discard if finished else _running.add)(uid)
    metrics.JOBS_RUNNING.set(len(_running))
    if finished:
        try:
            _finish_if_done(dict(body), namespace, owner["name"], int(generation))
        except ApiException:
            metrics.ERRORS.labels("api").inc()
            raise
