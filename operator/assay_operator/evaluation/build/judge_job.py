"""The judge Job of one run (pure): one pod, made once the answer Job has finished (judging.py), that reads
every shard's answers from the claim (read-only), verifies their seals, judges every cell, logs to MLflow,
keeps result.json and the report on the claim (`result/`) and writes the RunSummary to its termination
message — `assay score --config`, exactly the judge phase of a one-pod run, so the verdict of a sharded run
is the one a single pod gives on the same answers.

What the judge pod holds: the brain (for its digest), the suite's public part, the answer keys, the KB, the
answers, the judge's gateway token and MLflow's token. It runs no agent.
"""

from __future__ import annotations

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build import gateway_sidecar, pods, queueing
from assay_operator.evaluation.build.layout import (
    ANSWERS_DIR,
    JUDGE_CONTAINER,
    OUTPUT_DIR,
    RESULT_SUBPATH,
    RUN_CONFIG_KEY,
    RUN_DIR,
    TMP_DIR,
    WORK_DIR,
)
from assay_operator.evaluation.build.names import (
    ANNOTATION_SPEC_HASH,
    JUDGE,
    claim_name,
    job_name,
    judge_config_name,
    labels,
)
from assay_operator.evaluation.build.snapshots import Snapshots
from assay_operator.settings import Settings

TOKEN_FILES = {"judge": "ASSAY_JUDGE_GATEWAY_TOKEN_FILE", "mlflow": "MLFLOW_TRACKING_TOKEN_FILE"}


def build_judge_job(
    spec: EvaluationSpec,
    evaluation: str,
    generation: int,
    snapshots: Snapshots,
    settings: Settings,
    deadline_seconds: int,
    rerun: str | None = None,
) -> k8s.Job:
    """`deadline_seconds`: what is left of the Evaluation's deadline (runconfig.judge_deadline)."""
    resources = pods.resources_of(spec)
    inputs = pods.inputs(spec, snapshots, settings, resources, with_key=True)
    volumes = [
        *inputs.volumes,
        pods.config_map_volume("run-config", judge_config_name(evaluation, generation, rerun)),
        pods.claim_volume("answers", claim_name(evaluation, generation)),
        pods.empty_dir("work"),
        pods.empty_dir("tmp"),
    ]
    mounts = [
        *inputs.mounts,
        pods.mount("run-config", RUN_DIR, read_only=True),
        pods.mount("work", WORK_DIR),
        pods.mount("answers", ANSWERS_DIR, read_only=True),
        # Kept after the pod is gone: re-gate or download them (docs/operating.md).
        pods.mount("answers", OUTPUT_DIR, sub_path=RESULT_SUBPATH),
        pods.evidence_mount(),  # the seals are verified and result.json authenticated with it
        pods.mount("tmp", TMP_DIR),
    ]
    environment = [*pods.base_env(), *pods.gateway_env(spec, settings)]
    mlflow_uri = (spec.mlflow.tracking_uri if spec.mlflow else None) or settings.default_mlflow_uri
    if mlflow_uri:
        environment.append(pods.env("MLFLOW_TRACKING_URI", mlflow_uri))
    # The judge phase exits 0 on a Blocked verdict only where this is set (output.blockedExitCode: 0).
    environment.append(pods.env("ASSAY_JOB", "1"))
    tokens = pods.token_secrets(spec, settings)
    if "gateway" in tokens:  # the answer pods' gateway sidecars kept ledgers: each shard is reconciled
        environment += gateway_sidecar.judge_env(spec.parallelism)
    for role, ref in tokens.items():
        if role in TOKEN_FILES:
            token = pods.token(role, ref, TOKEN_FILES[role])
            volumes.append(token.volume)
            mounts.append(token.mount)
            environment.append(token.env)
    args = ["score", "--config", f"{RUN_DIR}/{RUN_CONFIG_KEY}"]
    judge = pods.container(JUDGE_CONTAINER, settings, args, environment, mounts, resources)
    init_containers = [inputs.split] if inputs.split is not None else []
    pod_spec = pods.pod_spec(settings, init_containers, [judge], volumes)
    pod_labels = labels(evaluation, generation, component=JUDGE)
    return k8s.Job(
        metadata=k8s.ObjectMeta(
            name=job_name(evaluation, generation, rerun),
            labels={**pod_labels, **queueing.job_labels(spec)},
            annotations={
                ANNOTATION_SPEC_HASH: pods.spec_hash(spec),
                **snapshots.annotations(),
                **pods.suite_annotations(spec),
            },
        ),
        spec=k8s.JobSpec(
            backoff_limit=settings.backoff_limit,
            active_deadline_seconds=deadline_seconds,
            ttl_seconds_after_finished=settings.job_ttl_seconds,
            pod_failure_policy=k8s.PodFailurePolicy(rules=pods.failure_rules([*init_containers, judge])),
            template=k8s.PodTemplateSpec(metadata=k8s.PodTemplateMeta(labels=pod_labels), spec=pod_spec),
            suspend=queueing.suspended(spec),
        ),
    )
