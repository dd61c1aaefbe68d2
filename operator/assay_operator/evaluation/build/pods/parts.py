"""The parts both runner pods are made of (pure): volumes, mounts, environment, the runner container, the
pod's own settings, its spread and failure rules, and the spec's hash."""

from __future__ import annotations

import hashlib
import json

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec, ResourcesSpec
from assay_operator.evaluation.build.layout import (
    EVIDENCE_DIR,
    EVIDENCE_SUBPATH,
    TERMINATION_LOG,
    TMP_DIR,
    WORK_DIR,
)
from assay_operator.settings import Settings
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


def evidence_mount(read_only: bool = True) -> k8s.VolumeMount:
    """The run's evidence key's folder on the claim (volume `answers`), at EVIDENCE_DIR."""
    return mount("answers", EVIDENCE_DIR, read_only=read_only, sub_path=EVIDENCE_SUBPATH)


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
