"""The answer Job of one run (pure): an Indexed Job of `spec.parallelism` pods, each answering its shard of
the ticket x repetition cells (`assay answer`, the shard from JOB_COMPLETION_INDEX) onto the generation's
claim, under `shard-<index>/` — the only part of the claim it mounts.

What an answer pod holds: the brain, the suite's public part, the KB, its scratch space and its shard of the
claim, the run's evidence key (read-only, made on the claim by the init container `evidence`; the agents'
sandbox grants no path of it), the gateway URL and the socket of its gateway sidecar, the one container
holding the gateway token (gateway_sidecar.py). Never the answer keys, MLflow's URL or token, or a
service-account token; and a NetworkPolicy per Evaluation (egress.py) lets it reach only the gateway and
DNS.

The pod is built as parts (AnswerPod) and assembled last, so a part can be added in one call before
assembly (`add_gateway_sidecar`).

Failures, per shard: an eviction or preemption is retried without counting; bad input (exit code 2) fails
the whole Job at once (every shard reads the same inputs, so none could succeed); anything else — a crash,
a kill, an OOM kill (137: memory depends on which cells run together, so one more attempt may pass) — is
retried alone, `backoffLimitPerIndex` times, while the other shards go on. A shard that fails for good is
named to the judge phase, whose verdict blocks on its cells with the reason (judging.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build import pods, queueing
from assay_operator.evaluation.build.gateway_sidecar import build_gateway_sidecar
from assay_operator.evaluation.build.layout import (
    ANSWER_CONFIG_KEY,
    ANSWER_CONTAINER,
    ANSWERS_DIR,
    EVIDENCE_CONTAINER,
    EVIDENCE_KEY_FILE,
    RUN_DIR,
    SHARD_SUBPATH,
    TMP_DIR,
    WORK_DIR,
)
from assay_operator.evaluation.build.names import (
    ANNOTATION_JUDGE_JOB,
    ANNOTATION_SPEC_HASH,
    ANSWER,
    answer_job_name,
    claim_name,
    job_name,
    labels,
    run_config_name,
)
from assay_operator.evaluation.build.snapshots import Snapshots
from assay_operator.settings import Settings
from assay_runner.vocabulary import PROGRAM_KINDS


@dataclass
class AnswerPod:
    """The answer pod as parts: its volumes, its init containers (the suite's split; a sidecar would join
    them) and the answer container's mounts and environment."""

    settings: Settings
    resources: dict[str, str]
    volumes: list[k8s.Volume] = field(default_factory=list)
    init_containers: list[k8s.Container] = field(default_factory=list)
    mounts: list[k8s.VolumeMount] = field(default_factory=list)
    env: list[k8s.EnvVar] = field(default_factory=list)

    def answer_container(self) -> k8s.Container:
        args = ["answer", "--config", f"{RUN_DIR}/{ANSWER_CONFIG_KEY}", "--quiet"]
        return pods.container(ANSWER_CONTAINER, self.settings, args, self.env, self.mounts, self.resources)

    def spec(self) -> k8s.PodSpec:
        return pods.pod_spec(self.settings, self.init_containers, [self.answer_container()], self.volumes)


def answer_pod(
    spec: EvaluationSpec, evaluation: str, generation: int, snapshots: Snapshots, settings: Settings
) -> AnswerPod:
    resources = pods.resources_of(spec)
    inputs = pods.inputs(spec, snapshots, settings, resources, with_key=False)
    pod = AnswerPod(settings, resources)
    # Its own RunConfig only: the judge's (which says where the keys are mounted) is not even in the pod.
    answer_config = [k8s.KeyToPath(key=ANSWER_CONFIG_KEY, path=ANSWER_CONFIG_KEY)]
    pod.volumes = [
        *inputs.volumes,
        pods.config_map_volume("answer-config", run_config_name(evaluation, generation), answer_config),
        pods.claim_volume("answers", claim_name(evaluation, generation)),
        pods.empty_dir("work"),
        pods.empty_dir("tmp"),
    ]
    pod.init_containers = [
        *([inputs.split] if inputs.split is not None else []),
        # The run's evidence key, made on the claim before any agent runs (the first pod makes it, the
        # others and any retry keep it): the answer container reads it, never writes it.
        pods.container(
            EVIDENCE_CONTAINER,
            settings,
            ["evidence-key", EVIDENCE_KEY_FILE],
            pods.base_env(),
            [pods.evidence_mount(read_only=False)],
            resources,
        ),
    ]
    pod.mounts = [
        *inputs.mounts,
        pods.mount("answer-config", RUN_DIR, read_only=True),
        pods.mount("work", WORK_DIR),
        # Its shard only: an agent can neither read nor spoil another shard's answers.
        pods.mount("answers", ANSWERS_DIR, sub_path_expr=SHARD_SUBPATH),
        pods.evidence_mount(),
        pods.mount("tmp", TMP_DIR),
    ]
    if spec.agent.kind in PROGRAM_KINDS:  # a program may read any file: the bundled examples are hidden
        # The image's bundled suites carry their answer keys: an agent that runs code never sees them.
        pod.volumes.append(pods.empty_dir("no-examples", "1Mi"))
        pod.mounts.append(pods.mount("no-examples", settings.bundled_root.rstrip("/"), read_only=True))
    pod.env = [*pods.base_env(), *pods.gateway_env(spec, settings)]
    return pod


def add_gateway_sidecar(pod: AnswerPod, spec: EvaluationSpec) -> None:
    """The gateway token, in a sidecar of its own started just before the answer container (after the
    split, if any): the agents' calls reach it through the runner's metering proxy and the sidecar's socket,
    and the answer container, where the agents run, holds no token."""
    ref = pods.token_secrets(spec, pod.settings).get("gateway")
    if ref is None:
        return
    sidecar = build_gateway_sidecar(
        ref, spec.gateway or pod.settings.default_gateway, pod.settings, claim_volume="answers"
    )
    pod.init_containers.append(sidecar.container)
    pod.volumes += sidecar.volumes
    pod.mounts += sidecar.answer_mounts
    pod.env += sidecar.answer_env


def build_answer_job(
    spec: EvaluationSpec,
    evaluation: str,
    generation: int,
    snapshots: Snapshots,
    settings: Settings,
    rerun: str | None = None,
) -> k8s.Job:
    pod = answer_pod(spec, evaluation, generation, snapshots, settings)
    add_gateway_sidecar(pod, spec)
    pod_spec = pod.spec()
    pod_labels = labels(evaluation, generation, component=ANSWER)
    annotations = {
        ANNOTATION_SPEC_HASH: pods.spec_hash(spec),
        **snapshots.annotations(),
        **pods.suite_annotations(spec),
        ANNOTATION_JUDGE_JOB: job_name(evaluation, generation, rerun),
    }
    return k8s.Job(
        metadata=k8s.ObjectMeta(
            name=answer_job_name(evaluation, generation, rerun),
            labels={**pod_labels, **queueing.job_labels(spec)},
            annotations=annotations,
        ),
        spec=k8s.JobSpec(
            completion_mode="Indexed",
            completions=spec.parallelism,
            parallelism=spec.parallelism,
            backoff_limit_per_index=settings.backoff_limit,
            active_deadline_seconds=spec.deadline_seconds,
            ttl_seconds_after_finished=settings.job_ttl_seconds,
            pod_failure_policy=k8s.PodFailurePolicy(
                rules=pods.failure_rules([*pod_spec.init_containers, *pod_spec.containers])
            ),
            template=k8s.PodTemplateSpec(metadata=k8s.PodTemplateMeta(labels=pod_labels), spec=pod_spec),
            suspend=queueing.suspended(spec),
        ),
    )
