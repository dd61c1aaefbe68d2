"""The answer pods' NetworkPolicy: egress only, to the peers and ports it names."""

from __future__ import annotations

from typing import Literal

from assay_operator.objects.base import KubeModel, ObjectMeta


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
