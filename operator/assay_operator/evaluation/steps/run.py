"""Starting a run of an Evaluation's generation: snapshot the brain (and split a ConfigMap suite), render the
answer phase's RunConfig, make the generation's answers claim and the answer pods' NetworkPolicy, create the
answer Job — each idempotently, adopting what an earlier attempt created — delete superseded Jobs (and the
claims of older generations), and mark the Evaluation Reconciling. The judge Job follows once the answers
are in (judging.py).

Called by kopf (create / resume / spec update / rerun, assay_operator.evaluation.handlers) and by the
ConfigMap watch when a ConfigMap the Evaluation waits for appears (wakeups.py); runs of one Evaluation are
serialised in this process, and two processes (a leader and a new one) still make one answer Job and one
judge Job per run: creation is idempotent and a 409 is adopted.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, cast

import kopf
from pydantic import ValidationError

from assay_operator import conditions, events, kube, metrics
from assay_operator.cluster_views import Object, Pod
from assay_operator.evaluation import api
from assay_operator.evaluation.api import KIND, EvaluationSpec, EvaluationStatus
from assay_operator.evaluation.build import names, pods
from assay_operator.evaluation.build.answer_job import build_answer_job
from assay_operator.evaluation.build.claim import build_answers_claim
from assay_operator.evaluation.build.egress import build_answer_policy, gateway_rules
from assay_operator.evaluation.build.runconfig import build_run_config_map
from assay_operator.evaluation.build.snapshots import (
    Snapshots,
    brain_digest,
    build_brain_snapshot,
    build_suite_snapshot,
    text_digest,
)
from assay_operator.evaluation.build.suite_split import (
    SuiteSplitError,
    suite_parts,
    threshold_override_problems,
)
from assay_operator.evaluation.read import progress, reconcile
from assay_operator.evaluation.read.answers_state import AnswersState
from assay_operator.evaluation.steps import (
    admission,
    finish,
    image_check,
    judging,
    network_check,
    serial,
    suite_check,
)
from assay_operator.evaluation.steps.wakeups import WAKEUPS
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.objects import ConfigMap, Job, NetworkPolicy, PersistentVolumeClaim
from assay_operator.settings import Settings
from assay_operator.startup import settings
from assay_runner.vocabulary import PRESET_KINDS

log = logging.getLogger("assay.operator")


@dataclass(frozen=True)
class Request:
    """One reconcile of one Evaluation's generation: the Evaluation as this event shows it, and who asks."""

    evaluation: Watched
    retry: int | None
    """kopf's retry count; None when a ConfigMap's creation woke it."""

    @property
    def body(self) -> Mapping[str, Any]:
        return self.evaluation.body

    @property
    def namespace(self) -> str:
        return self.evaluation.namespace

    @property
    def name(self) -> str:
        return self.evaluation.name

    @property
    def generation(self) -> int:
        return self.evaluation.generation

    @property
    def current(self) -> EvaluationStatus:
        return self.evaluation.status

    @property
    def rerun(self) -> str | None:
        return self.evaluation.rerun

    @property
    def first_run(self) -> bool:
        """The first run of a new Evaluation: no earlier generation or rerun of it can have left Jobs, claims
        or pods behind (a deleted namesake's are not its own: the ownership checks skip them, and the garbage
        collector takes them)."""
        return self.generation == 1 and self.rerun is None

    @property
    def job(self) -> str:
        """The run's judge Job (`status.jobName`)."""
        return names.job_name(self.name, self.generation, self.rerun)

    @property
    def answer_job(self) -> str:
        return names.answer_job_name(self.name, self.generation, self.rerun)

    def write(self, build: Callable[[], EvaluationStatus] | EvaluationStatus) -> None:
        self.evaluation.write(build)


def _config_map(namespace: str, name: str) -> Any | None:
    return kube.if_present(lambda: kube.core().read_namespaced_config_map(name, namespace))


def _invalid(request: Request, message: str) -> NoReturn:
    request.write(lambda: reconcile.invalid_status(request.current, request.generation, message))
    kopf.warn(cast(kopf.Body, request.body), reason="InvalidSpec", message=message[:1024])
    metrics.EVALUATIONS.labels("Blocked", "InvalidSpec").inc()
    raise kopf.PermanentError(message)


def _wait_for(request: Request, kind: str, config_map: str) -> NoReturn:
    reason = f"{kind}NotFound"
    message = (
        f"ConfigMap {config_map!r} ({kind.lower()}) not found in namespace {request.namespace}; "
        "retrying until it exists"
    )
    WAKEUPS.wait(request.namespace, config_map, request.name)
    if request.retry is None:  # woken by another ConfigMap: stalled or not as before
        stalled = conditions.holds(request.current.conditions, conditions.STALLED, request.generation)
    else:
        stalled = request.retry >= settings().stall_after_retries
    request.write(
        lambda: reconcile.waiting_status(request.current, request.generation, reason, message, stalled)
    )
    if request.retry == 0:
        events.warning(request.body, reason, message)
    retry = request.retry or 0
    raise kopf.TemporaryError(message, delay=min(5 * 2**retry, 120))


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
    request.write(
        lambda: reconcile.waiting_status(
            request.current, request.generation, "AgentNotInImage", message, True
        )
    )
    events.warning(request.body, "AgentNotInImage", message)


def _validated_spec(request: Request) -> EvaluationSpec:
    try:
        return request.evaluation.spec
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
    """A ConfigMap suite split at its trust boundary into immutable snapshots: (part, object, digest) for the
    public part (`suite`), the answer keys (`key`) and, for a suite with conversational tickets, the
    customers (`customer`: the answer pods' runner plays them). A bundled suite is split in the pod."""
    ref = evaluation.suite.config_map
    if ref is None:
        return []
    found = _config_map(request.namespace, ref.name)
    if found is None:
        _wait_for(request, "Suite", ref.name)
    data = dict(found.data or {})
    try:
        public, key, customers = suite_parts(data)
        overrides = threshold_override_problems(
            data, (evaluation.gate.thresholds or {}) if evaluation.gate else {}
        )
    except SuiteSplitError as exc:
        _invalid(request, f"suite ConfigMap {ref.name!r} cannot be split into questions and keys: {exc}")
    if overrides:
        _invalid(request, f"suite ConfigMap {ref.name!r}: " + "; ".join(overrides))
    parts = []
    for part, data in (("suite", public), ("key", key), ("customer", customers or {})):
        if not data:
            continue
        digest = text_digest(data)
        parts.append((part, build_suite_snapshot(request.name, part, data, digest), digest))
    return parts


def _refuse_stale(
    read: Callable[..., Any], namespace: str, kind: str, child_name: str, owner: Watched
) -> None:
    """A child name was taken (409). When the holder belongs to a deleted Evaluation of the same name (a
    delete and re-create, common under GitOps) it is garbage the collector has not removed yet: adopting it
    would mount the old run's config, and its Job's verdict would land on this Evaluation. Wait for it."""
    found = kube.if_present(lambda: read(child_name, namespace))
    existing = None if found is None else Object.of(kube.plain(found))  # None: collected, create again
    stale = existing is None or any(
        ref.kind == KIND and ref.name == owner.name and ref.uid != owner.uid
        for ref in existing.metadata.owner_references
    )
    if stale:
        raise kopf.TemporaryError(
            f"{kind} {child_name} of a deleted Evaluation named {owner.name} is still there; "
            "waiting for the garbage collector to remove it",
            delay=2,
        )


Child = ConfigMap | PersistentVolumeClaim | NetworkPolicy | Job
"""A child the operator builds and creates."""


def _create_adopted(request: Request, create: Callable[..., Any], child: Child) -> bool:
    """Serialise the child once, here, adopted by the Evaluation; True when it was created now."""
    body = child.body()
    kopf.adopt(body, owner=cast(kopf.Body, request.body))
    return kube.create(create, request.namespace, body)


def _create(request: Request, create: Callable[..., Any], read: Callable[..., Any], child: Child) -> bool:
    """Create one child, adopted; True when created now. A name taken by another owner's object is refused
    (a stale one: wait for the collector; anyone else's: the spec cannot run)."""
    if _create_adopted(request, create, child):
        return True
    kind, name = child.kind, child.metadata.name
    _refuse_stale(read, request.namespace, kind, name, request.evaluation)
    existing = Object.of(kube.plain(read(name, request.namespace)))
    if not request.evaluation.owns(existing):
        _invalid(request, f"a {kind} named {name} already exists and is not owned by this Evaluation")
    return False


def _apply_policy(request: Request, policy: NetworkPolicy) -> None:
    """The answer pods' NetworkPolicy, one per Evaluation: created, or brought up to this spec's gateway."""
    networking = kube.networking()
    if _create(
        request,
        networking.create_namespaced_network_policy,
        networking.read_namespaced_network_policy,
        policy,
    ):
        return
    networking.patch_namespaced_network_policy(
        policy.metadata.name, request.namespace, {"spec": policy.spec.body()}
    )


def _create_inputs(
    request: Request,
    config_map_objects: list[ConfigMap],
    claim: PersistentVolumeClaim,
    policy: NetworkPolicy | None,
) -> None:
    """The snapshots, the answer phase's RunConfig, the answers claim and the NetworkPolicy, each adopted
    and idempotent — all before the answer Job, so no answer pod starts without its egress rule."""
    core = kube.core()
    for child in config_map_objects:
        if not _create_adopted(request, core.create_namespaced_config_map, child):
            _refuse_stale(
                core.read_namespaced_config_map,
                request.namespace,
                child.kind,
                child.metadata.name,
                request.evaluation,
            )
    if policy is not None:
        _apply_policy(request, policy)
    _create(
        request,
        core.create_namespaced_persistent_volume_claim,
        core.read_namespaced_persistent_volume_claim,
        claim,
    )


def _create_answer_job(request: Request, job: Job) -> bool:
    """True when the answer Job was created now (False: it was there already, from an earlier attempt)."""
    batch = kube.batch()
    return _create(request, batch.create_namespaced_job, batch.read_namespaced_job, job)


def _delete_superseded(request: Request) -> None:
    """Delete this Evaluation's other Jobs (earlier generations, and earlier runs of this one: a rerun) and
    the answers claims of earlier generations (a rerun resumes on its generation's)."""
    owner = request.evaluation
    selector = f"{names.LABEL_EVALUATION}={names.evaluation_label(request.name)}"
    keep = {request.job, request.answer_job}
    jobs = kube.read_plain(kube.batch().list_namespaced_job, request.namespace, label_selector=selector)
    for item in jobs.get("items") or []:
        job = Object.of(item)
        # Only this Evaluation's own Jobs: a label value is not proof of ownership.
        if owner.owns(job) and job.metadata.name not in keep:
            # Background: without a propagation policy a deleted Job leaves its pods behind.
            delete = kube.batch().delete_namespaced_job
            kube.delete_if_present(
                functools.partial(
                    delete, job.metadata.name, request.namespace, propagation_policy="Background"
                )
            )
    core = kube.core()
    claims = kube.read_plain(
        core.list_namespaced_persistent_volume_claim, request.namespace, label_selector=selector
    )
    for found in claims.get("items") or []:
        claim = Object.of(found)
        generation = claim.metadata.labels.get(names.LABEL_GENERATION)
        if owner.owns(claim) and generation != str(request.generation):
            delete_claim = core.delete_namespaced_persistent_volume_claim
            kube.delete_if_present(functools.partial(delete_claim, claim.metadata.name, request.namespace))


def _wait_for_earlier_runs(request: Request) -> None:
    """A rerun answers on its generation's claim, where an earlier run's pods may still be stopping (their
    Job was just deleted): its pods start only once those are gone, so two attempts never write one shard."""
    selector = (
        f"{names.LABEL_EVALUATION}={names.evaluation_label(request.name)},"
        f"{names.LABEL_GENERATION}={request.generation}"
    )
    mine = {request.job, request.answer_job}
    listed = kube.read_plain(kube.core().list_namespaced_pod, request.namespace, label_selector=selector)
    running = [
        pod.metadata.name
        for pod in (Pod.of(item) for item in listed.get("items") or [])
        if pod.metadata.labels.get("job-name") not in mine and pod.status.phase not in ("Succeeded", "Failed")
    ]
    if running:
        raise kopf.TemporaryError(
            f"waiting for the earlier run's pods ({', '.join(sorted(running)[:5])}) to stop before answering "
            "again on the same volume",
            delay=2,
        )


def start(watched: Watched, retry: int | None) -> None:
    """Start (or adopt) the run of the Evaluation's current generation; kopf.TemporaryError while a
    ConfigMap it needs is missing, kopf.PermanentError when the spec cannot run."""
    with serial.lock(watched.namespace, watched.name):
        _start(Request(watched, retry))


def _start(request: Request) -> None:
    started = time.monotonic()
    body, namespace, name, rerun = request.body, request.namespace, request.name, request.rerun
    if reconcile.run_started(request.current, request.generation, request.job, rerun):
        return  # resumed after a restart: the Job exists; its watch brings the verdict
    evaluation = _validated_spec(request)
    operator = settings()
    kind = evaluation.agent.kind
    if kind in PRESET_KINDS and kind not in operator.runner_agent_presets:
        _stall_without_agent(request, kind, operator)
        return
    verified = image_check.check(request.evaluation, request.generation, operator)
    if verified is None:
        return  # refused: Blocked with the reason, no Job
    suite_verified = suite_check.check(request.evaluation, request.generation, evaluation, operator)
    if suite_verified is None:
        return  # the suite's artifact refused: Blocked with the reason, no Job
    data, binary = _brain_files(request, evaluation)
    digest = brain_digest(data, binary)
    snapshot = build_brain_snapshot(name, data, binary, digest)
    suite_snapshots = _suite_snapshots(request, evaluation)
    parts = {part: (child.metadata.name, part_digest) for part, child, part_digest in suite_snapshots}
    snapshots = Snapshots(
        brain=snapshot.metadata.name,
        brain_digest=digest,
        suite=parts["suite"][0] if parts else None,
        suite_digest=parts["suite"][1] if parts else None,
        key=parts["key"][0] if parts else None,
        key_digest=parts["key"][1] if parts else None,
        customer=parts["customer"][0] if "customer" in parts else None,
        customer_digest=parts["customer"][1] if "customer" in parts else None,
    )
    config_maps = [
        snapshot,
        *(child for _, child, _ in suite_snapshots),
        build_run_config_map(evaluation, name, namespace, request.generation, operator),
    ]
    claim = build_answers_claim(evaluation, name, request.generation, operator)
    policy = build_answer_policy(evaluation, name, operator) if operator.answer_network_policy else None
    _create_inputs(request, config_maps, claim, policy)
    network: list[conditions.Desired] = [*verified, *suite_verified]
    if network_check.required(evaluation):  # before the answer Job: no answer pod unless it holds
        network.append(
            network_check.ensure_enforced(
                request.evaluation, request.generation, evaluation, operator, policy is not None
            )
        )
    if not request.first_run:  # three requests saved on most starts: a burst's Jobs come sooner
        _delete_superseded(request)
        _wait_for_earlier_runs(request)
    job = build_answer_job(evaluation, name, request.generation, snapshots, operator, rerun)
    created = _create_answer_job(request, job)
    if created:
        metrics.JOBS_CREATED.inc()
        events.normal(
            body,
            "JobCreated",
            f"created Job {request.answer_job} ({evaluation.parallelism} answer shard(s)) for generation "
            f"{request.generation} (brain {digest[:19]})" + (f", rerun {rerun[:64]!r}" if rerun else ""),
        )
        if policy is not None and not gateway_rules(evaluation, operator):
            events.warning(
                body,
                "AnswerEgressClosed",
                "the answer pods' NetworkPolicy allows DNS only: the gateway URL names no IP address and the "
                "operator has no gateway selector (chart: networkPolicy.gateway); on a cluster that enforces "
                "NetworkPolicy the agents cannot reach the gateway",
            )
    answer = progress.answer_status(
        AnswersState(evaluation.parallelism), request.answer_job, claim.metadata.name
    )
    request.write(
        lambda: reconcile.with_conditions(
            reconcile.running_status(
                request.current,
                request.generation,
                request.job,
                digest,
                conditions.now(),
                (snapshots.suite_digest, snapshots.key_digest),
                rerun,
                answer,
                pods.suite_annotations(evaluation).get(names.ANNOTATION_SUITE_ARTIFACT),
            ),
            network,
            request.generation,
        )
    )
    if not created:
        # An adopted Job (after a restart) may have moved on before that write: its watch events may have
        # come and gone, or written what the write above just replaced. Look once more. A Job created now
        # needs no look: the steps its events call wait for this run's lock (serial), so they read the
        # status just written, and its judge Job follows its end.
        latest = finish.read_job(request.answer_job, namespace)
        if latest is not None:
            admission.job_seen(latest, namespace, name, request.generation)  # a queued Job may wait already
            judging.answer_job_seen(latest, namespace, name, request.generation)
        judge = finish.read_job(request.job, namespace)
        if judge is not None:
            finish.finish_if_done(judge, namespace, name, request.generation)
    metrics.RECONCILE_SECONDS.observe(time.monotonic() - started)


def wake(namespace: str, name: str) -> None:
    """A ConfigMap the Evaluation waited for appeared: try its run now rather than at kopf's next retry
    (which still comes, and then finds the run started)."""
    watched = Watched.read(namespace, name)
    if watched is None:
        return
    log.info("Evaluation %s/%s: a ConfigMap it waited for appeared", namespace, name)
    with contextlib.suppress(kopf.TemporaryError, kopf.PermanentError):  # reported in its status
        start(watched, retry=None)
