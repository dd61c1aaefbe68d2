"""Runs whose pods never get as far as the kubelet, on the real control plane: the REAL operator names what
stops them in StartBlocked (and the State column of `kubectl get evaluations`), from the cluster's own
reports, and ends the run Stalled after the grace period when it cannot heal by itself:

- a StorageClass that does not exist: the real PersistentVolume controller's ProvisioningFailed on the
  answers claim (the claim stays Pending; the local kubelet's pods wait for it, as a scheduler would);
- a ResourceQuota that refuses the pods: the real quota admission (its usage counted by the real
  ResourceQuota controller) refuses each pod the real Job controller creates, which says so only in its
  FailedCreate Events on the Job.

"Within a minute" is the wait's timeout: each test waits for the condition for at most 60 s.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import Obj, condition, condition_status, replay_spec
from tests.gitops import real_kstatus
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster
GRACE = 20
"""ASSAY_POD_START_GRACE_SECONDS here: long enough to see StartBlocked first, short enough to see the
stall."""
NAMED_WITHIN = 60


def blocked_by(reason: str) -> Callable[[Obj], bool]:
    def probe(obj: Obj) -> bool:
        found = condition(obj, "StartBlocked")
        return found is not None and (found["status"], found["reason"]) == ("True", reason)

    return probe


def state_column(control_plane: ControlPlane, namespace: str, name: str) -> str:
    """The State column as `kubectl get evaluations` prints it (the CRD's printer columns), cut out of the
    row at the header's offsets (an empty column prints blank or <none>)."""
    header, row = control_plane.kubectl("get", "evaluations", "-n", namespace, name).stdout.splitlines()[:2]
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    titles = header.split()
    assert titles[:5] == ["NAME", "VERDICT", "SCORE", "READY", "STATE"], titles
    at = titles.index("STATE")
    return row[starts[at] : starts[at + 1]].strip()


def assert_stalled_with(obj: Obj, reason: str, names: str) -> None:
    assert obj["status"]["verdict"] == "Blocked", support.summarize(obj)
    stalled = condition(obj, "Stalled")
    assert stalled is not None and (stalled["status"], stalled["reason"]) == ("True", reason), stalled
    assert names in stalled["message"] and "rerun.assay.dev/token" in stalled["message"]
    assert condition_status(obj, "StartBlocked") == "False"
    assert condition_status(obj, "Reconciling") == "False"
    assert real_kstatus.compute(obj).status == "Failed"


def test_a_missing_storage_class_is_named_then_the_run_stalls(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    operator = operators(namespace, env={"ASSAY_POD_START_GRACE_SECONDS": str(GRACE)})
    spec = replay_spec(brains("v1"), storage={"storageClassName": "no-such-class"})
    created = time.monotonic()
    support.create_evaluation(admin, namespace, "no-class", spec)

    reported = support.wait_for_evaluation(
        admin,
        namespace,
        "no-class",
        blocked_by("StorageClassNotFound"),
        timeout=NAMED_WITHIN,
        what="StartBlocked StorageClassNotFound",
        operator=operator,
    )
    print(f"missing StorageClass named {time.monotonic() - created:.1f} s after the Evaluation was created")
    claim = reported["status"]["answer"]["claimName"]
    blocked = condition(reported, "StartBlocked")
    assert blocked is not None
    assert (
        f"claim {claim} cannot be provisioned: StorageClass 'no-such-class' not found" in blocked["message"]
    )
    assert "ends Stalled at" in blocked["message"]
    assert condition_status(reported, "Reconciling") == "True"  # still in progress until the grace ends
    assert real_kstatus.compute(reported).status == "InProgress"
    assert state_column(control_plane, namespace, "no-class") == "StorageClassNotFound"
    # The cluster said it on the claim, and nowhere else: the claim is Pending, the controller's Event names
    # the class.
    found = admin.get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{claim}")
    assert found["status"]["phase"] == "Pending"
    provisioning = [
        e for e in support.events_for(admin, namespace, claim) if e["reason"] == "ProvisioningFailed"
    ]
    assert (
        provisioning and 'storageclass.storage.k8s.io "no-such-class" not found' in provisioning[0]["message"]
    )

    stalled = support.wait_for_verdict(admin, namespace, "no-class", timeout=GRACE + 60, operator=operator)
    assert_stalled_with(stalled, "StorageClassNotFound", "'no-such-class'")
    job = stalled["status"]["answer"]["jobName"]
    wait_until(
        lambda: support.get_or_none(admin, support.jobs_path(namespace, job)) is None,
        timeout=30,
        what=f"Job {job} deleted",
    )
    support.wait_for_events(admin, namespace, "no-class", {"StorageClassNotFound"})


def quota(name: str, hard: dict[str, str]) -> Obj:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": {"hard": hard}}


def test_a_resource_quota_that_refuses_the_pods_is_named_then_the_run_stalls(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    """A quota below one runner pod's request: no pod is ever created, so nothing but the Job's Events says
    why; the pod alone is over the limit, so waiting cannot help and the run stalls after the grace."""
    base = f"/api/v1/namespaces/{namespace}/resourcequotas"
    admin.create(base, quota("runner-cpu", {"requests.cpu": "100m"}))
    # Admission enforces the quota once the ResourceQuota controller has counted it.
    wait_until(
        lambda: "requests.cpu" in (admin.get(f"{base}/runner-cpu").get("status") or {}).get("used", {}),
        timeout=30,
        what="the quota counted",
    )
    operator = operators(namespace, env={"ASSAY_POD_START_GRACE_SECONDS": str(GRACE)})
    created = time.monotonic()
    support.create_evaluation(admin, namespace, "over-quota", replay_spec(brains("v1")))

    reported = support.wait_for_evaluation(
        admin,
        namespace,
        "over-quota",
        blocked_by("QuotaExceeded"),
        timeout=NAMED_WITHIN,
        what="StartBlocked QuotaExceeded",
        operator=operator,
    )
    print(f"refusing ResourceQuota named {time.monotonic() - created:.1f} s after the Evaluation was created")
    job = reported["status"]["answer"]["jobName"]
    blocked = condition(reported, "StartBlocked")
    assert blocked is not None
    message = blocked["message"]
    assert f"Job {job} cannot create its pods: ResourceQuota 'runner-cpu' refuses them" in message, message
    assert "limited requests.cpu=100m" in message and "ends Stalled at" in message
    assert state_column(control_plane, namespace, "over-quota") == "QuotaExceeded"
    # The cluster said it only on the Job: no pod exists.
    assert support.pods_of_job(admin, namespace, job) == []
    refused = [
        e["message"] for e in support.events_for(admin, namespace, job) if e["reason"] == "FailedCreate"
    ]
    assert refused and all("exceeded quota: runner-cpu" in m for m in refused), refused

    stalled = support.wait_for_verdict(admin, namespace, "over-quota", timeout=GRACE + 60, operator=operator)
    assert_stalled_with(stalled, "QuotaExceeded", "'runner-cpu'")
    support.wait_for_events(admin, namespace, "over-quota", {"QuotaExceeded"})
