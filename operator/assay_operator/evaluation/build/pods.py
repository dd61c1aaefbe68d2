"""The parts both runner pods are made of (pure): volumes, mounts, environment, the runner container, the
pod's own settings, and the inputs every phase reads — the brain, the suite's public part and its KB, plus
the answer keys where the judges run. answer_job.py and judge_job.py compose them.

Users cannot choose the image, command, service account, volumes or env: they come from the operator's
settings and these modules only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec, ResourcesSpec, SecretKeyRef
from assay_operator.evaluation.build.layout import (
    BRAIN_DIR,
    CUSTOMER_DIR,
    CUSTOMERS_PATH,
    EVIDENCE_DIR,
    EVIDENCE_SUBPATH,
    KB_DIR,
    KEY_DIR,
    REGISTRY_AUTH_DIR,
    REGISTRY_CA_DIR,
    SECRETS_DIR,
    SPLIT_CONTAINER,
    SUITE_DIR,
    TERMINATION_LOG,
    TMP_DIR,
    WORK_DIR,
)
from assay_operator.evaluation.build.names import ANNOTATION_SUITE_ARTIFACT
from assay_operator.evaluation.build.snapshots import Snapshots
from assay_operator.evaluation.build.suite_split import KEYS_FILE
from assay_operator.settings import Settings
from assay_runner.contract import OCI_SCHEME, REGISTRY_CA_ENV
from assay_runner.errors import ExitCode

# The runner's "could not run" (errors.ExitCode.BAD_INPUT) fails the Job at once: a retry cannot fix it.
EXIT_BAD_INPUT = int(ExitCode.BAD_INPUT)


def config_map_volume(name: str, config_map: str, items: list[k8s.KeyToPath] | None = None) -> k8s.Volume:
    return k8s.Volume(
        name=name, config_map=k8s.ConfigMapVolumeSource(name=config_map, items=items, default_mode=0o444)
    )


def empty_dir(name: str, size_limit: str | None = None) -> k8s.Volume:
    return k8s.Volume(name=name, empty_dir=k8s.EmptyDirVolumeSource(size_limit=size_limit))


def claim_volume(name: str, claim: str) -> k8s.Volume:
    return k8s.Volume(
        name=name, persistent_volume_claim=k8s.PersistentVolumeClaimVolumeSource(claim_name=claim)
    )


def mount(
    name: str,
    path: str,
    read_only: bool = False,
    sub_path: str | None = None,
    sub_path_expr: str | None = None,
) -> k8s.VolumeMount:
    return k8s.VolumeMount(
        name=name,
        mount_path=path,
        read_only=True if read_only else None,
        sub_path=sub_path,
        sub_path_expr=sub_path_expr,
    )


def env(name: str, value: str) -> k8s.EnvVar:
    return k8s.EnvVar(name=name, value=value)


def base_env() -> list[k8s.EnvVar]:
    """What every runner container starts from: a writable HOME and TMPDIR on a read-only root."""
    return [env("HOME", TMP_DIR), env("TMPDIR", TMP_DIR), env("PYTHONDONTWRITEBYTECODE", "1")]


def gateway_env(spec: EvaluationSpec, settings: Settings) -> list[k8s.EnvVar]:
    gateway = spec.gateway or settings.default_gateway
    return [env("ASSAY_GATEWAY_URL", gateway)] if gateway else []


def resources_of(spec: EvaluationSpec) -> dict[str, str]:
    """The runner pods' requests and limits: the spec's, else the defaults on ResourcesSpec's fields."""
    return (spec.resources or ResourcesSpec()).model_dump()


def container(
    name: str,
    settings: Settings,
    args: list[str],
    environment: list[k8s.EnvVar],
    mounts: list[k8s.VolumeMount],
    resources: dict[str, str],
) -> k8s.Container:
    """A runner container: the operator's image and entrypoint, restricted (OpenShift's restricted-v2)."""
    return k8s.Container(
        name=name,
        image=settings.runner_image,
        command=[*settings.runner_command, *args],
        working_dir=WORK_DIR,
        env=environment,
        resources=k8s.ResourceRequirements(requests=dict(resources), limits=dict(resources)),
        volume_mounts=mounts,
        termination_message_path=TERMINATION_LOG,
        termination_message_policy="FallbackToLogsOnError",
        security_context=restricted(),
    )


def restricted() -> k8s.SecurityContext:
    """Every runner container's (the restricted Pod Security Standard's): no privilege, a read-only root, no
    root user, no capabilities."""
    return k8s.SecurityContext(
        allow_privilege_escalation=False,
        read_only_root_filesystem=True,
        run_as_non_root=True,
        capabilities=k8s.Capabilities(drop=["ALL"]),
    )


@dataclass
class Inputs:
    """What a phase reads of the run's inputs: volumes, read-only mounts, and for a bundled suite the init
    container that splits it in the pod (runner code, no agent) into an emptyDir per part."""

    volumes: list[k8s.Volume]
    mounts: list[k8s.VolumeMount]
    """brain, the suite's public part, the KB — and the key where the judges run, the customers part where
    the agents answer (the answer container's alone: its runner plays the customers)."""
    split: k8s.Container | None


def inputs(
    spec: EvaluationSpec,
    snapshots: Snapshots,
    settings: Settings,
    resources: dict[str, str],
    *,
    with_key: bool,
) -> Inputs:
    """`with_key`: the judge phase. The answer phase never has the key (a ConfigMap suite's key is not even
    a volume of its pod; a bundled or OCI suite's split writes it nowhere in that pod); it
    mounts the customers part instead (a conversational suite's: a ConfigMap snapshot, or the split's third
    emptyDir), which the judge phase has no use for (its key holds the same)."""
    volumes = [config_map_volume("brain", snapshots.brain)]
    mounts = [mount("brain", BRAIN_DIR, read_only=True), mount("suite", SUITE_DIR, read_only=True)]
    split = None
    if snapshots.suite is not None and snapshots.key is not None:
        volumes.append(config_map_volume("suite", snapshots.suite))
        if with_key:
            volumes.append(config_map_volume("key", snapshots.key))
        elif snapshots.customer is not None:
            volumes.append(config_map_volume("customer", snapshots.customer))
            mounts.append(mount("customer", CUSTOMER_DIR, read_only=True))
    else:  # a bundled or OCI suite: split in the pod, one emptyDir per part it needs
        volumes += [empty_dir("suite"), empty_dir("split-tmp")]
        split_mounts = [mount("suite", SUITE_DIR), mount("split-tmp", TMP_DIR)]
        if with_key:
            volumes.append(empty_dir("key"))
            split_mounts.append(mount("key", KEY_DIR))
        # The answer phase's split writes the key nowhere: not even its init container leaves it on a volume.
        parts = ["--keys", f"{KEY_DIR}/{KEYS_FILE}"] if with_key else ["--customer", CUSTOMERS_PATH]
        if not with_key:  # written only for a conversational suite; the answer container's alone
            volumes.append(empty_dir("customer"))
            split_mounts.append(mount("customer", CUSTOMER_DIR))
            mounts.append(mount("customer", CUSTOMER_DIR, read_only=True))
        split_env = [env("PYTHONDONTWRITEBYTECODE", "1")]
        source = f"{settings.bundled_root.rstrip('/')}/{spec.suite.bundled}"
        if spec.suite.oci is not None:
            source = oci_source(spec.suite.oci)
            registry = registry_access(settings)
            volumes += registry.volumes
            split_mounts += registry.mounts
            split_env += [*registry.env, env("HOME", TMP_DIR), env("ASSAY_CACHE", f"{TMP_DIR}/cache")]
        args = ["split", source, "--public", SUITE_DIR, *parts]
        split = container(SPLIT_CONTAINER, settings, args, split_env, split_mounts, resources)
    if spec.suite.kb_config_map is not None:
        volumes.append(config_map_volume("kb", spec.suite.kb_config_map.name))
        mounts.append(mount("kb", KB_DIR, read_only=True))
    if with_key:
        mounts.append(mount("key", KEY_DIR, read_only=True))
    return Inputs(volumes, mounts, split)


def suite_annotations(spec: EvaluationSpec) -> dict[str, str]:
    """A Job's note of the suite artifact its pods pull (an OCI suite only): a failed pull is named by it."""
    if spec.suite.oci is None:
        return {}
    return {ANNOTATION_SUITE_ARTIFACT: spec.suite.oci.rsplit("@", 1)[1]}


def oci_source(reference: str) -> str:
    """`assay split`'s argument for a suite artifact (the runner pulls an `oci://` suite by its digest)."""
    return reference if reference.startswith(OCI_SCHEME) else f"{OCI_SCHEME}{reference}"


@dataclass(frozen=True)
class RegistryAccess:
    """The install's registry CA and credentials (operator settings, never the Evaluation's), as the init
    container that pulls a suite artifact mounts them: no other container of the pod has them."""

    volumes: list[k8s.Volume]
    mounts: list[k8s.VolumeMount]
    env: list[k8s.EnvVar]


def registry_access(settings: Settings) -> RegistryAccess:
    volumes, mounts, environment = [], [], []
    if settings.suite_registry_ca_secret:
        name, _, key = settings.suite_registry_ca_secret.partition("/")
        items = [k8s.KeyToPath(key=key or "ca.crt", path="ca.crt")]
        source = k8s.SecretVolumeSource(secret_name=name, items=items, default_mode=0o444)
        volumes.append(k8s.Volume(name="registry-ca", secret=source))
        mounts.append(mount("registry-ca", REGISTRY_CA_DIR, read_only=True))
        environment.append(env(REGISTRY_CA_ENV, f"{REGISTRY_CA_DIR}/ca.crt"))
    if settings.suite_registry_auth_secret:
        items = [k8s.KeyToPath(key=".dockerconfigjson", path="config.json")]
        source = k8s.SecretVolumeSource(
            secret_name=settings.suite_registry_auth_secret, items=items, default_mode=0o444
        )
        volumes.append(k8s.Volume(name="registry-auth", secret=source))
        mounts.append(mount("registry-auth", REGISTRY_AUTH_DIR, read_only=True))
        environment.append(env("DOCKER_CONFIG", REGISTRY_AUTH_DIR))
    return RegistryAccess(volumes, mounts, environment)


def evidence_mount(read_only: bool = True) -> k8s.VolumeMount:
    """The run's evidence key's folder on the claim (volume `answers`), at EVIDENCE_DIR."""
    return mount("answers", EVIDENCE_DIR, read_only=read_only, sub_path=EVIDENCE_SUBPATH)


def _secret_ref(ref: SecretKeyRef | None, default: str | None) -> SecretKeyRef | None:
    if ref is not None:
        return ref
    if not default:
        return None
    name, _, key = default.partition("/")
    return SecretKeyRef(name=name, key=key or "token")


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


@dataclass(frozen=True)
class Token:
    """A token Secret the kubelet mounts as a file into one container; the pod spec names the Secret,
    never its value, and the operator never reads it."""

    volume: k8s.Volume
    mount: k8s.VolumeMount
    env: k8s.EnvVar


def token(role: str, ref: SecretKeyRef, variable: str) -> Token:
    items = [k8s.KeyToPath(key=ref.key, path="token")]
    source = k8s.SecretVolumeSource(secret_name=ref.name, items=items, default_mode=0o444)
    return Token(
        volume=k8s.Volume(name=f"{role}-token", secret=source),
        mount=mount(f"{role}-token", f"{SECRETS_DIR}/{role}", read_only=True),
        env=env(variable, f"{SECRETS_DIR}/{role}/token"),
    )


def pod_spec(
    settings: Settings,
    init_containers: list[k8s.Container],
    containers: list[k8s.Container],
    volumes: list[k8s.Volume],
    spread: dict[str, str] | None = None,
) -> k8s.PodSpec:
    """No service-account token (runner pods make no API call), no service links, restricted. `spread`: the
    labels of pods to spread over nodes (a soft constraint: a node that holds a ReadWriteOnce volume may
    still take them all)."""
    return k8s.PodSpec(
        restart_policy="Never",
        automount_service_account_token=False,
        enable_service_links=False,
        security_context=k8s.PodSecurityContext(
            run_as_non_root=True, seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault")
        ),
        init_containers=init_containers,
        containers=containers,
        volumes=volumes,
        service_account_name=settings.runner_service_account or None,
        topology_spread_constraints=None if spread is None else [spread_over_nodes(spread)],
    )


def spread_over_nodes(pod_labels: dict[str, str]) -> k8s.TopologySpreadConstraint:
    """At most one pod more on any node than on another, where the scheduler can: a node lost or drained
    then takes few shards with it. ScheduleAnyway, not DoNotSchedule: with a ReadWriteOnce claim every pod
    must share the volume's node, and a cluster of one node must still run them all."""
    return k8s.TopologySpreadConstraint(
        max_skew=1,
        topology_key="kubernetes.io/hostname",
        when_unsatisfiable="ScheduleAnyway",
        label_selector=k8s.SpreadSelector(match_labels=pod_labels),
    )


def failure_rules(containers: list[k8s.Container]) -> list[k8s.PodFailurePolicyRule]:
    """An eviction or preemption is not the runner's fault: retried without using the backoff. Bad input
    (exit code 2) in any of `containers` fails the Job at once: the same inputs fail the same way again. A
    sidecar (restartPolicy Always) is left out: its exit ends no pod, it is restarted."""
    ignore = k8s.PodFailurePolicyRule(
        action="Ignore", on_pod_conditions=[k8s.PodConditionPattern(type="DisruptionTarget")]
    )
    return [
        ignore,
        *(
            k8s.PodFailurePolicyRule(
                action="FailJob",
                on_exit_codes=k8s.ExitCodesRequirement(
                    container_name=c.name, operator="In", values=[EXIT_BAD_INPUT]
                ),
            )
            for c in containers
            if c.restart_policy is None
        ),
    ]


def spec_hash(spec: EvaluationSpec) -> str:
    canonical = json.dumps(spec.model_dump(mode="json", by_alias=True), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
