"""The runner image under a real container runtime (runc through the local kubelet), as OpenShift runs it:

- a runner container that goes past its memory limit is killed by the kernel's OOM killer in its memory
  cgroup, ends `OOMKilled` with exit code 137, and the Evaluation says so (Stalled, reason OOMKilled);
- under an OpenShift-style admission (restricted-v2's arbitrary uid from the namespace's range and its
  fsGroup, set here by a MutatingAdmissionPolicy on the real apiserver), the runner's containers run as
  that uid with gid 0 on a read-only root, and the Evaluation still reaches its verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import OperatorProcess, evaluation, replay_spec

pytestmark = pytest.mark.cluster

ARBITRARY_UID = 1000680000
"""The first uid of a namespace's range on OpenShift (openshift.io/sa.scc.uid-range)."""
POD_CREATION = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
NAMESPACE_LABEL = "kubernetes.io/metadata.name"


def terminated(pod: dict[str, Any], name: str) -> dict[str, Any]:
    status = pod.get("status") or {}
    for container in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        if container["name"] == name:
            found: dict[str, Any] = container["state"].get("terminated") or {}
            return found
    return {}


def test_a_runner_past_its_memory_limit_is_oom_killed_and_the_evaluation_says_so(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    # Sixteen agents at once, each holding 40 MB: the answer container's memory (its runner and its agents)
    # passes 256 MiB, and the kernel's OOM killer in the container's memory cgroup ends the largest process,
    # the runner itself (each agent is smaller), so the container ends with it. (An answer too large to
    # read is refused before it is read: limits.maxAnswerBytes.)
    hog = "python -c 'import time; held = b\"x\" * (40 << 20); time.sleep(60)'; echo late > {answer_file}"
    spec = replay_spec(
        brains("v1"),
        agent={"kind": "command", "model": "none", "command": ["sh", "-c", hog], "timeoutSeconds": 300},
        concurrency=16,
        resources={"cpu": "1", "memory": "256Mi"},
    )
    admin.create(support.evaluations_path(namespace), evaluation("hungry", spec))
    stalled = support.wait_for_evaluation(
        admin,
        namespace,
        "hungry",
        lambda o: support.condition_status(o, "Stalled") == "True",
        timeout=300,
        operator=operator,
    )

    condition = support.condition(stalled, "Stalled")
    assert condition is not None and condition["reason"] == "OOMKilled", condition
    named = re.search(r"the (\w+) container was OOMKilled \(exit code 137\)", condition["message"])
    assert named is not None, condition["message"]
    assert stalled["status"].get("verdict") in (None, "Blocked")
    # The pod's own status says the same: the kernel killed that container in its memory cgroup (an answer
    # pod: nothing was answered, so no judge Job was made).
    pods = support.pods_of_job(admin, namespace, stalled["status"]["answer"]["jobName"])
    states = [terminated(pod, named.group(1)) for pod in pods]
    assert any(s.get("reason") == "OOMKilled" and s.get("exitCode") == 137 for s in states), states


def restricted_v2_policy(namespace: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """What OpenShift's restricted-v2 SCC admission does to a pod that names no uid: the namespace's first
    uid and its fsGroup, as a MutatingAdmissionPolicy (CEL, ApplyConfiguration) bound to one namespace."""
    name = f"{namespace}-restricted-v2"[:63]
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {
            "matchConstraints": {"resourceRules": [POD_CREATION]},
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "mutations": [
                {
                    "patchType": "ApplyConfiguration",
                    "applyConfiguration": {
                        "expression": (
                            "Object{spec: Object.spec{securityContext: Object.spec.securityContext{"
                            f"runAsUser: {ARBITRARY_UID}, fsGroup: {ARBITRARY_UID}" + "}}}"
                        )
                    },
                }
            ],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {
            "policyName": name,
            "matchResources": {"namespaceSelector": {"matchLabels": {NAMESPACE_LABEL: namespace}}},
        },
    }
    return policy, binding


def policy_applies(admin: KubeApi, namespace: str) -> bool:
    """A server-side dry run of a bare pod comes back with the policy's uid (the apiserver loads a new
    policy a moment after it is created)."""
    probe = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "policy-probe"},
        "spec": {"containers": [{"name": "c", "image": "probe"}]},
    }
    admitted = admin.request(
        "POST", f"/api/v1/namespaces/{namespace}/pods", body=probe, params={"dryRun": "All"}
    )
    return bool((admitted["spec"].get("securityContext") or {}).get("runAsUser") == ARBITRARY_UID)


def test_the_runner_runs_as_an_arbitrary_uid_with_gid_0_on_a_read_only_root(
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    policy, binding = restricted_v2_policy(namespace)
    base = "/apis/admissionregistration.k8s.io/v1"
    admin.create(f"{base}/mutatingadmissionpolicies", policy)
    admin.create(f"{base}/mutatingadmissionpolicybindings", binding)
    try:
        wait_until(lambda: policy_applies(admin, namespace), timeout=60, what="the admission policy to apply")
        # The agent gives the recorded answer, then appends who it ran as and what writing to the image's
        # root gave.
        probe = (
            f"cp {support.ANSWERS_DIR}/v1/{{ticket_id}}/answer.md {{answer_file}};"
            " (id; touch /opt/assay/probe; touch /probe) >> {answer_file} 2>&1"
        )
        spec = replay_spec(
            brains("v1"),
            agent={"kind": "command", "model": "recorded", "command": ["sh", "-c", probe]},
            tickets={"ids": ["T-001"]},
        )

        admin.create(support.evaluations_path(namespace), evaluation("arbitrary", spec))
        done = support.wait_for_verdict(admin, namespace, "arbitrary", operator=operator, timeout=240)
    finally:
        admin.delete(f"{base}/mutatingadmissionpolicybindings/{binding['metadata']['name']}")
        admin.delete(f"{base}/mutatingadmissionpolicies/{policy['metadata']['name']}")

    assert done["status"]["verdict"] in ("Pass", "Blocked"), done["status"]
    for job in ("arbitrary-g1-answer", "arbitrary-g1"):
        pod = support.pods_of_job(admin, namespace, job)[0]
        context = pod["spec"]["securityContext"]
        assert context.get("runAsUser") == ARBITRARY_UID, context
        for container in [*pod["spec"]["initContainers"], *pod["spec"]["containers"]]:
            context = container.get("securityContext") or {}
            assert context.get("readOnlyRootFilesystem") is True, container["name"]
            # The image and the policy decide.
            assert "runAsUser" not in context and "runAsGroup" not in context
            assert terminated(pod, container["name"]).get("exitCode") == 0, container["name"]
    # The answer pod: the agent ran as the arbitrary uid, in group 0, and the image's root was read-only. It
    # wrote its shard on the claim (a directory the kubelet made with the volume root's mode).
    volume = support.claim_path(admin, namespace, "arbitrary-g1-answers")
    answer = (volume / "shard-0" / "T-001" / "1" / "answer.md").read_text().splitlines()
    identity = [line for line in answer if line.startswith("uid=")]
    assert identity == [f"uid={ARBITRARY_UID} gid=0(root) groups=0(root),{ARBITRARY_UID}"], answer[-5:]
    writes = [line for line in answer if line.startswith("touch:")]
    assert len(writes) == 2 and all("Read-only file system" in line for line in writes), writes
    # The judge pod: what it kept on the claim is owned by that uid and group 0.
    result = volume / "result" / "result.json"
    assert (result.stat().st_uid, result.stat().st_gid) == (ARBITRARY_UID, 0)
