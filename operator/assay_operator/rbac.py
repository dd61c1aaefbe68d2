"""The operator's permissions, as one table: what the handlers touch. The chart's Role is rendered from it and
a test checks every resource the handlers use is covered — and nothing more (no secrets, no pods/exec, no
wildcards)."""

from __future__ import annotations

from dataclasses import dataclass

from assay_operator.objects import PolicyRule


@dataclass(frozen=True)
class Permission:
    group: str
    resources: tuple[str, ...]
    verbs: tuple[str, ...]
    why: str


PERMISSIONS: tuple[Permission, ...] = (
    Permission(
        "assay.dev",
        ("evaluations",),
        ("get", "list", "watch", "patch", "create", "delete"),
        "watch Evaluations (kopf keeps its progress in their annotations); a Campaign creates, re-specs "
        "and deletes its own",
    ),
    Permission("assay.dev", ("evaluations/status",), ("get", "patch"), "write the verdict"),
    Permission(
        "assay.dev",
        ("campaigns",),
        ("get", "list", "watch", "patch"),
        "watch Campaigns (kopf keeps its progress in their annotations); remove a spent approval annotation",
    ),
    Permission("assay.dev", ("campaigns/status",), ("get", "patch"), "write the comparison and decision"),
    Permission(
        "assay.dev",
        ("evaluations/finalizers", "campaigns/finalizers"),
        ("update",),
        "children with blockOwnerDeletion need it under OwnerReferencesPermissionEnforcement (OpenShift)",
    ),
    Permission(
        "batch",
        ("jobs",),
        ("create", "get", "list", "watch", "delete"),
        "one answer Job and one judge Job per run",
    ),
    Permission(
        "",
        ("persistentvolumeclaims",),
        ("create", "get", "list", "delete"),
        "the answers volume of each generation (read to say why it is not bound); an older generation's is "
        "deleted",
    ),
    Permission(
        "networking.k8s.io",
        ("networkpolicies",),
        ("create", "get", "patch"),
        "the answer pods' egress: the gateway and DNS only",
    ),
    Permission(
        "",
        ("pods",),
        ("get", "list", "watch"),
        "read the runners' termination messages and exit states (the network probe's too)",
    ),
    Permission(
        "",
        ("configmaps",),
        ("get", "list", "watch", "create"),
        "read brains and suites (watched: one appearing wakes an Evaluation waiting for it); create "
        "snapshots and run configs",
    ),
    Permission(
        "",
        ("events",),
        ("create", "patch", "list", "watch"),
        "Events on Evaluations (kopf posts and aggregates); the Warning Events on runner pods (a missing "
        "Secret volume shows only there), on answers claims (a missing StorageClass) and on runner Jobs (a "
        "ResourceQuota that refuses the pods)",
    ),
    Permission("events.k8s.io", ("events",), ("create", "patch"), "Events through the events.k8s.io API"),
)


# Only with several replicas (ASSAY_LEADER_ELECTION), and only in the operator's own namespace (a Role there).
LEADER_ELECTION: tuple[Permission, ...] = (
    Permission(
        "coordination.k8s.io",
        ("leases",),
        ("get", "create", "update", "patch"),
        "leader election among replicas: the Lease assay-operator in the operator's own namespace",
    ),
)


def _rules(permissions: tuple[Permission, ...]) -> list[PolicyRule]:
    return [
        {"apiGroups": [p.group], "resources": list(p.resources), "verbs": list(p.verbs)} for p in permissions
    ]


def role_rules() -> list[PolicyRule]:
    return _rules(PERMISSIONS)


def leader_election_rules() -> list[PolicyRule]:
    return _rules(LEADER_ELECTION)


def allowed(group: str, resource: str, verb: str) -> bool:
    return any(p.group == group and resource in p.resources and verb in p.verbs for p in PERMISSIONS)
