"""The pod the runner Jobs run, as the operator builds it: volumes and mounts, environment, resources, the
security contexts, the containers, the spread over nodes and the template."""

from __future__ import annotations

from typing import Literal

from assay_operator.objects.base import KubeModel


class KeyToPath(KubeModel):
    key: str
    path: str


class ConfigMapVolumeSource(KubeModel):
    name: str
    items: list[KeyToPath] | None = None
    default_mode: int | None = None


class SecretVolumeSource(KubeModel):
    secret_name: str
    items: list[KeyToPath] | None = None
    default_mode: int | None = None


class EmptyDirVolumeSource(KubeModel):
    size_limit: str | None = None


class PersistentVolumeClaimVolumeSource(KubeModel):
    claim_name: str
    read_only: Literal[True] | None = None


class Volume(KubeModel):
    name: str
    config_map: ConfigMapVolumeSource | None = None
    secret: SecretVolumeSource | None = None
    empty_dir: EmptyDirVolumeSource | None = None
    persistent_volume_claim: PersistentVolumeClaimVolumeSource | None = None


class VolumeMount(KubeModel):
    name: str
    mount_path: str
    read_only: Literal[True] | None = None
    """True, or left out (the API's default, false)."""
    sub_path: str | None = None
    sub_path_expr: str | None = None
    """A subPath with `$(VAR)` taken from the container's environment (JOB_COMPLETION_INDEX)."""


class ObjectFieldSelector(KubeModel):
    field_path: str


class EnvVarSource(KubeModel):
    field_ref: ObjectFieldSelector


class EnvVar(KubeModel):
    name: str
    value: str | None = None
    value_from: EnvVarSource | None = None
    """The downward API (the pod's own uid): never a Secret's value, which is mounted as a file."""


class ResourceRequirements(KubeModel):
    requests: dict[str, str]
    limits: dict[str, str]


class Capabilities(KubeModel):
    drop: list[str]


class SecurityContext(KubeModel):
    allow_privilege_escalation: bool
    read_only_root_filesystem: bool
    run_as_non_root: bool
    capabilities: Capabilities


class SeccompProfile(KubeModel):
    type: Literal["RuntimeDefault"]


class PodSecurityContext(KubeModel):
    run_as_non_root: bool
    seccomp_profile: SeccompProfile


class Container(KubeModel):
    name: str
    image: str
    command: list[str]
    working_dir: str
    env: list[EnvVar]
    resources: ResourceRequirements
    volume_mounts: list[VolumeMount]
    termination_message_path: str
    termination_message_policy: Literal["File", "FallbackToLogsOnError"]
    security_context: SecurityContext
    restart_policy: Literal["Always"] | None = None
    """`Always` on an init container makes it a native sidecar (it runs until the pod's last container
    ends); left out everywhere else."""


class SpreadSelector(KubeModel):
    match_labels: dict[str, str]


class TopologySpreadConstraint(KubeModel):
    max_skew: int
    topology_key: str
    when_unsatisfiable: Literal["ScheduleAnyway", "DoNotSchedule"]
    label_selector: SpreadSelector


class PodSpec(KubeModel):
    restart_policy: Literal["Never"]
    automount_service_account_token: bool
    enable_service_links: bool
    security_context: PodSecurityContext
    init_containers: list[Container]
    containers: list[Container]
    volumes: list[Volume]
    service_account_name: str | None = None
    topology_spread_constraints: list[TopologySpreadConstraint] | None = None


class PodTemplateMeta(KubeModel):
    labels: dict[str, str]


class PodTemplateSpec(KubeModel):
    metadata: PodTemplateMeta
    spec: PodSpec
