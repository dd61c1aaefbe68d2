"""Approvals and verdict overrides with an identity the apiserver checks, bound to what they decide on, on
the real control plane: the chart's ValidatingAdmissionPolicy, binding and approver role (helm template),
two real users authenticated by client certificates (alice in the approvers' group, mallory outside it, both
allowed to patch Campaigns and Evaluations and their status subresource), a ServiceAccount allowed to patch,
and the REAL operator.

- mallory cannot approve, in her name or in alice's: refused at admission, with the reason;
- a ServiceAccount cannot approve "as alice" (the defect this closes: it could, and the status said so);
- alice cannot approve in someone else's name, nor without naming the generation and winner; approving
  `alice@g1:next`, the status records `alice`, the user the apiserver authenticated;
- the same for overriding an Evaluation's verdict: mallory is refused; alice's override, with her reason,
  is recorded in the status (who, why, the gate's own verdict) and flips Ready, which Flux's kstatus reads;
- nobody but the operator writes the status: an approval or override written through the status
  subresource is refused, for mallory, alice and the cluster admin alike (issue 43: it was admitted and the
  operator believed it); one written while the policy is absent is undone by the operator, with an Event
  naming the field manager that wrote it;
- an approval of generation 1 never approves generation 2, also when given while the operator was down and
  the spec changed before it came back;
- the gate's own verdict is the operator's alone too: a Blocked Evaluation flipped to Pass with the policy
  absent (verdict, score and Ready, no override) is restored from its judge Job, and failed closed to
  Blocked (DecisionReverted) once that Job is gone, each time with an Event naming the field manager.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import time
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
                    # The status subresource too (a role written with resources: ["*"] grants it).
                    "resources": ["campaigns", "evaluations", "campaigns/status", "evaluations/status"],
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


def patch_status(
    plane: ControlPlane,
    kubeconfig: Path | None,
    namespace: str,
    target: str,
    status: Obj,
    dry_run: bool = False,
) -> subprocess.CompletedProcess[str]:
    return plane.kubectl(
        "patch",
        "-n",
        namespace,
        target,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"status": status}),
        *(["--dry-run=server"] if dry_run else []),
        kubeconfig=kubeconfig,
        check=False,
    )


MANUAL_SPEC_AGENT = {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}}


def manual_campaign(admin: KubeApi, namespace: str, brain: str, operator: support.OperatorProcess) -> Obj:
    """A Campaign under `approval: Manual` whose promotion of `next` awaits approval (generation 1)."""
    spec = {
        "suite": {"bundled": "support-desk"},
        "resources": dict(support.SMALL),
        "repetitions": 1,
        "approval": "Manual",
        # The fake runner's canned summaries: the incumbent `release-b7-okay` is Blocked (0.6), the
        # candidate `release-next` passes (0.95), so a promotion is decided and awaits approval.
        "incumbent": {"name": "b7-okay", "brain": {"configMap": {"name": brain}}, "agent": MANUAL_SPEC_AGENT},
        "candidates": [{"name": "next", "brain": {"configMap": {"name": brain}}, "agent": MANUAL_SPEC_AGENT}],
        "key": ["mean"],
    }
    admin.create(support.campaigns_path(namespace), campaign("release", spec))
    done = wait_for_decision(admin, namespace, "release", operator)
    assert (done["status"]["approval"]["state"], done["status"]["winner"]) == ("AwaitingApproval", "next")
    assert done["status"]["approval"]["generation"] == 1
    return done


def approval_of(admin: KubeApi, namespace: str, name: str = "release") -> Obj:
    obj = get_or_none(admin, support.campaigns_path(namespace, name)) or {}
    return dict((obj.get("status") or {}).get("approval") or {})


def wait_for_approval(admin: KubeApi, namespace: str, state: str, generation: int) -> Obj:
    def probe() -> Obj | None:
        approval = approval_of(admin, namespace)
        return (
            approval if (approval.get("state"), approval.get("generation")) == (state, generation) else None
        )

    return wait_until(
        probe,
        timeout=90,
        what=f"status.approval {state} for generation {generation}",
        describe=lambda: str(approval_of(admin, namespace)),
    )


def event_messages(admin: KubeApi, namespace: str, name: str, reason: str) -> list[str]:
    return [
        str(e.get("message")) for e in support.events_for(admin, namespace, name) if e["reason"] == reason
    ]


def policy_in_force(plane: ControlPlane, kubeconfig: Path, namespace: str, target: str) -> None:
    """The policy is in force once a refused request is refused (it takes a moment to load)."""
    wait_until(
        lambda: (
            annotate(
                plane, kubeconfig, namespace, target, "assay.dev/approved-by=mallory@g1:next", dry_run=True
            ).returncode
            != 0
        ),
        timeout=60,
        what="the approvals policy in force",
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
    manual_campaign(admin, namespace, brain, operator)
    target = "campaign/release"
    policy_in_force(plane, mallory, namespace, target)

    # --- who may approve --------------------------------------------------------------------------------
    own = annotate(plane, mallory, namespace, target, "assay.dev/approved-by=mallory@g1:next")
    assert own.returncode != 0 and "may not approve promotions" in own.stderr, own.stderr
    assert "mallory" in own.stderr and "ValidatingAdmissionPolicy" in own.stderr
    spoofed = annotate(plane, mallory, namespace, target, "assay.dev/approved-by=alice@g1:next")
    assert spoofed.returncode != 0 and "winner awaiting approval: mallory@g1:next" in spoofed.stderr
    as_alice = annotate(plane, robot, namespace, target, "assay.dev/approved-by=alice@g1:next")
    assert as_alice.returncode != 0 and "system:serviceaccount" in as_alice.stderr
    for_bob = annotate(plane, alice, namespace, target, "assay.dev/approved-by=bob@g1:next")
    assert for_bob.returncode != 0 and "winner awaiting approval: alice@g1:next" in for_bob.stderr
    # An approval names what it approves: the generation and the winner awaiting approval.
    for unbound in ("alice", "alice@g2:next", "alice@g1:b7-okay"):
        refused = annotate(plane, alice, namespace, target, f"assay.dev/approved-by={unbound}")
        assert refused.returncode != 0 and "alice@g1:next" in refused.stderr, (unbound, refused.stderr)
    left = get_or_none(admin, support.campaigns_path(namespace, "release"))
    assert left is not None and "assay.dev/approved-by" not in (left["metadata"].get("annotations") or {})

    # A promotion awaits approval: alice approves in her own name, and the status records her.
    ok = annotate(plane, alice, namespace, target, "assay.dev/approved-by=alice@g1:next")
    assert ok.returncode == 0, ok.stderr
    approved = wait_for_approval(admin, namespace, "Approved", 1)
    assert approved["approvedBy"] == "alice" and approved["winner"] == "next" and approved["seal"]
    final = get_or_none(admin, support.campaigns_path(namespace, "release"))
    assert final is not None and "approved by alice" in final["status"]["message"]
    support.wait_for_events(admin, namespace, "release", {"Approved"})
    # Nothing awaits approval any more: a second approval is refused at admission.
    again = annotate(plane, alice, namespace, target, "assay.dev/approved-by=alice@g1:next")
    assert again.returncode != 0 and "no promotion of generation 1 awaits approval" in again.stderr

    # --- who may override a verdict ----------------------------------------------------------------------
    support.create_evaluation(admin, namespace, "blocked-candidate", replay_spec(brain))
    blocked = support.wait_for_verdict(admin, namespace, "blocked-candidate", operator=operator)
    assert blocked["status"]["verdict"] == "Blocked"
    evaluation = "evaluation/blocked-candidate"
    request = [
        "override.assay.dev/verdict=Pass",
        "override.assay.dev/reason=T-003 is a known flaky ticket; release approved in CAB-1234",
    ]
    denied = annotate(
        plane, mallory, namespace, evaluation, *request, "override.assay.dev/by=mallory@g1:Blocked"
    )
    assert denied.returncode != 0 and "may not override verdicts" in denied.stderr, denied.stderr
    no_reason = annotate(
        plane,
        alice,
        namespace,
        evaluation,
        "override.assay.dev/verdict=Pass",
        "override.assay.dev/by=alice@g1:Blocked",
    )
    assert no_reason.returncode != 0 and "non-empty override.assay.dev/reason" in no_reason.stderr
    # An override names the generation and the verdict it overrides.
    for unbound in ("alice", "alice@g1:Pass", "alice@g2:Blocked"):
        refused = annotate(plane, alice, namespace, evaluation, *request, f"override.assay.dev/by={unbound}")
        assert refused.returncode != 0 and "verdict overridden: alice@g1:Blocked" in refused.stderr, unbound
    ok = annotate(plane, alice, namespace, evaluation, *request, "override.assay.dev/by=alice@g1:Blocked")
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


FORGED_APPROVAL: Obj = {
    "state": "Approved",
    "winner": "next",
    "generation": 1,
    "approvedBy": "alice",
    "approvedAt": "2026-12-05T00:00:00Z",
}


def forged_override(generation: int) -> Obj:
    """What issue 43's status writer set on a Blocked Evaluation: a complete override "by alice"."""
    return {
        "verdict": "Pass",
        "override": {
            "verdict": "Pass",
            "gateVerdict": "Blocked",
            "reason": "looks fine",
            "by": "alice",
            "at": "2026-12-05T00:00:00Z",
            "generation": generation,
        },
        "message": "Pass by override of alice",
    }


def test_only_the_operator_writes_decisions_into_the_status(
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
    operator = operators(namespace, image=support.images().fake_runner)
    brain = brains("v1")
    manual_campaign(admin, namespace, brain, operator)
    support.create_evaluation(admin, namespace, "blocked-candidate", replay_spec(brain))
    blocked = support.wait_for_verdict(admin, namespace, "blocked-candidate", operator=operator)
    assert blocked["status"]["verdict"] == "Blocked"
    campaign_target, evaluation_target = "campaign/release", "evaluation/blocked-candidate"
    policy_in_force(plane, mallory, namespace, campaign_target)

    # --- at admission: the status subresource is the operator's alone ----------------------------------
    # mallory may patch campaigns/status (RBAC), alice is an approver, the admin is in system:masters: the
    # policy refuses them all (it binds every user, unlike RBAC).
    for who, kubeconfig in (("mallory", mallory), ("alice", alice), ("admin", None)):
        approval = patch_status(plane, kubeconfig, namespace, campaign_target, {"approval": FORGED_APPROVAL})
        assert approval.returncode != 0, (who, approval.stdout)
        assert "only the operator writes the status of campaigns" in approval.stderr, (who, approval.stderr)
        override = patch_status(plane, kubeconfig, namespace, evaluation_target, forged_override(1))
        assert override.returncode != 0, (who, override.stdout)
        assert "only the operator writes the status of evaluations" in override.stderr, (who, override.stderr)
    ready = patch_status(
        plane,
        mallory,
        namespace,
        evaluation_target,
        {"conditions": [{**condition(blocked, "Ready"), "status": "True"}]},  # type: ignore[dict-item]
    )
    assert ready.returncode != 0 and "only the operator writes" in ready.stderr
    assert approval_of(admin, namespace)["state"] == "AwaitingApproval"
    still = get_or_none(admin, support.evaluations_path(namespace, "blocked-candidate"))
    assert still is not None and still["status"]["verdict"] == "Blocked" and "override" not in still["status"]

    # --- around admission: the policy's binding removed, a cluster admin writes the decisions -------------
    bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
    binding = f"{bindings}/assay-operator-approvals-{namespace}"
    admin.request("DELETE", binding)
    wait_until(
        lambda: (
            patch_status(plane, None, namespace, campaign_target, {"approval": FORGED_APPROVAL}).returncode
            == 0
        ),
        timeout=60,
        what="a status write admitted without the policy's binding",
    )
    # The operator finds the approval it did not seal and undoes it, naming the field manager that wrote it.
    written = time.monotonic()
    wait_until(
        lambda: event_messages(admin, namespace, "release", "DecisionReverted"),
        timeout=60,
        what="the DecisionReverted Event on the Campaign",
    )
    (reverted,) = event_messages(admin, namespace, "release", "DecisionReverted")[:1]
    assert "status.approval (Approved of next, generation 1, by alice)" in reverted
    assert "kubectl-patch" in reverted, reverted
    undone = wait_for_approval(admin, namespace, "AwaitingApproval", 1)
    assert "approvedBy" not in undone
    print(f"forged approval undone {time.monotonic() - written:.1f} s after the write was admitted")
    released = get_or_none(admin, support.campaigns_path(namespace, "release"))
    assert released is not None
    ready_condition = condition(released, "Ready")
    assert ready_condition is not None and (ready_condition["status"], ready_condition["reason"]) == (
        "False",
        "AwaitingApproval",
    )

    # The same for a complete override "by alice" on the Blocked Evaluation.
    forged = patch_status(plane, None, namespace, evaluation_target, forged_override(1))
    assert forged.returncode == 0, forged.stderr
    written = time.monotonic()

    def override_undone(obj: Obj) -> bool:
        status = obj.get("status")
        return isinstance(status, dict) and "override" not in status and status.get("verdict") == "Blocked"

    after = support.wait_for_evaluation(
        admin,
        namespace,
        "blocked-candidate",
        override_undone,
        what="the forged override undone",
        operator=operator,
    )
    print(f"forged override undone {time.monotonic() - written:.1f} s after the write was admitted")
    ready_condition = condition(after, "Ready")
    assert ready_condition is not None and (ready_condition["status"], ready_condition["reason"]) == (
        "False",
        "DecisionReverted",
    )
    assert real_kstatus.compute(after).status != "Current"
    messages = event_messages(admin, namespace, "blocked-candidate", "DecisionReverted")
    assert messages and "status.override (Pass by alice, generation 1)" in messages[0]
    assert "kubectl-patch" in messages[0]


def flipped_to_pass(obj: Obj, score: float) -> Obj:
    """What a status writer around admission sets on a Blocked Evaluation to make it pass, without an
    override: the verdict, the score, and Ready (what kstatus, Argo CD and `kubectl wait` read)."""
    status = obj["status"]
    assert isinstance(status, dict)
    flipped = [
        {**c, "status": "True", "reason": "Passed"} if c["type"] == "Ready" else c
        for c in status["conditions"]
    ]
    return {"verdict": "Pass", "score": score, "conditions": flipped, "message": "Pass: looks fine"}


def test_a_verdict_flipped_around_admission_is_restored_by_the_operator(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    approvals_installed: str,
) -> None:
    plane = control_plane
    operator = operators(namespace, image=support.images().fake_runner)
    support.create_evaluation(admin, namespace, "blocked-gate", replay_spec(brains("v1")))
    blocked = support.wait_for_verdict(admin, namespace, "blocked-gate", operator=operator)
    gate = blocked["status"]
    assert gate["verdict"] == "Blocked" and gate.get("verdictSeal")
    target, path = "evaluation/blocked-gate", support.evaluations_path(namespace, "blocked-gate")
    # With the policy in force (it takes a moment to load) even the cluster admin is refused.
    wait_until(
        lambda: (
            "only the operator writes the status of evaluations"
            in patch_status(
                plane, None, namespace, target, flipped_to_pass(blocked, 0.99), dry_run=True
            ).stderr
        ),
        timeout=60,
        what="the approvals policy in force",
    )
    assert admin.get(path)["status"]["verdict"] == "Blocked"

    admin.request(
        "DELETE",
        f"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/"
        f"assay-operator-approvals-{namespace}",
    )
    wait_until(
        lambda: patch_status(plane, None, namespace, target, flipped_to_pass(blocked, 0.99)).returncode == 0,
        timeout=60,
        what="a status write admitted without the policy's binding",
    )
    written = time.monotonic()

    # The judge Job is still there: the operator re-derives the gate's verdict from its result.
    def restored(obj: Obj) -> bool:
        status = obj.get("status")
        ready = condition(obj, "Ready")
        return (
            isinstance(status, dict)
            and status.get("verdict") == "Blocked"
            and status.get("score") == gate.get("score")
            and ready is not None
            and ready["status"] == "False"
        )

    after = support.wait_for_evaluation(
        admin, namespace, "blocked-gate", restored, what="the gate's verdict restored", operator=operator
    )
    print(f"flipped verdict restored {time.monotonic() - written:.1f} s after the write was admitted")
    assert after["status"]["verdictSeal"] and after["status"]["judges"] == gate["judges"]
    said, now = condition(blocked, "Ready"), condition(after, "Ready")
    assert said is not None and now is not None
    assert [now[k] for k in ("status", "reason", "message")] == [
        said[k] for k in ("status", "reason", "message")
    ]
    assert real_kstatus.compute(after).status != "Current"
    wait_until(
        lambda: event_messages(admin, namespace, "blocked-gate", "DecisionReverted"),
        timeout=30,
        what="the DecisionReverted Event",
    )
    (message,) = event_messages(admin, namespace, "blocked-gate", "DecisionReverted")
    assert "verdict Pass, score 0.99, Ready True (Passed)" in message, message
    assert "kubectl-patch" in message and f"restored from the run's judge Job {gate['jobName']}" in message

    # Without the judge Job (deleted, as its TTL does) there is nothing to re-derive from: Blocked.
    admin.delete(support.jobs_path(namespace, gate["jobName"]), {"propagationPolicy": "Foreground"})
    wait_until(
        lambda: get_or_none(admin, support.jobs_path(namespace, gate["jobName"])) is None,
        timeout=60,
        what="the judge Job gone",
    )
    forged = patch_status(plane, None, namespace, target, flipped_to_pass(after, 0.98))
    assert forged.returncode == 0, forged.stderr

    def failed_closed(obj: Obj) -> bool:
        ready = condition(obj, "Ready")
        return ready is not None and (ready["status"], ready["reason"]) == ("False", "DecisionReverted")

    closed = support.wait_for_evaluation(
        admin, namespace, "blocked-gate", failed_closed, what="the verdict failed closed", operator=operator
    )
    assert closed["status"]["verdict"] == "Blocked" and "score" not in closed["status"]
    assert real_kstatus.compute(closed).status != "Current"
    messages = event_messages(admin, namespace, "blocked-gate", "DecisionReverted")
    assert any("verdict Pass, score 0.98" in m and "until the Evaluation runs again" in m for m in messages)
    # The operator's own writes verify: after every event queued so far, no third undo, still Blocked.
    support.barrier(admin, namespace, operator)
    assert len(event_messages(admin, namespace, "blocked-gate", "DecisionReverted")) == 2
    assert admin.get(path)["status"]["verdict"] == "Blocked"


def test_an_approval_of_one_generation_never_approves_the_next(
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
    operator = operators(namespace, image=support.images().fake_runner)
    manual_campaign(admin, namespace, brains("v1"), operator)
    target, path = "campaign/release", support.campaigns_path(namespace, "release")
    policy_in_force(plane, mallory, namespace, target)

    # While the operator is down, alice approves generation 1 (admitted: it awaits approval), then an
    # editor who may not approve changes the spec (maxParallel: the Evaluations stay as they are, so the
    # same promotion is decided again, at once, for generation 2).
    operator.stop()
    ok = annotate(plane, alice, namespace, target, "assay.dev/approved-by=alice@g1:next")
    assert ok.returncode == 0, ok.stderr
    edited = plane.kubectl(
        "patch",
        "-n",
        namespace,
        target,
        "--type=merge",
        "-p",
        '{"spec": {"maxParallel": 3}}',
        kubeconfig=mallory,
        check=False,
    )
    assert edited.returncode == 0, edited.stderr
    assert (get_or_none(admin, path) or {})["metadata"]["generation"] == 2
    operator.start()

    waiting = wait_for_approval(admin, namespace, "AwaitingApproval", 2)
    assert waiting["winner"] == "next" and "approvedBy" not in waiting
    support.wait_for_events(admin, namespace, "release", {"ApprovalIgnored"}, timeout=60)
    ignored = event_messages(admin, namespace, "release", "ApprovalIgnored")
    assert any("decides on generation 1, not on generation 2" in m for m in ignored), ignored
    wait_until(
        lambda: (
            "assay.dev/approved-by"
            not in ((get_or_none(admin, path) or {})["metadata"].get("annotations") or {})
        ),
        timeout=30,
        what="the stale approval spent",
    )
    obj = get_or_none(admin, path)
    assert obj is not None
    ready = condition(obj, "Ready")
    assert ready is not None and (ready["status"], ready["reason"]) == ("False", "AwaitingApproval")
    assert "alice@g1" not in json.dumps(obj["status"])

    # Approved for generation 2, the approval does not survive a change to generation 3 either.
    stale = annotate(plane, alice, namespace, target, "assay.dev/approved-by=alice@g1:next")
    assert stale.returncode != 0 and "alice@g2:next" in stale.stderr
    ok = annotate(plane, alice, namespace, target, "assay.dev/approved-by=alice@g2:next")
    assert ok.returncode == 0, ok.stderr
    assert wait_for_approval(admin, namespace, "Approved", 2)["approvedBy"] == "alice"
    edited = plane.kubectl(
        "patch",
        "-n",
        namespace,
        target,
        "--type=merge",
        "-p",
        '{"spec": {"maxParallel": 4}}',
        kubeconfig=mallory,
        check=False,
    )
    assert edited.returncode == 0, edited.stderr
    later = wait_for_approval(admin, namespace, "AwaitingApproval", 3)
    assert "approvedBy" not in later
