"""Typed shapes of the Kubernetes objects the operator builds: ConfigMaps, the runner Jobs with their pods,
the answers' PersistentVolumeClaim and the answer pods' NetworkPolicy.

Only the fields the operator sets are declared (`extra="forbid"`: a misspelt field is an error where the
object is built, not a key the apiserver drops). Builders construct these; the handlers serialise each
object once, with `body()`, into the API's JSON (camelCase, unset fields left out) just before it is sent.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ApiJson(BaseModel):
    """A model the operator sends to the API (what it builds, and the Lease it reads and writes back)."""

    def body(self) -> dict[str, Any]:
        """The API's JSON for this object: camelCase keys, fields left unset (None) omitted."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class KubeModel(ApiJson):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


class PolicyRule(TypedDict):
    """An RBAC rule as a Role's `rules` (and the chart's rule files) hold it."""

    apiGroups: list[str]
    resources: list[str]
    verbs: list[str]


class PrinterColumn(TypedDict):
    """One of a CRD's `additionalPrinterColumns` (what `kubectl get` shows)."""

    name: str
    type: Literal["string", "boolean", "date", "integer", "number"]
    jsonPath: str
    priority: NotRequired[int]


class ObjectMeta(KubeModel):
    name: str
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None


class ConfigMap(KubeModel):
    api_version: Literal["v1"] = "v1"
    kind: Literal["ConfigMap"] = "ConfigMap"
    metadata: ObjectMeta
    immutable: bool | None = None
    data: dict[str, str] | None = None
    binary_data: dict[str, str] | None = None


# --- the pod ---------------------------------------------------------------------------------------------


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


# --- the Job ---------------------------------------------------------------------------------------------


class PodConditionPattern(KubeModel):
    type: str


class ExitCodesRequirement(KubeModel):
    container_name: str
    operator: Literal["In", "NotIn"]
    values: list[int]


class PodFailurePolicyRule(KubeModel):
    action: Literal["Ignore", "FailJob", "Count", "FailIndex"]
    on_pod_conditions: list[PodConditionPattern] | None = None
    on_exit_codes: ExitCodesRequirement | None = None


class PodFailurePolicy(KubeModel):
    rules: list[PodFailurePolicyRule]


class JobSpec(KubeModel):
    active_deadline_seconds: int
    ttl_seconds_after_finished: int
    pod_failure_policy: PodFailurePolicy
    template: PodTemplateSpec
    backoff_limit: int | None = None
    """Retries of the Job's pod; an Indexed Job of shards counts them per index instead."""
    completion_mode: Literal["Indexed"] | None = None
    completions: int | None = None
    parallelism: int | None = None
    backoff_limit_per_index: int | None = None
    """Indexed: each index (shard) is retried alone, this many times."""
    suspend: bool | None = None
    """True when a queue (Kueue) admits the Job: it starts when Kueue resumes it."""


class Job(KubeModel):
    api_version: Literal["batch/v1"] = "batch/v1"
    kind: Literal["Job"] = "Job"
    metadata: ObjectMeta
    spec: JobSpec


# --- the answers' claim ------------------------------------------------------------------------------------


class VolumeResourceRequirements(KubeModel):
    requests: dict[str, str]


class PersistentVolumeClaimSpec(KubeModel):
    access_modes: list[Literal["ReadWriteOnce", "ReadWriteMany"]]
    resources: VolumeResourceRequirements
    storage_class_name: str | None = None
    """None: the cluster's default StorageClass."""


class PersistentVolumeClaim(KubeModel):
    api_version: Literal["v1"] = "v1"
    kind: Literal["PersistentVolumeClaim"] = "PersistentVolumeClaim"
    metadata: ObjectMeta
    spec: PersistentVolumeClaimSpec


# --- the answer pods' NetworkPolicy ------------------------------------------------------------------------


class LabelSelector(KubeModel):
    match_labels: dict[str, str]


class IPBlock(KubeModel):
    cidr: str


class NetworkPolicyPeer(KubeModel):
    namespace_selector: LabelSelector | None = None
    pod_selector: LabelSelector | None = None
    ip_block: IPBlock | None = None


class NetworkPolicyPort(KubeModel):
    protocol: Literal["TCP", "UDP"]
    port: int


class NetworkPolicyEgressRule(KubeModel):
    ports: list[NetworkPolicyPort]
    to: list[NetworkPolicyPeer] | None = None
    """None: any destination (on these ports)."""


class NetworkPolicySpec(KubeModel):
    pod_selector: LabelSelector
    policy_types: list[Literal["Ingress", "Egress"]]
    ingress: list[dict[str, object]]
    """Always empty: nothing may connect to the pods."""
    egress: list[NetworkPolicyEgressRule]


class NetworkPolicy(KubeModel):
    api_version: Literal["networking.k8s.io/v1"] = "networking.k8s.io/v1"
    kind: Literal["NetworkPolicy"] = "NetworkPolicy"
    metadata: ObjectMeta
    spec: NetworkPolicySpec
