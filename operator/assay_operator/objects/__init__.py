"""Typed shapes of the Kubernetes objects the operator builds: ConfigMaps, the runner Jobs with their pods,
the answers' PersistentVolumeClaim and the answer pods' NetworkPolicy.

Only the fields the operator sets are declared (`extra="forbid"`: a misspelt field is an error where the
object is built, not a key the apiserver drops). Builders construct these; the handlers serialise each
object once, with `body()`, into the API's JSON (camelCase, unset fields left out) just before it is sent.

One module each: what every object shares and the ConfigMap (`base`), the pod (`pod`), the Job (`job`), the
answers' claim (`claim`), the NetworkPolicy (`network_policy`); every name is re-exported here.
"""

from __future__ import annotations

from assay_operator.objects.base import ApiJson, ConfigMap, KubeModel, ObjectMeta, PolicyRule, PrinterColumn
from assay_operator.objects.claim import (
    PersistentVolumeClaim,
    PersistentVolumeClaimSpec,
    VolumeResourceRequirements,
)
from assay_operator.objects.job import (
    ExitCodesRequirement,
    Job,
    JobSpec,
    PodConditionPattern,
    PodFailurePolicy,
    PodFailurePolicyRule,
)
from assay_operator.objects.network_policy import (
    IPBlock,
    LabelSelector,
    NetworkPolicy,
    NetworkPolicyEgressRule,
    NetworkPolicyPeer,
    NetworkPolicyPort,
    NetworkPolicySpec,
)
from assay_operator.objects.pod import (
    Capabilities,
    ConfigMapVolumeSource,
    Container,
    EmptyDirVolumeSource,
    EnvVar,
    EnvVarSource,
    KeyToPath,
    ObjectFieldSelector,
    PersistentVolumeClaimVolumeSource,
    PodSecurityContext,
    PodSpec,
    PodTemplateMeta,
    PodTemplateSpec,
    ResourceRequirements,
    SeccompProfile,
    SecretVolumeSource,
    SecurityContext,
    SpreadSelector,
    TopologySpreadConstraint,
    Volume,
    VolumeMount,
)

__all__ = [
    "ApiJson",
    "Capabilities",
    "ConfigMap",
    "ConfigMapVolumeSource",
    "Container",
    "EmptyDirVolumeSource",
    "EnvVar",
    "EnvVarSource",
    "ExitCodesRequirement",
    "IPBlock",
    "Job",
    "JobSpec",
    "KeyToPath",
    "KubeModel",
    "LabelSelector",
    "NetworkPolicy",
    "NetworkPolicyEgressRule",
    "NetworkPolicyPeer",
    "NetworkPolicyPort",
    "NetworkPolicySpec",
    "ObjectFieldSelector",
    "ObjectMeta",
    "PersistentVolumeClaim",
    "PersistentVolumeClaimSpec",
    "PersistentVolumeClaimVolumeSource",
    "PodConditionPattern",
    "PodFailurePolicy",
    "PodFailurePolicyRule",
    "PodSecurityContext",
    "PodSpec",
    "PodTemplateMeta",
    "PodTemplateSpec",
    "PolicyRule",
    "PrinterColumn",
    "ResourceRequirements",
    "SeccompProfile",
    "SecretVolumeSource",
    "SecurityContext",
    "SpreadSelector",
    "TopologySpreadConstraint",
    "Volume",
    "VolumeMount",
    "VolumeResourceRequirements",
]
