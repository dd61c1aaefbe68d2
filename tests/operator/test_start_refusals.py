"""Why a run cannot start when its pod never gets that far (pure), table-driven in the cluster's own words:
the answers claim that is not bound (the PersistentVolume controller's and the provisioners' Events, the
scheduler's unbound-claims message) and the Job whose pods admission refuses (the Job controller's
FailedCreate, a ResourceQuota's words). On the cluster: tests/operator_cluster/test_start_refusals.py."""

from __future__ import annotations

from typing import Any

import pytest

from assay_operator.evaluation.read import claims, pod_creation, starting

Obj = dict[str, Any]
CLAIM = "e-g1-answers"


def event(
    reason: str, message: str, kind: str, type_: str = "Warning", at: str = "2026-12-05T04:00:00Z"
) -> Obj:
    return {
        "type": type_,
        "reason": reason,
        "message": message,
        "lastTimestamp": at,
        "involvedObject": {"kind": kind, "name": CLAIM if kind == "PersistentVolumeClaim" else "e-g1"},
    }


def claim(phase: str = "Pending", storage_class: str | None = "fast") -> Obj:
    spec = {"storageClassName": storage_class} if storage_class else {}
    return {"metadata": {"name": CLAIM}, "spec": spec, "status": {"phase": phase}}


def runner_pod(message: str) -> Obj:
    return {
        "metadata": {"name": "e-g1-0-abcde"},
        "spec": {"volumes": [{"name": "answers", "persistentVolumeClaim": {"claimName": CLAIM}}]},
        "status": {
            "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}
            ]
        },
    }


# --- the answers claim --------------------------------------------------------------------------------------


def test_a_missing_storage_class_is_named_and_does_not_heal() -> None:
    said = event(
        "ProvisioningFailed", 'storageclass.storage.k8s.io "fast" not found', "PersistentVolumeClaim"
    )
    assert claims.concerns_a_claim(said)
    problem = claims.from_event(said, claim())
    assert problem is not None and (problem.reason, problem.heals) == ("StorageClassNotFound", False)
    assert problem.message == f"claim {CLAIM} cannot be provisioned: StorageClass 'fast' not found"


def test_a_provisioner_that_refuses_is_quoted_with_its_class() -> None:
    words = 'failed to provision volume with StorageClass "local": NodePath only supports ReadWriteOnce'
    problem = claims.from_event(event("ProvisioningFailed", words, "PersistentVolumeClaim"), claim())
    assert problem is not None and (problem.reason, problem.heals) == ("ProvisioningFailed", False)
    assert "StorageClass 'fast'" in problem.message and "only supports ReadWriteOnce" in problem.message


def test_other_claim_events_say_nothing() -> None:
    for said in (
        event("ProvisioningFailed", "x", "PersistentVolumeClaim", type_="Normal"),
        event("ExternalProvisioning", "Waiting for a volume", "PersistentVolumeClaim"),
        event("ProvisioningFailed", 'storageclass.storage.k8s.io "fast" not found', "Pod"),
    ):
        assert not claims.concerns_a_claim(said) and claims.from_event(said) is None


def test_the_scheduler_waiting_for_a_claim_names_the_claim_to_read() -> None:
    problem = starting.from_pod(
        runner_pod("0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.")
    )
    assert problem is not None and problem.reason == "Unschedulable" and problem.claim == CLAIM
    other = starting.from_pod(runner_pod("0/3 nodes are available: 3 Insufficient cpu."))
    assert other is not None and other.claim is None


def test_a_claim_read_after_the_scheduler_says_why_it_is_pending() -> None:
    events = [
        event(
            "ExternalProvisioning", "Waiting for a volume to be created", "PersistentVolumeClaim", "Normal"
        ),
        event(
            "ProvisioningFailed",
            'storageclass.storage.k8s.io "fast" not found',
            "PersistentVolumeClaim",
            at="2026-12-05T04:00:05Z",
        ),
    ]
    problem = claims.from_claim(claim(), events, "e-g1-0-abcde")
    assert problem is not None and problem.reason == "StorageClassNotFound" and not problem.heals


def test_a_claim_with_no_class_and_no_default_is_named() -> None:
    said = "no persistent volumes available for this claim and no storage class is set"
    events = [event("FailedBinding", said, "PersistentVolumeClaim", type_="Normal")]
    problem = claims.from_claim(claim(storage_class=None), events, "e-g1-0-abcde")
    assert problem is not None and (problem.reason, problem.heals) == ("StorageClassNotFound", False)
    assert "names no StorageClass" in problem.message


def test_a_claim_pending_for_no_known_reason_is_named_and_may_heal() -> None:
    latest = "Waiting for a volume to be created either by the external provisioner 'example.com/nfs'"
    events = [
        event("ExternalProvisioning", "older", "PersistentVolumeClaim", "Normal", at="2026-12-05T04:00:00Z"),
        event("ExternalProvisioning", latest, "PersistentVolumeClaim", "Normal", at="2026-12-05T04:00:30Z"),
    ]
    problem = claims.from_claim(claim(), events, "e-g1-0-abcde")
    assert problem is not None and (problem.reason, problem.heals) == ("ClaimPending", True)
    assert problem.message == (
        f"pod e-g1-0-abcde waits for claim {CLAIM} (StorageClass 'fast'), which is not bound: {latest}"
    )
    quiet = claims.from_claim(claim(), [], "p")
    assert quiet is not None and "no volume has been provisioned for it yet" in quiet.message


def test_a_bound_claim_explains_nothing() -> None:
    said = event(
        "ProvisioningFailed", 'storageclass.storage.k8s.io "fast" not found', "PersistentVolumeClaim"
    )
    assert claims.from_claim(claim("Bound"), [said], "p") is None


# --- the Job's pods refused at admission -------------------------------------------------------------------


def failed_create(why: str) -> Obj:
    return event("FailedCreate", f'Error creating: pods "e-g1-0-xyz12" is forbidden: {why}', "Job")


@pytest.mark.parametrize(
    ("why", "reason", "heals", "says"),
    [
        (
            "exceeded quota: runs, requested: cpu=500m, used: cpu=800m, limited: cpu=1",
            "QuotaExceeded",
            True,
            "ResourceQuota 'runs' refuses them, more than it has left "
            "(requested cpu=500m, used cpu=800m, limited cpu=1)",
        ),
        (
            "exceeded quota: tiny, requested: cpu=500m,pods=1, used: cpu=0,pods=0, limited: cpu=100m,pods=0",
            "QuotaExceeded",
            False,
            "ResourceQuota 'tiny' refuses them, more than it allows at all",
        ),
        (
            "failed quota: limits: must specify limits.cpu for: runner; limits.memory for: runner",
            "QuotaRefused",
            False,
            "ResourceQuota 'limits' refuses them: must specify limits.cpu for: runner",
        ),
        (
            "status unknown for quota: fresh, resources: cpu",
            "QuotaRefused",
            True,
            "'fresh' has not been counted",
        ),
        (
            'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false',
            "PodCreateRefused",
            False,
            "violates PodSecurity",
        ),
    ],
)
def test_a_refused_pod_names_what_refuses_it(why: str, reason: str, heals: bool, says: str) -> None:
    problem = pod_creation.from_event(failed_create(why))
    assert problem is not None and (problem.reason, problem.heals) == (reason, heals)
    assert problem.message.startswith("Job e-g1 cannot create its pods") and says in problem.message


def test_a_failure_that_is_no_refusal_may_heal() -> None:
    said = event("FailedCreate", "Error creating: Timeout: request did not complete within 60s", "Job")
    problem = pod_creation.from_event(said)
    assert problem is not None and problem.reason == "PodCreateRefused" and problem.heals
    assert "Error creating" not in problem.message


def test_other_job_events_say_nothing() -> None:
    assert pod_creation.from_event(event("FailedCreate", "x", "Job", type_="Normal")) is None
    assert pod_creation.from_event(event("BackoffLimitExceeded", "x", "Job")) is None
    assert pod_creation.from_event(event("FailedCreate", "x", "ReplicaSet")) is None


def test_amounts_compare_as_quantities() -> None:
    assert pod_creation.never_fits("memory=2Gi", "memory=1024Mi")
    assert not pod_creation.never_fits("memory=1Gi", "memory=1024Mi")
    assert not pod_creation.never_fits("cpu=2", "memory=1Gi")  # nothing to compare: it may fit
