"""Starting a run of an Evaluation's generation: snapshot the brain (and split a ConfigMap suite), render the
answer phase's RunConfig, make the generation's answers claim and the answer pods' NetworkPolicy, create the
answer Job — each idempotently, adopting what an earlier attempt created — delete superseded Jobs (and the
claims of older generations), and mark the Evaluation Reconciling. The judge Job follows once the answers
are in (judging.py).

Called by kopf (create / resume / spec update / rerun, assay_operator.evaluation.handlers) and by the
ConfigMap watch when a ConfigMap the Evaluation waits for appears (wakeups.py); runs of one Evaluation are
serialised in this process, and two processes (a leader and a new one) still make one answer Job and one
judge Job per run: creation is idempotent and a 409 is adopted.

Its parts: the request and its refusals or waits (run_request.py), the inputs read from the cluster
(run_inputs.py), the children created (run_children.py), and what an earlier run left (superseded.py).
"""

from __future__ import annotations

import contextlib
import logging
import time

import kopf

from assay_operator import conditions, events, metrics
from assay_operator.evaluation.build import names, pods
from assay_operator.evaluation.build.answer_job import build_answer_job
from assay_operator.evaluation.build.claim import build_answers_claim
from assay_operator.evaluation.build.egress import build_answer_policy, gateway_rules
from assay_operator.evaluation.build.runconfig import build_run_config_map
from assay_operator.evaluation.build.snapshots import (
    Snapshots,
    brain_digest,
    build_brain_snapshot,
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
from assay_operator.evaluation.steps.run_children import _create_answer_job, _create_inputs
from assay_operator.evaluation.steps.run_inputs import _brain_files, _suite_snapshots, _validated_spec
from assay_operator.evaluation.steps.run_request import Request
from assay_operator.evaluation.steps.superseded import _delete_superseded, _wait_for_earlier_runs
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.settings import Settings
from assay_operator.startup import settings
from assay_runner.vocabulary import PRESET_KINDS

log = logging.getLogger("assay.operator")


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
