"""Approvals and verdict overrides with an identity the apiserver checks, on the real control plane: the
chart's ValidatingAdmissionPolicy, binding and approver role (helm template), two real users authenticated
by client certificates (alice in the approvers' group, mallory outside it, both allowed to patch Campaigns
and Evaluations), a ServiceAccount allowed to patch, and the REAL operator.

- mallory cannot approve, in her name or in alice's: refused at admission, with the reason;
- a ServiceAccount cannot approve "as alice" (the defect this closes: it could, and the status said so);
- alice cannot approve in someone else's name; approving in her own, the status records `alice`, the user
  the apiserver authenticated;
- the same for overriding an Evaluation's verdict: mallory is refused; alice's override, with her reason,
  is recorded in the status (who, why, the gate's own verdict) and flips Ready, which Flux's kstatus reads.
"""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.users import user_kubeconfig
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import campaign, condition, get_or_none, replay_spec
from tests.gitops import real_kstatus
from tests.operator_cluster.conftest import StartOperator
from tests.operator_cluster.test_campaign import wait_for_decision

pytestmark = pytest.mark.cluster
CHART = Path(__file__).resolve().parents[2] / "charts" / "assay"
Obj = dict[str, object]


def render_approvals(plane: ControlPlane, namespace: str, group: str) -> list[Obj]:
    """The chart's approval objects for a release watching `namespace`, approvers = `group`."""
    rendered = subprocess.run(
        [
            str(plane.bin_dir / "helm"),
            "template",
            "assay",
            str(CHART),
            "--namespace",
            namespace,
            "--show-only",
            "templates/approvals.yaml",
            "--set",
            f"watchNamespaces[0]={namespace}",
            "--set",
            f"approvals.groups[0]={group}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [d for d in yaml.safe_load_all(rendered) if d]


@pytest.fixture
def approvals_installed(control_plane: ControlPlane, namespace: str) -> Iterator[str]:
    """The chart's approval objects applied for this namespace; yields the approvers' group."""
    group = f"assay-approvers-{secrets.token_hex(3)}"
    objects = render_approvals(control_plane, namespace, group)
    kinds = sorted(str(o["kind"]) for o in objects)
    assert kinds == [
        "ClusterRole",
        "RoleBinding",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ]
    manifest = yaml.safe_dump_all(objects)
    control_plane.kubectl("apply", "-f", "-", input=manifest)
    try:
        yield group
    finally:
        control_plane.kubectl("delete", "--ignore-not-found", "-f", "-", input=manifest, check=False)


def editor_role(api: KubeApi, namespace: str) -> None:
    """Patch rights on Campaigns and Evaluations for every authenticated user of the namespace (the test's
    users and ServiceAccount): being able to edit must not be enough to approve."""
    base = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}"
    api.create(
        f"{base}/roles",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "editors"},
            "rules": [
                {
                    "apiGroups": ["assay.dev"],
                    "resources": ["campaigns", "evaluations"],
                    "verbs": ["get", "list", "watch", "patch", "update"],
                }
            ],
        },
    )
    api.create(
        f"{base}/rolebindings",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "editors"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "editors"},
            "subjects": [
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}
            ],
        },
    )


def annotate(
    plane: ControlPlane, kubeconfig: Path, namespace: str, target: str, *pairs: str, dry_run: bool = False
) -> subprocess.CompletedProcess[str]:
    extra = ["--dry-run=server"] if dry_run else []
    return plane.kubectl(
        "annotate", "-n", namespace, target, *pairs, "--overwrite", *extra, kubeconfig=kubeconfig, check=False
    )


def test_only_approvers_approve_and_override_in_their_own_name(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    approvals_installed: str,
    tmp_path: Path,
) -> None:
    plane, group = control_plane, approvals_installed
    assert plane.certs is not None
    alice = user_kubeconfig(plane.certs, plane.server, "alice", [group], tmp_path)
    mallory = user_kubeconfig(plane.certs, plane.server, "mallory", ["developers"], tmp_path)
    editor_role(admin, namespace)
    admin.create(f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": "pipeline"}})
    robot = plane.token_kubeconfig(namespace, "pipeline", path=tmp_path / "pipeline.kubeconfig")
    operator = operators(namespace, image=support.images().fake_runner)
    brain = brains("v1")
    agent = {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}}
    spec = {
        "suite": {"bundled": "support-desk"},
        "resources": dict(support.SMALL),
        "repetitions": 1,
        "approval": "Manual",
        # The fake runner's canned summaries: the incumbent `release-b7-okay` is Blocked (0.6), the
        # candidate `release-next` passes (0.95), so a promotion is decided and awaits approval.
        "incumbent": {"name": "b7-okay", "brain": {"configMap": {"name": brain}}, "agent": agent},
        "candidates": [{"name": "next", "brain": {"configMap": {"name": brain}}, "agent": agent}],
        "key": ["mean"],
    }
    admin.create(support.campaigns_path(namespace), campaign("release", spec))
    done = wait_for_decision(admin, namespace, "release", operator)
    target = "campaign/release"

    # The policy is in force once a refused request is refused (it takes a moment to load).
    wait_until(
        lambda: (
            annotate(
                plane, mallory, namespace, target, "assay.dev/approved-by=mallory", dry_run=True
            ).returncode
            != 0
        ),
        timeout=60,
        what="the approvals policy in force",
    )

    # --- who may approve --------------------------------------------------------------------------------
    own = annotate(plane, mallory, namespace, target, "assay.dev/approved-by=mallory")
    assert own.returncode != 0 and "may not approve promotions" in own.stderr, own.stderr
    assert "mallory" in own.stderr and "ValidatingAdmissionPolicy" in own.stderr
    spoofed = annotate(plane, mallory, namespace, target, "assay.dev/approved-by=alice")
    assert spoofed.returncode != 0 and "must be the name of the user approving: mallory" in spoofed.stderr
    as_alice = annotate(plane, robot, namespace, target, "assay.dev/approved-by=alice")
    assert as_alice.returncode != 0 and "system:serviceaccount" in as_alice.stderr
    for_bob = annotate(plane, alice, namespace, target, "assay.dev/approved-by=bob")
    assert for_bob.returncode != 0 and "must be the name of the user approving: alice" in for_bob.stderr
    refused = get_or_none(admin, support.campaigns_path(namespace, "release"))
    assert refused is not None and "assay.dev/approved-by" not in (
        refused["metadata"].get("annotations") or {}
    )

    # A promotion awaits approval: alice approves in her own name, and the status records her.
    assert (done["status"]["approval"]["state"], done["status"]["winner"]) == ("AwaitingApproval", "next")
    ok = annotate(plane, alice, namespace, target, "assay.dev/approved-by=alice")
    assert ok.returncode == 0, ok.stderr

    def approved() -> Obj | None:
        obj = get_or_none(admin, support.campaigns_path(namespace, "release"))
        approval = ((obj or {}).get("status") or {}).get("approval") or {}
        return obj if approval.get("state") == "Approved" else None

    final = wait_until(approved, timeout=60, what="the recorded approval")
    assert final["status"]["approval"]["approvedBy"] == "alice"
    assert "approved by alice" in final["status"]["message"]
    support.wait_for_events(admin, namespace, "release", {"Approved"})

    # --- who may override a verdict ----------------------------------------------------------------------
    support.create_evaluation(admin, namespace, "blocked-candidate", replay_spec(brain))
    blocked = support.wait_for_verdict(admin, namespace, "blocked-candidate", operator=operator)
    assert blocked["status"]["verdict"] == "Blocked"
    evaluation = "evaluation/blocked-candidate"
    request = [
        "override.assay.dev/verdict=Pass",
        "override.assay.dev/reason=T-003 is a known flaky ticket; release approved in CAB-1234",
    ]
    denied = annotate(plane, mallory, namespace, evaluation, *request, "override.assay.dev/by=mallory")
    assert denied.returncode != 0 and "may not override verdicts" in denied.stderr, denied.stderr
    no_reason = annotate(
        plane, alice, namespace, evaluation, "override.assay.dev/verdict=Pass", "override.assay.dev/by=alice"
    )
    assert no_reason.returncode != 0 and "non-empty override.assay.dev/reason" in no_reason.stderr
    ok = annotate(plane, alice, namespace, evaluation, *request, "override.assay.dev/by=alice")
    assert ok.returncode == 0, ok.stderr

    def overridden(obj: Obj) -> bool:
        return bool((obj.get("status") or {}).get("override"))  # type: ignore[attr-defined]

    after = support.wait_for_evaluation(
        admin, namespace, "blocked-candidate", overridden, what="the override recorded", operator=operator
    )
    status = after["status"]
    assert status["verdict"] == "Pass" and status["override"]["by"] == "alice"
    assert status["override"]["gateVerdict"] == "Blocked" and "CAB-1234" in status["override"]["reason"]
    assert status["override"]["generation"] == after["metadata"]["generation"]
    ready = condition(after, "Ready")
    assert ready is not None and (ready["status"], ready["reason"]) == ("True", "Overridden")
    assert "by override of alice" in status["message"] and "the gate's verdict: Blocked" in status["message"]
    assert real_kstatus.compute(after).status == "Current"
    support.wait_for_events(admin, namespace, "blocked-candidate", {"VerdictOverridden"})
    wait_until(
        lambda: (
            not any(
                k.startswith("override.assay.dev/")
                for k in (
                    (get_or_none(admin, support.evaluations_path(namespace, "blocked-candidate")) or {})
                    .get("metadata", {})
                    .get("annotations")
                    or {}
                )
            )
        ),
        timeout=30,
        what="the override request spent",
    )
