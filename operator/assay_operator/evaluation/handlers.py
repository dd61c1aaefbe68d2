"""kopf handlers for Evaluations: thin glue between the cluster and the pure builders and reconciler.

Run by `assay-operator` (assay_operator.startup configures kopf first). Two flows:

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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn, cast

import kopf
from kubernetes.client.exceptions import ApiException
from pydantic import ValidationError

from assay_operator import conditions, kube, metrics
from assay_operator.evaluation import api, names, reconcile, state
from assay_operator.evaluation.api import GROUP, KIND, PLURAL, VERSION, EvaluationSpec, EvaluationStatus
from assay_operator.evaluation.job import build_job
from assay_operator.evaluation.runconfig import build_run_config_map
from assay_operator.evaluation.snapshots import (
    Snapshots,
    brain_digest,
    build_brain_snapshot,
    build_suite_snapshot,
    text_digest,
)
from assay_operator.evaluation.suite_split import SuiteSplitError, split_suite, threshold_override_problems
from assay_operator.objects import ConfigMap, Job
from assay_operator.settings import PRESET_KINDS, Settings
from assay_operator.startup import RETRY_SECONDS, settings

log = logging.getLogger("assay.operator")


def _patch_status(namespace: str, name: str, status: EvaluationStatus) -> None:
    if not kube.patch_status(PLURAL, namespace, name, status.to_patch()):
        log.info("Evaluation %s/%s is gone; status not written", namespace, name)


def _config_map(namespace: str, name: str) -> Any | None:
    return kube.if_present(lambda: kube.core().read_namespaced_config_map(name, namespace))


@dataclass(frozen=True)
class Request:
    """One reconcile of one Evaluation's generation: who asks, and what its status said."""

    body: kopf.Body
    namespace: str
    name: str
    generation: int
    retry: int
    current: EvaluationStatus
    rerun: str | None

    @property
    def job(self) -> str:
        return names.job_name(self.name, self.generation, self.rerun)


def _invalid(request: Request, message: str) -> NoReturn:
    _patch_status(
        request.namespace,
        request.name,
        reconcile.invalid_status(request.current, request.generation, message),
    )
    kopf.warn(request.body, reason="InvalidSpec", message=message)
    metrics.EVALUATIONS.labels("Blocked", "InvalidSpec").inc()
    raise kopf.PermanentError(message)


def _wait_for(request: Request, kind: str, config_map: str) -> NoReturn:
    reason = f"{kind}NotFound"
    message = (
        f"ConfigMap {config_map!r} ({kind.lower()}) not found in namespace {request.namespace}; "
        "retrying until it exists"
    )
    stalled = request.retry >= settings().stall_after_retries
    status = reconcile.waiting_status(request.current, request.generation, reason, message, stalled)
    _patch_status(request.namespace, request.name, status)
    if request.retry == 0:
        kopf.warn(request.body, reason=reason, message=message)
    raise kopf.TemporaryError(message, delay=min(5 * 2**request.retry, 120))


def _stall_without_agent(request: Request, kind: str, operator: Settings) -> None:
    """The spec names a CLI preset the runner image does not have: no Job (it could only crash), a Stalled
    condition that says why, and the handler is done (no retry: nothing changes until the spec or the
    operator's settings do, and either reconciles again)."""
    have = ", ".join(operator.runner_agent_presets) or "none"
    message = (
        f"agent preset {kind!r} is not in the runner image {operator.runner_image} (its presets: {have}); "
        "use an image built with AGENT_CLIS and list its presets in the chart's runner.agentPresets "
        "(ASSAY_RUNNER_AGENT_PRESETS)"
    )
    status = reconcile.waiting_status(request.current, request.generation, "AgentNotInImage", message, True)
    _patch_status(request.namespace, request.name, status)
    kopf.warn(request.body, reason="AgentNotInImage", message=message)


def _validated_spec(request: Request, spec: kopf.Spec) -> EvaluationSpec:
    try:
        return EvaluationSpec.model_validate(dict(spec))
    except ValidationError as exc:
        _invalid(request, f"invalid spec: {api.problems(exc)}")


def _brain_files(request: Request, evaluation: EvaluationSpec) -> tuple[dict[str, str], dict[str, str]]:
    """The brain's files (text, binary); waits while the brain or a suite ConfigMap does not exist."""
    brain = _config_map(request.namespace, evaluation.brain.config_map.name)
    if brain is None:
        _wait_for(request, "Brain", evaluation.brain.config_map.name)
    for ref in (evaluation.suite.config_map, evaluation.suite.kb_config_map):
        if ref is not None and _config_map(request.namespace, ref.name) is None:
            _wait_for(request, "Suite", ref.name)
    return dict(brain.data or {}), dict(brain.binary_data or {})


def _suite_snapshots(request: Request, evaluation: EvaluationSpec) -> list[tuple[str, ConfigMap, str]]:
    """A ConfigMap suite split at its trust boundary into two immutable snapshots: (part, body, digest) for
    the public part (`suite`) and the answer keys (`key`). A bundled suite is split in the pod instead."""
    ref = evaluation.suite.config_map
    if ref is None:
        return []
    found = _config_map(request.namespace, ref.name)
    if found is None:
        _wait_for(request, "Suite", ref.name)
    data = dict(found.data or {})
    try:
        public, key = split_suite(data)
        overrides = threshold_override_problems(
            data, (evaluation.gate.thresholds or {}) if evaluation.gate else {}
        )
    except SuiteSplitError as exc:
        _invalid(request, f"suite ConfigMap {ref.name!r} cannot be split into questions and keys: {exc}")
    if overrides:
        _invalid(request, f"suite ConfigMap {ref.name!r}: " + "; ".join(overrides))
    parts = []
    for part, data in (("suite", public), ("key", key)):
        digest = text_digest(data)
        parts.append((part, build_suite_snapshot(request.name, part, data, digest), digest))
    return parts


def _create_children(request: Request, config_map_objects: list[ConfigMap], job: Job) -> bool:
    """Create the snapshots, the RunConfig and the Job, each adopted and idempotent; True when the Job was
    created now (False: it was there already, from an earlier attempt of this reconcile)."""
    core, batch = kube.core(), kube.batch()
    config_maps = [child.body() for child in config_map_objects]  # serialised once, here
    job_body = job.body()
    for child in [*config_maps, job_body]:
        kopf.adopt(child, owner=request.body)
    for child in config_maps:
        if not kube.create(core.create_namespaced_config_map, request.namespace, child):
            _refuse_stale(core.read_namespaced_config_map, request.namespace, child, request.body)
    if kube.create(batch.create_namespaced_job, request.namespace, job_body):
        return True
    _refuse_stale(batch.read_namespaced_job, request.namespace, job_body, request.body)
    existing = kube.plain(batch.read_namespaced_job(request.job, request.namespace))
    if not kube.owned_by(existing, request.body["metadata"]["uid"]):
        _invalid(request, f"a Job named {request.job} already exists and is not owned by this Evaluation")
    return False


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
    rerun = (meta.get("annotations") or {}).get(names.RERUN_ANNOTATION) or None
    current = reconcile.parse_status(status)
    request = Request(body, namespace, name, int(meta["generation"]), retry, current, rerun)
    if reconcile.run_started(request.current, request.generation, request.job, rerun):
        return  # resumed after a restart: the Job exists; its watch brings the verdict
    evaluation = _validated_spec(request, spec)
    operator = settings()
    kind = evaluation.agent.kind
    if kind in PRESET_KINDS and kind not in operator.runner_agent_presets:
        _stall_without_agent(request, kind, operator)
        return
    data, binary = _brain_files(request, evaluation)
    digest = brain_digest(data, binary)
    snapshot = build_brain_snapshot(name, data, binary, digest)
    suite_parts = _suite_snapshots(request, evaluation)
    parts = {part: (child.metadata.name, part_digest) for part, child, part_digest in suite_parts}
    snapshots = Snapshots(
        brain=snapshot.metadata.name,
        brain_digest=digest,
        suite=parts["suite"][0] if parts else None,
        suite_digest=parts["suite"][1] if parts else None,
        key=parts["key"][0] if parts else None,
        key_digest=parts["key"][1] if parts else None,
    )
    config_maps = [
        snapshot,
        *(child for _, child, _ in suite_parts),
        build_run_config_map(evaluation, name, namespace, request.generation, operator),
    ]
    job = build_job(evaluation, name, namespace, request.generation, snapshots, operator, rerun)
    created = _create_children(request, config_maps, job)
    _delete_superseded(namespace, body, request.job)
    if created:
        metrics.JOBS_CREATED.inc()
        _normal_event(
            body,
            reason="JobCreated",
            message=f"created Job {request.job} for generation {request.generation} (brain {digest[:19]})"
            + (f", rerun {rerun[:64]!r}" if rerun else ""),
        )
    running = reconcile.running_status(
        request.current,
        request.generation,
        request.job,
        digest,
        conditions.now(),
        (snapshots.suite_digest, snapshots.key_digest),
        rerun,
    )
    _patch_status(namespace, name, running)
    # The Job may have finished before that write (adopted after a restart, or a very fast runner): its watch
    # event may have come and gone, or written a verdict the write above just replaced. Look once more.
    latest = _read_job(request.job, namespace)
    if latest is not None:
        _finish_if_done(latest, namespace, name, request.generation)
    metrics.RECONCILE_SECONDS.observe(time.monotonic() - started)


def _refuse_stale(read: Any, namespace: str, child: dict[str, Any], owner: kopf.Body) -> None:
    """A child name was taken (409). When the holder belongs to a deleted Evaluation of the same name (a
    delete and re-create, common under GitOps) it is garbage the collector has not removed yet: adopting it
    would mount the old run's config, and its Job's verdict would land on this Evaluation. Wait for it."""
    kind, child_name = child["kind"], child["metadata"]["name"]
    found = kube.if_present(lambda: read(child_name, namespace))
    existing = None if found is None else kube.plain(found)  # None: collected meanwhile, create again
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


def _delete_superseded(namespace: str, owner: kopf.Body, keep: str) -> None:
    """Delete this Evaluation's other Jobs: earlier generations, and earlier runs of this one (a rerun)."""
    evaluation = owner["metadata"]["name"]
    selector = f"{names.LABEL_EVALUATION}={names.evaluation_label(evaluation)}"
    for item in kube.batch().list_namespaced_job(namespace, label_selector=selector).items:
        job = kube.plain(item)
        # Only this Evaluation's own Jobs: a label value is not proof of ownership.
        if kube.owned_by(job, owner["metadata"]["uid"]) and job["metadata"]["name"] != keep:
            # Background: without a propagation policy a deleted Job leaves its pods behind.
            delete = kube.batch().delete_namespaced_job
            kube.delete_if_present(
                functools.partial(delete, job["metadata"]["name"], namespace, propagation_policy="Background")
            )


def _read_job(name: str, namespace: str) -> dict[str, Any] | None:
    job = kube.if_present(lambda: kube.batch().read_namespaced_job(name, namespace))
    return None if job is None else kube.plain(job)


def _pods_of(namespace: str, job: str) -> list[dict[str, Any]]:
    pods = kube.core().list_namespaced_pod(namespace, label_selector=f"job-name={job}").items
    return [kube.plain(p) for p in pods]


def _finish_if_done(job: dict[str, Any], namespace: str, evaluation: str, generation: int) -> None:
    job_name = job["metadata"]["name"]
    if reconcile.classify(job, []).state == "running":
        return  # the Job's conditions say it all: no need to list its pods
    outcome = reconcile.classify(job, _pods_of(namespace, job_name))
    current = kube.get_custom(PLURAL, namespace, evaluation)
    if current is None:
        return
    if int(current["metadata"]["generation"]) != generation:
        return  # a newer spec superseded this Job
    if not kube.owned_by(job, current["metadata"]["uid"]):
        return  # the Job of a deleted Evaluation that had this name: not this one's verdict
    status = reconcile.parse_status(current.get("status"))
    if reconcile.verdict_written(status, generation, job_name):
        return
    if reconcile.superseded_run(status, generation, job_name):
        return  # an earlier run of this generation; a rerun replaced it
    finished = reconcile.finished_status(outcome, status, generation, conditions.now(), job_name)
    _patch_status(namespace, evaluation, finished)
    verdict = finished.verdict or "Blocked"
    reason = outcome.reason if outcome.summary is None else ("Passed" if verdict == "Pass" else "GateBlocked")
    metrics.EVALUATIONS.labels(verdict, reason).inc()
    started = (job.get("status") or {}).get("startTime")
    if started:
        metrics.EVALUATION_SECONDS.observe(reconcile.seconds_between(str(started), datetime.now(UTC)))
    event = cast(
        kopf.Body, {"kind": KIND, "apiVersion": f"{GROUP}/{VERSION}", "metadata": current["metadata"]}
    )
    message = finished.message or ""
    if verdict == "Pass":
        _normal_event(event, reason="Completed", message=message)
    else:
        kopf.warn(event, reason="Blocked", message=message)


_running: set[str] = set()


@kopf.on.event(
    "batch",
    "v1",
    "jobs",
    labels={names.LABEL_MANAGED_BY: names.MANAGED_BY, names.LABEL_EVALUATION: kopf.PRESENT},
)
def job_changed(event: kopf.RawEvent, body: kopf.Body, namespace: str | None, **_: Any) -> None:
    assert namespace is not None
    uid = body["metadata"].get("uid", "")
    if event["type"] == "DELETED":
        _running.discard(uid)
        metrics.JOBS_RUNNING.set(len(_running))
        return
    owner = next((r for r in body["metadata"].get("ownerReferences") or [] if r.get("kind") == KIND), None)
    generation = (body["metadata"].get("labels") or {}).get(names.LABEL_GENERATION)
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


@kopf.on.event(GROUP, VERSION, PLURAL)
def evaluation_seen(event: kopf.RawEvent, body: kopf.Body, **_: Any) -> None:
    """Keep the cluster-state gauges current: every watch event carries the Evaluation's whole object."""
    uid = body["metadata"].get("uid", "")
    if event["type"] == "DELETED":
        metrics.CLUSTER.record(uid, None)
    else:
        metrics.CLUSTER.record(uid, state.evaluation_state(dict(body)))
