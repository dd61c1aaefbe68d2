"""A run whose pod cannot start, on the real control plane with the local kubelet:

- the kubelet reports a missing Secret volume as a real kubelet does (containers waiting PodInitializing with
  no message; a Warning FailedMount Event naming the volume and the Secret);
- the REAL operator reports it in the StartBlocked condition naming the Secret, Reconciling stays True
  (Flux's kstatus: InProgress; Argo CD: Progressing), and once the grace period ends with the Secret still
  missing the run ends Blocked with Stalled=True (kstatus: Failed; Argo CD: Degraded) and its Job is deleted —
  not after the 30-minute deadline;
- a Secret created within the grace period lets the same run start and reach its verdict.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import condition, condition_status, replay_spec
from tests.gitops import real_kstatus
from tests.gitops.test_argocd_health import health
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster
GRACE = 20


def start_blocked(obj: support.Obj) -> bool:
    return condition_status(obj, "StartBlocked") == "True"


def secret(name: str, key: str = "token") -> support.Obj:
    data = {key: base64.b64encode(b"not-a-real-token").decode()}
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": data}


def test_a_missing_token_secret_is_named_then_the_run_stalls(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    operator = operators(namespace, env={"ASSAY_POD_START_GRACE_SECONDS": str(GRACE)})
    spec = replay_spec(brains("v1"), gatewayTokenSecretRef={"name": "gw-token-missing"})
    created = time.monotonic()
    support.create_evaluation(admin, namespace, "no-token", spec)

    reported = support.wait_for_evaluation(
        admin, namespace, "no-token", start_blocked, timeout=60, what="StartBlocked", operator=operator
    )
    print(f"missing Secret reported {time.monotonic() - created:.1f} s after the Evaluation was created")
    blocked = condition(reported, "StartBlocked")
    assert blocked is not None and blocked["reason"] == "SecretNotFound"
    assert "'gw-token-missing' not found" in blocked["message"] and "ends Stalled at" in blocked["message"]
    assert condition_status(reported, "Reconciling") == "True"
    assert condition_status(reported, "Stalled") == "False"
    assert real_kstatus.compute(reported).status == "InProgress"
    assert health(reported)["status"] == "Progressing"

    # The kubelet said it as a real kubelet does: no message on the pod, a FailedMount Event naming it. (The
    # gateway token goes to the answer pods: theirs is the pod that cannot start.)
    job = reported["status"]["answer"]["jobName"]
    (pod,) = support.pods_of_job(admin, namespace, job)
    waiting = [s["state"]["waiting"] for s in pod["status"]["initContainerStatuses"]]
    assert {w["reason"] for w in waiting} == {"PodInitializing"} and not any("message" in w for w in waiting)
    # (The answers claim may not be bound yet when the kubelet first mounts: no scheduler waits for it here,
    # so an earlier FailedMount can name the claim. The Secret's is the one that stays.)
    mounts = [
        e["message"]
        for e in support.events_for(admin, namespace, pod["metadata"]["name"])
        if e["reason"] == "FailedMount" and 'secret "gw-token-missing" not found' in e["message"]
    ]
    assert mounts and all('volume "gateway-token"' in m for m in mounts), mounts

    stalled = support.wait_for_verdict(admin, namespace, "no-token", timeout=GRACE + 60, operator=operator)
    assert stalled["status"]["verdict"] == "Blocked"
    gave_up = condition(stalled, "Stalled")
    assert gave_up is not None and (gave_up["status"], gave_up["reason"]) == ("True", "SecretNotFound")
    assert "gw-token-missing" in gave_up["message"] and "rerun.assay.dev/token" in gave_up["message"]
    assert condition_status(stalled, "Reconciling") == "False"
    assert condition_status(stalled, "StartBlocked") == "False"
    got = real_kstatus.compute(stalled)
    assert got.status == "Failed" and "gw-token-missing" in got.message
    assert health(stalled)["status"] == "Degraded"
    wait_until(
        lambda: support.get_or_none(admin, support.jobs_path(namespace, job)) is None,
        timeout=30,
        what=f"Job {job} deleted",
    )
    support.wait_for_events(admin, namespace, "no-token", {"SecretNotFound"})


def test_a_secret_that_appears_within_the_grace_period_lets_the_run_finish(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    operator = operators(namespace, env={"ASSAY_POD_START_GRACE_SECONDS": "600"})
    spec = replay_spec(brains("v1"), gatewayTokenSecretRef={"name": "gw-late", "key": "token"})
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", secret("gw-late", key="other"))
    support.create_evaluation(admin, namespace, "late-token", spec)

    reported = support.wait_for_evaluation(
        admin, namespace, "late-token", start_blocked, timeout=60, what="StartBlocked", operator=operator
    )
    blocked = condition(reported, "StartBlocked")
    assert blocked is not None and blocked["reason"] == "SecretKeyNotFound"
    assert "Secret 'gw-late' has no key 'token'" in blocked["message"]

    admin.request(
        "PUT", f"/api/v1/namespaces/{namespace}/secrets/gw-late", body=secret("gw-late", key="token")
    )
    done = support.wait_for_verdict(admin, namespace, "late-token", timeout=120, operator=operator)
    assert done["status"]["verdict"] == "Pass"
    started = condition(done, "StartBlocked")
    assert started is not None and started["status"] == "False"
