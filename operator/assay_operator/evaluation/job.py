"""The runner Job of one run of an Evaluation: its pod's volumes, mounts, environment and containers per phase
(layout.py), built as typed objects (assay_operator.objects). Pure: handlers call `build_job`, serialise
the result once, adopt it and create it idempotently; tests compare it with an exact expected object.

Users cannot choose the image, command, service account, volumes or env: they come from the operator's
settings and this module only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from assay_operator import objects as k8s
from assay_operator.evaluation import queueing
from assay_operator.evaluation.api import EvaluationSpec, SecretKeyRef
from assay_operator.evaluation.gateway_sidecar import build_gateway_sidecar
from assay_operator.evaluation.layout import (
    ANSWER_CONFIG_KEY,
    ANSWER_CONTAINER,
    ANSWERS_DIR,
    BRAIN_DIR,
    JUDGE_CONTAINER,
    KB_DIR,
    KEY_DIR,
    RUN_CONFIG_KEY,
    RUN_DIR,
    SECRETS_DIR,
    SPLIT_CONTAINER,
    SUITE_DIR,
    TERMINATION_LOG,
    TMP_DIR,
    WORK_DIR,
)
from assay_operator.evaluation.names import (
    ANNOTATION_BRAIN,
    ANNOTATION_KEY,
    ANNOTATION_PUBLIC,
    ANNOTATION_SPEC_HASH,
    job_name,
    labels,
    run_config_name,
)
from assay_operator.evaluation.snapshots import Snapshots
from assay_operator.evaluation.suite_split import KEYS_FILE
from assay_operator.settings import Settings
from assay_runner.errors import ExitCode
from assay_runner.vocabulary import PROGRAM_KINDS

# The runner's "could not run" (errors.ExitCode.BAD_INPUT) fails the Job at once: a retry cannot fix it.
EXIT_BAD_INPUT = int(ExitCode.BAD_INPUT)
DEFAULT_RESOURCES = {"cpu": "6", "memory": "6Gi"}


def _config_map_volume(name: str, config_map: str, items: list[k8s.KeyToPath] | None = None) -> k8s.Volume:
    return k8s.Volume(
        name=name, config_map=k8s.ConfigMapVolumeSource(name=config_map, items=items, default_mode=0o444)
    )


def _empty_dir(name: str, size_limit: str | None = None) -> k8s.Volume:
    return k8s.Volume(name=name, empty_dir=k8s.EmptyDirVolumeSource(size_limit=size_limit))


def _mount(name: str, path: str, read_only: bool = False) -> k8s.VolumeMount:
    return k8s.VolumeMount(name=name, mount_path=path, read_only=True if read_only else None)


def _env(name: str, value: str) -> k8s.EnvVar:
    return k8s.EnvVar(name=name, value=value)


def _secret_ref(ref: SecretKeyRef | None, default: str | None) -> SecretKeyRef | None:
    if ref is not None:
        return ref
    if not default:
        return None
    name, _, key = default.partition("/")
    return SecretKeyRef(name=name, key=key or "token")


def _container(
    name: str,
    settings: Settings,
    args: list[str],
    env: list[k8s.EnvVar],
    mounts: list[k8s.VolumeMount],
    resources: dict[str, str],
) -> k8s.Container:
    return k8s.Container(
        name=name,
        image=settings.runner_image,
        command=[*settings.runner_command, *args],
        working_dir=WORK_DIR,
        env=env,
        resources=k8s.ResourceRequirements(requests=dict(resources), limits=dict(resources)),
        volume_mounts=mounts,
        termination_message_path=TERMINATION_LOG,
        termination_message_policy="FallbackToLogsOnError",
        security_context=k8s.SecurityContext(
            allow_privilege_escalation=False,
            read_only_root_filesystem=True,
            run_as_non_root=True,
            capabilities=k8s.Capabilities(drop=["ALL"]),
        ),
    )


@dataclass
class _Phases:
    """The pod's volumes and, per phase, its mounts and environment."""

    volumes: list[k8s.Volume]
    answer_mounts: list[k8s.VolumeMount]
    judge_mounts: list[k8s.VolumeMount]
    answer_env: list[k8s.EnvVar]
    judge_env: list[k8s.EnvVar]
    gateway_sidecar: k8s.Container | None = None
    """The container holding the gateway token, when there is one (`gateway_sidecar`)."""


def _phases(
    spec: EvaluationSpec, evaluation: str, generation: int, snapshots: Snapshots, settings: Settings
) -> _Phases:
    run_config = run_config_name(evaluation, generation)
    volumes = [
        _config_map_volume("brain", snapshots.brain),
        _config_map_volume("run-config", run_config),
        # The answer phase gets its own document only: the judge's names where the keys are mounted.
        _config_map_volume(
            "answer-config", run_config, [k8s.KeyToPath(key=ANSWER_CONFIG_KEY, path=ANSWER_CONFIG_KEY)]
        ),
        # Separate scratch per phase: nothing an agent leaves behind is where the judge phase works.
        _empty_dir("answer-work"),
        _empty_dir("answer-tmp"),
        _empty_dir("answers"),
        _empty_dir("work"),
        _empty_dir("tmp"),
    ]
    if snapshots.suite is not None and snapshots.key is not None:
        volumes += [_config_map_volume("suite", snapshots.suite), _config_map_volume("key", snapshots.key)]
    else:  # a bundled suite: split in the pod, one emptyDir per part
        volumes += [_empty_dir("suite"), _empty_dir("key")]
    inputs = [_mount("suite", SUITE_DIR, read_only=True)]
    if spec.suite.kb_config_map is not None:
        volumes.append(_config_map_volume("kb", spec.suite.kb_config_map.name))
        inputs.append(_mount("kb", KB_DIR, read_only=True))
    brain = _mount("brain", BRAIN_DIR, read_only=True)
    answer_mounts = [
        brain,
        _mount("answer-config", RUN_DIR, read_only=True),
        *inputs,
        _mount("answer-work", WORK_DIR),
        _mount("answers", ANSWERS_DIR),
        _mount("answer-tmp", TMP_DIR),
    ]
    if spec.agent.kind in PROGRAM_KINDS:  # a program may read any file: the bundled examples are hidden
        # The image's bundled suites carry their answer keys: an agent that runs code never sees them.
        volumes.append(_empty_dir("no-examples", "1Mi"))
        answer_mounts.append(_mount("no-examples", settings.bundled_root.rstrip("/"), read_only=True))
    judge_mounts = [
        brain,
        _mount("run-config", RUN_DIR, read_only=True),
        *inputs,
        _mount("key", KEY_DIR, read_only=True),
        _mount("work", WORK_DIR),
        _mount("answers", ANSWERS_DIR, read_only=True),
        _mount("tmp", TMP_DIR),
    ]
    answer_env = [_env("HOME", TMP_DIR), _env("TMPDIR", TMP_DIR), _env("PYTHONDONTWRITEBYTECODE", "1")]
    judge_env = list(answer_env)
    gateway = spec.gateway or settings.default_gateway
    if gateway:
        answer_env.append(_env("ASSAY_GATEWAY_URL", gateway))
        judge_env.append(_env("ASSAY_GATEWAY_URL", gateway))
    mlflow_uri = (spec.mlflow.tracking_uri if spec.mlflow else None) or settings.default_mlflow_uri
    if mlflow_uri:
        judge_env.append(_env("MLFLOW_TRACKING_URI", mlflow_uri))
    # The judge phase exits 0 on a Blocked verdict only where this is set (output.blockedExitCode: 0).
    judge_env.append(_env("ASSAY_JOB", "1"))
    phases = _Phases(volumes, answer_mounts, judge_mounts, answer_env, judge_env)
    token = token_secrets(spec, settings).get("gateway")
    if token is not None:  # the agents' token: held by a sidecar, never in the answer container
        sidecar = build_gateway_sidecar(token, gateway, settings)
        phases.volumes += sidecar.volumes
        phases.answer_mounts += sidecar.answer_mounts
        phases.answer_env += sidecar.answer_env
        phases.judge_mounts += sidecar.judge_mounts
        phases.judge_env += sidecar.judge_env
        phases.gateway_sidecar = sidecar.container
    _add_tokens(spec, settings, phases)
    return phases


def token_secrets(spec: EvaluationSpec, settings: Settings) -> dict[str, SecretKeyRef]:
    """The Secrets a run mounts, by role (gateway, judge, mlflow): the spec's, else the operator's
    defaults. The judge falls back to the gateway's token."""
    gateway = _secret_ref(spec.gateway_token_secret_ref, settings.default_gateway_token_secret)
    judge = (
        _secret_ref(spec.judge_gateway_token_secret_ref, settings.default_judge_gateway_token_secret)
        or gateway
    )
    mlflow = _secret_ref(
        spec.mlflow.token_secret_ref if spec.mlflow else None, settings.default_mlflow_token_secret
    )
    found = {"gateway": gateway, "judge": judge, "mlflow": mlflow}
    return {role: ref for role, ref in found.items() if ref is not None}


def _add_tokens(spec: EvaluationSpec, settings: Settings, phases: _Phases) -> None:
    """Tokens are Secrets the kubelet mounts as files, each only into the phase that needs it; the pod spec
    names the Secret, never its value, and the operator never reads it."""
    where = {
        "judge": (phases.judge_mounts, phases.judge_env, "ASSAY_JUDGE_GATEWAY_TOKEN_FILE"),
        "mlflow": (phases.judge_mounts, phases.judge_env, "MLFLOW_TRACKING_TOKEN_FILE"),
    }  # the gateway's token goes to the gateway sidecar only
    for role, ref in token_secrets(spec, settings).items():
        if role not in where:
            continue
        mounts, env, variable = where[role]
        items = [k8s.KeyToPath(key=ref.key, path="token")]
        source = k8s.SecretVolumeSource(secret_name=ref.name, items=items, default_mode=0o444)
        phases.volumes.append(k8s.Volume(name=f"{role}-token", secret=source))
        mounts.append(_mount(f"{role}-token", f"{SECRETS_DIR}/{role}", read_only=True))
        env.append(_env(variable, f"{SECRETS_DIR}/{role}/token"))


def _fail_on_bad_input(container: k8s.Container) -> k8s.PodFailurePolicyRule:
    requirement = k8s.ExitCodesRequirement(
        container_name=container.name, operator="In", values=[EXIT_BAD_INPUT]
    )
    return k8s.PodFailurePolicyRule(action="FailJob", on_exit_codes=requirement)


def build_job(
    spec: EvaluationSpec,
    evaluation: str,
    namespace: str,
    generation: int,
    snapshots: Snapshots,
    settings: Settings,
    rerun: str | None = None,
) -> k8s.Job:
    phases = _phases(spec, evaluation, generation, snapshots, settings)
    resources = spec.resources.model_dump() if spec.resources else dict(DEFAULT_RESOURCES)
    init_containers = []
    if spec.suite.bundled:
        split_args = [
            "split",
            f"{settings.bundled_root.rstrip('/')}/{spec.suite.bundled}",
            "--public",
            SUITE_DIR,
            "--keys",
            f"{KEY_DIR}/{KEYS_FILE}",
        ]
        split_mounts = [_mount("suite", SUITE_DIR), _mount("key", KEY_DIR), _mount("tmp", TMP_DIR)]
        split_env = [_env("PYTHONDONTWRITEBYTECODE", "1")]
        init_containers.append(
            _container(SPLIT_CONTAINER, settings, split_args, split_env, split_mounts, resources)
        )
    answer_args = ["answer", "--config", f"{RUN_DIR}/{ANSWER_CONFIG_KEY}", "--quiet"]
    init_containers.append(
        _container(
            ANSWER_CONTAINER, settings, answer_args, phases.answer_env, phases.answer_mounts, resources
        )
    )
    judge_args = ["score", "--config", f"{RUN_DIR}/{RUN_CONFIG_KEY}"]
    judge = _container(
        JUDGE_CONTAINER, settings, judge_args, phases.judge_env, phases.judge_mounts, resources
    )
    # The gateway sidecar starts just before the answer container (after the split, if any).
    pod_init = list(init_containers)
    if phases.gateway_sidecar is not None:
        pod_init.insert(len(pod_init) - 1, phases.gateway_sidecar)
    pod_labels = labels(evaluation, generation)
    pod_spec = k8s.PodSpec(
        restart_policy="Never",
        automount_service_account_token=False,
        enable_service_links=False,
        security_context=k8s.PodSecurityContext(
            run_as_non_root=True, seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault")
        ),
        init_containers=pod_init,
        containers=[judge],
        volumes=phases.volumes,
        service_account_name=settings.runner_service_account or None,
    )
    annotations = {ANNOTATION_SPEC_HASH: spec_hash(spec), ANNOTATION_BRAIN: snapshots.brain_digest}
    if snapshots.suite_digest is not None and snapshots.key_digest is not None:
        annotations[ANNOTATION_PUBLIC] = snapshots.suite_digest
        annotations[ANNOTATION_KEY] = snapshots.key_digest
    rules = [
        # An eviction or preemption is not the runner's fault: retry, without using the backoff.
        k8s.PodFailurePolicyRule(
            action="Ignore", on_pod_conditions=[k8s.PodConditionPattern(type="DisruptionTarget")]
        ),
        *(_fail_on_bad_input(container) for container in [*init_containers, judge]),
    ]
    return k8s.Job(
        metadata=k8s.ObjectMeta(
            name=job_name(evaluation, generation, rerun),
            labels={**pod_labels, **queueing.job_labels(spec)},
            annotations=annotations,
        ),
        spec=k8s.JobSpec(
            backoff_limit=settings.backoff_limit,
            active_deadline_seconds=spec.deadline_seconds,
            ttl_seconds_after_finished=settings.job_ttl_seconds,
            pod_failure_policy=k8s.PodFailurePolicy(rules=rules),
            template=k8s.PodTemplateSpec(metadata=k8s.PodTemplateMeta(labels=pod_labels), spec=pod_spec),
            suspend=queueing.suspended(spec),
        ),
    )


def spec_hash(spec: EvaluationSpec) -> str:
    canonical = json.dumps(spec.model_dump(mode="json", by_alias=True), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
