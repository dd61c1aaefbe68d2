"""The chart's approvals objects (templates/approvals.yaml), rendered: the ValidatingAdmissionPolicy is
assay_operator.approvals.policy() verbatim, with the release's operator ServiceAccount as the one user who may
write the status, bound to the watched namespaces (every namespace when all are
watched), and the approver role is bound to the configured groups and users in each watched namespace. The
policy's behaviour against the real apiserver: tests/operator_cluster/test_approvals.py."""

from __future__ import annotations

from typing import Any

import yaml

from assay_operator import approvals
from tests.chart.conftest import Helm

Obj = dict[str, Any]


def render(helm: Helm, *sets: str, namespace: str = "assay") -> list[Obj]:
    extra = [arg for value in sets for arg in ("--set", value)]
    text = helm.template(namespace=namespace, extra=extra)
    objects = [o for o in yaml.safe_load_all(text) if o]
    return [
        o
        for o in objects
        if o["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "approvals"
    ]


def kind(objects: list[Obj], name: str) -> list[Obj]:
    return [o for o in objects if o["kind"] == name]


def test_the_policy_is_the_operators_and_bound_to_the_watched_namespaces(helm: Helm) -> None:
    objects = render(
        helm,
        "watchNamespaces={team-a,team-b}",
        "approvals.groups={release-managers}",
        "approvals.users={alice}",
    )
    (policy,) = kind(objects, "ValidatingAdmissionPolicy")
    assert policy["spec"] == approvals.policy("system:serviceaccount:assay:assay-operator")
    assert approvals.OPERATOR_USER not in str(policy)
    status_rule = policy["spec"]["matchConstraints"]["resourceRules"][0]["resources"]
    assert {"campaigns/status", "evaluations/status"} <= set(status_rule)
    (binding,) = kind(objects, "ValidatingAdmissionPolicyBinding")
    assert binding["spec"]["policyName"] == policy["metadata"]["name"] == "assay-operator-approvals-assay"
    assert binding["spec"]["validationActions"] == ["Deny"]
    selector = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
    assert selector == [
        {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a", "team-b"]}
    ]
    (role,) = kind(objects, "ClusterRole")
    assert role["rules"] == approvals.APPROVER_RULES
    bindings = kind(objects, "RoleBinding")
    assert sorted(b["metadata"]["namespace"] for b in bindings) == ["team-a", "team-b"]
    assert bindings[0]["roleRef"]["name"] == role["metadata"]["name"]
    assert bindings[0]["subjects"] == [
        {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "release-managers"},
        {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"},
    ]


def test_all_namespaces_bind_cluster_wide(helm: Helm) -> None:
    objects = render(helm, "watchAllNamespaces=true", "approvals.groups={release-managers}")
    (binding,) = kind(objects, "ValidatingAdmissionPolicyBinding")
    assert "matchResources" not in binding["spec"]
    assert not kind(objects, "RoleBinding") and len(kind(objects, "ClusterRoleBinding")) == 1


def test_nobody_is_an_approver_by_default_and_the_policy_can_be_left_out(helm: Helm) -> None:
    objects = render(helm)
    assert len(kind(objects, "ValidatingAdmissionPolicy")) == 1
    assert not kind(objects, "RoleBinding") and not kind(objects, "ClusterRoleBinding")
    assert render(helm, "approvals.enabled=false") == []


def test_the_operator_is_the_releases_service_account(helm: Helm) -> None:
    objects = render(helm, "serviceAccount.name=evals-bot", namespace="evals")
    (policy,) = kind(objects, "ValidatingAdmissionPolicy")
    assert policy["spec"] == approvals.policy("system:serviceaccount:evals:evals-bot")


def test_the_decision_key_is_made_once_and_mounted_by_the_operator_alone(helm: Helm) -> None:
    objects = [o for o in yaml.safe_load_all(helm.template(namespace="assay", extra=[])) if o]
    (secret,) = [
        o for o in objects if o["kind"] == "Secret" and o["metadata"]["name"].endswith("decision-key")
    ]
    assert secret["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    (deployment,) = kind(objects, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (volume,) = [v for v in pod["volumes"] if v["name"] == "decision-key"]
    assert volume["secret"]["secretName"] == secret["metadata"]["name"]
    env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert env["ASSAY_DECISION_KEY_FILE"] == "/etc/assay-operator/decision-key/key"
    # No role of the chart names Secrets: the key reaches the operator as a volume, never through the API.
    for role in (o for o in objects if o["kind"] in ("Role", "ClusterRole")):
        assert not any("secrets" in rule.get("resources", []) for rule in role["rules"]), role["metadata"]
    without = [
        o
        for o in yaml.safe_load_all(
            helm.template(namespace="assay", extra=["--set", "decisionKey.generate=false"])
        )
        if o
    ]
    assert not [o for o in without if o["kind"] == "Secret"]
