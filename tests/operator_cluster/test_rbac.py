"""The operator's Role (assay_operator.rbac), as the apiserver's authorizer sees it: `kubectl auth can-i
--as=system:serviceaccount:NS:assay-operator`. What it needs is allowed; secrets, exec, tokens, wildcards,
other namespaces and cluster scope are not. (Every other test runs the operator with exactly this Role, so a
missing permission fails those; this one pins what must stay denied.)"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane

pytestmark = pytest.mark.cluster

ALLOWED = [
    ("get", "evaluations.assay.dev"),
    ("list", "evaluations.assay.dev"),
    ("watch", "evaluations.assay.dev"),
    ("patch", "evaluations.assay.dev"),
    ("patch", "evaluations.assay.dev/status"),
    ("update", "evaluations.assay.dev/finalizers"),
    # A Campaign creates, re-specs (patch) and deletes its own Evaluations.
    ("create", "evaluations.assay.dev"),
    ("delete", "evaluations.assay.dev"),
    ("get", "campaigns.assay.dev"),
    ("list", "campaigns.assay.dev"),
    ("watch", "campaigns.assay.dev"),
    ("patch", "campaigns.assay.dev"),
    ("patch", "campaigns.assay.dev/status"),
    ("update", "campaigns.assay.dev/finalizers"),
    ("create", "jobs.batch"),
    ("get", "jobs.batch"),
    ("list", "jobs.batch"),
    ("watch", "jobs.batch"),
    ("delete", "jobs.batch"),
    ("get", "pods"),
    ("list", "pods"),
    ("watch", "pods"),
    ("get", "configmaps"),
    ("list", "configmaps"),  # a ConfigMap an Evaluation waits for wakes it
    ("watch", "configmaps"),
    ("create", "configmaps"),
    ("create", "events"),
    ("list", "events"),  # the kubelet's FailedMount: the only report of a missing Secret volume
    ("watch", "events"),
    ("create", "events.events.k8s.io"),
    # Each generation's answers volume, and the answer pods' egress rule.
    ("create", "persistentvolumeclaims"),
    ("get", "persistentvolumeclaims"),
    ("list", "persistentvolumeclaims"),
    ("delete", "persistentvolumeclaims"),
    ("create", "networkpolicies.networking.k8s.io"),
    ("get", "networkpolicies.networking.k8s.io"),
    ("patch", "networkpolicies.networking.k8s.io"),
]

DENIED = [
    ("get", "secrets"),
    ("list", "secrets"),
    ("watch", "secrets"),
    ("create", "pods/exec"),
    ("create", "pods/attach"),
    ("create", "pods/portforward"),
    ("create", "pods"),
    ("delete", "pods"),
    ("create", "serviceaccounts/token"),
    ("create", "serviceaccounts"),
    ("update", "jobs.batch"),
    ("patch", "jobs.batch"),
    ("update", "configmaps"),
    ("patch", "configmaps"),
    ("delete", "configmaps"),
    ("update", "evaluations.assay.dev"),
    ("create", "campaigns.assay.dev"),
    ("delete", "campaigns.assay.dev"),
    ("update", "campaigns.assay.dev"),
    ("create", "roles.rbac.authorization.k8s.io"),
    ("create", "rolebindings.rbac.authorization.k8s.io"),
    ("escalate", "roles.rbac.authorization.k8s.io"),
    ("impersonate", "serviceaccounts"),
    ("*", "*"),
    ("get", "*"),
    ("*", "jobs.batch"),
    ("update", "persistentvolumeclaims"),
    ("patch", "persistentvolumeclaims"),
    ("delete", "networkpolicies.networking.k8s.io"),
    ("list", "networkpolicies.networking.k8s.io"),
    # A person's decisions (assay_operator.approvals): the operator records them, it cannot make them.
    ("approve", "campaigns.assay.dev"),
    ("override", "evaluations.assay.dev"),
]

CLUSTER_DENIED = [
    ("list", "namespaces"),
    ("list", "customresourcedefinitions.apiextensions.k8s.io"),
    ("list", "evaluations.assay.dev"),  # across all namespaces
    ("list", "campaigns.assay.dev"),
    ("create", "clusterrolebindings.rbac.authorization.k8s.io"),
    ("get", "nodes"),
    ("create", "persistentvolumes"),
    ("get", "persistentvolumes"),
    ("list", "storageclasses.storage.k8s.io"),
]


def can_i(control_plane: ControlPlane, account: str, where: str | None, verb: str, resource: str) -> str:
    """`kubectl auth can-i` as the operator's ServiceAccount of namespace `account`, in namespace `where`
    (None: across all namespaces)."""
    subject = f"--as=system:serviceaccount:{account}:{support.OPERATOR_SA}"
    scope = ["-n", where] if where else ["--all-namespaces"]
    # kubectl reads TYPE/NAME, so a subresource goes in --subresource (pods/exec would be the pod "exec").
    kind, _, subresource = resource.partition("/")
    extra = [f"--subresource={subresource}"] if subresource else []
    result = control_plane.kubectl("auth", "can-i", verb, kind, *extra, subject, *scope, check=False)
    answer = result.stdout.strip()
    assert answer in ("yes", "no"), result
    return answer


def test_the_operator_role_allows_what_it_needs_and_nothing_dangerous(
    control_plane: ControlPlane, crd: dict[str, Any], namespace: str
) -> None:
    support.grant_operator(control_plane.api, namespace)

    def answers(where: str | None, table: list[tuple[str, str]]) -> dict[str, str]:
        with ThreadPoolExecutor(4) as pool:
            replies = pool.map(lambda row: can_i(control_plane, namespace, where, *row), table)
            return {
                f"{verb} {resource}": reply for (verb, resource), reply in zip(table, replies, strict=True)
            }

    allowed = answers(namespace, ALLOWED)
    assert allowed == dict.fromkeys(allowed, "yes")
    denied = answers(namespace, DENIED)
    assert denied == dict.fromkeys(denied, "no")
    # Nothing in another namespace, nothing cluster-wide.
    elsewhere = answers("default", ALLOWED)
    assert elsewhere == dict.fromkeys(elsewhere, "no")
    cluster = answers(None, CLUSTER_DENIED)
    assert cluster == dict.fromkeys(cluster, "no")
