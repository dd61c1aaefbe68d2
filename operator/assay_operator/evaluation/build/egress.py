"""The answer pods' NetworkPolicy (pure): one per Evaluation, owned by it, selecting its answer pods only.
No ingress; egress only to DNS and to the gateway (and to the suite registry, for a `suite.oci`).

Why: NetworkPolicy applies to whole pods, and the judge pod must reach MLflow, whose earlier results hold
answer keys. With the agents in pods of their own, this policy keeps them away from MLflow and from every
other in-cluster service: what they can reach is the gateway (the model calls they are there to make).

NetworkPolicy has no host-name rules. The gateway is allowed by the operator's setting (namespace and pod
selectors or CIDRs, the chart's networkPolicy.gateway), and when the gateway URL names an IP address, by
that address and port too. With neither, the pods get DNS only: fail closed, and the operator warns.
Enforcement is the cluster's network plugin's: a cluster without one (the local control plane among them)
applies nothing.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from assay_operator import objects as k8s
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build.names import (
    ANSWER,
    LABEL_COMPONENT,
    LABEL_EVALUATION,
    LABEL_MANAGED_BY,
    MANAGED_BY,
    answer_policy_name,
    evaluation_label,
    labels,
)
from assay_operator.settings import NetworkPeers, Settings


def _selector(match: dict[str, str]) -> k8s.LabelSelector:
    return k8s.LabelSelector(match_labels=dict(match))


def _tcp(ports: tuple[int, ...]) -> list[k8s.NetworkPolicyPort]:
    return [k8s.NetworkPolicyPort(protocol="TCP", port=port) for port in ports]


def _by_setting(peers: NetworkPeers) -> k8s.NetworkPolicyEgressRule | None:
    if not peers.named:
        return None
    to = []
    if peers.namespace_selector or peers.pod_selector:
        to.append(
            k8s.NetworkPolicyPeer(
                namespace_selector=_selector(peers.namespace_selector) if peers.namespace_selector else None,
                pod_selector=_selector(peers.pod_selector) if peers.pod_selector else None,
            )
        )
    to += [k8s.NetworkPolicyPeer(ip_block=k8s.IPBlock(cidr=cidr)) for cidr in peers.cidrs]
    return k8s.NetworkPolicyEgressRule(to=to, ports=_tcp(peers.ports))


def _by_address(url: str | None) -> k8s.NetworkPolicyEgressRule | None:
    """The gateway URL's own address and port, when it names an IP address (a host name cannot be a rule)."""
    if not url:
        return None
    parts = urlsplit(url)
    try:
        address = ipaddress.ip_address(parts.hostname or "")
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    cidr = f"{address}/{address.max_prefixlen}"
    return k8s.NetworkPolicyEgressRule(
        to=[k8s.NetworkPolicyPeer(ip_block=k8s.IPBlock(cidr=cidr))], ports=_tcp((port,))
    )


def gateway_rules(spec: EvaluationSpec, settings: Settings) -> list[k8s.NetworkPolicyEgressRule]:
    found = [_by_setting(settings.gateway_network), _by_address(spec.gateway or settings.default_gateway)]
    return [rule for rule in found if rule is not None]


def registry_rules(spec: EvaluationSpec, settings: Settings) -> list[k8s.NetworkPolicyEgressRule]:
    """The suite registry, for an Evaluation whose suite is an OCI artifact only: its answer pods' init
    container pulls it (the answer container, where the agents run, holds no credential for it)."""
    rule = _by_setting(settings.suite_registry_network) if spec.suite.oci is not None else None
    return [rule] if rule is not None else []


def build_answer_policy(spec: EvaluationSpec, evaluation: str, settings: Settings) -> k8s.NetworkPolicy:
    dns = k8s.NetworkPolicyEgressRule(
        ports=[
            k8s.NetworkPolicyPort(protocol=p, port=port)
            for port in settings.dns_ports
            for p in ("UDP", "TCP")
        ]
    )
    selected = {
        LABEL_EVALUATION: evaluation_label(evaluation),
        LABEL_COMPONENT: ANSWER,
        LABEL_MANAGED_BY: MANAGED_BY,
    }
    return k8s.NetworkPolicy(
        metadata=k8s.ObjectMeta(
            name=answer_policy_name(evaluation), labels=labels(evaluation, component="answer-egress")
        ),
        spec=k8s.NetworkPolicySpec(
            pod_selector=_selector(selected),
            policy_types=["Ingress", "Egress"],
            ingress=[],
            egress=[dns, *gateway_rules(spec, settings), *registry_rules(spec, settings)],
        ),
    )
