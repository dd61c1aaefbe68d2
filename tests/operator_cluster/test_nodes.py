"""Two nodes, and one of them lost or drained mid-run (issue 37): on a control plane of the module's own with
the node lifecycle controllers (`ControlPlane(node_lifecycle=True)`: node lifecycle, taint eviction, pod GC,
disruption) and two local kubelets (`local_nodes`), the answers on a ReadWriteMany claim (the local-path
provisioner's shared directory: a single-machine stand-in for NFS or CephFS).

Both tests run an Evaluation of two shards, which the operator's topology spread puts on both nodes; shard
0's pod seals its first cell and holds on its second, its call settled. Then:

- **Node lost.** Its kubelet stops (every container SIGKILLed, nothing reported: a machine gone). The Node
  goes NotReady (Unknown) once its Lease is older than the grace period and is tainted unreachable. The pod
  stays Running in the API (Terminating once the taint manager deletes it, after its tolerationSeconds): the
  Job (podFailurePolicy, so podReplacementPolicy Failed) makes no replacement until the pod is Failed, which
  only the pod GC does, for a node tainted out-of-service (what an administrator, or a remediation operator,
  sets once the machine is known to be off) or deleted (what a cloud's node controller does). The test does
  either; the index is retried on the other node without using the backoff (DisruptionTarget).
- **Node drained** with `kubectl drain`: the pod is evicted through the Eviction API, gets SIGTERM, records
  its cut-off cell and exits 143; drain returns once it is gone; the index is retried on the other node.

Either way the retry resumes: the first pod's sealed cell is kept (after a node loss too, where the pod was
SIGKILLed and never sealed its answers' manifest: each cell's seal went to disk when the cell was sealed,
`io.seal_records`), only the cut-off cell and the rest are answered, the verdict, score and judges equal a
calm run's, and the result's usage and cost are what the gateway served: the calm run's calls and the
cut-off cell's first one (billed too). Each test prints the times it measured (run with -s to see them).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi, LocalKubelet, locate_binaries
from assay_dev.cluster.kubelet import DEFAULT_NODE
from assay_dev.cluster.node import SECOND_NODE, local_nodes
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import Obj, OperatorProcess
from tests.conftest import ClusterImages
from tests.operator_cluster.test_shards import (
    answered_by,
    assert_billed_as_served,
    assert_the_calm_verdict,
    holding_spec,
    metered_gateway,
    metered_suite_and_token,
    pods_by_index,
    retried_once,
    t1_sealed_and_t3_settled,
)

pytestmark = pytest.mark.cluster

OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"
BRAIN = "brain-v1"


@pytest.fixture(scope="module")
def lifecycle_plane() -> Iterator[ControlPlane]:
    with ControlPlane(locate_binaries(), node_lifecycle=True) as plane:
        yield plane


@pytest.fixture
def two_nodes(lifecycle_plane: ControlPlane, cluster_images: ClusterImages) -> Iterator[list[LocalKubelet]]:
    """Two started nodes; at the end, their Node objects and Leases are deleted, so the next test's nodes
    register Ready and untainted (a lost node keeps its taints)."""
    with local_nodes(lifecycle_plane, cluster_images.root_base, (DEFAULT_NODE, SECOND_NODE)) as kubelets:
        support.register_images(kubelets[0], cluster_images.runner)
        yield kubelets
    for kubelet in kubelets:
        lifecycle_plane.kubectl("delete", "node", kubelet.node_name, "--ignore-not-found", "--wait=false")
        lifecycle_plane.kubectl(
            "delete", "lease", kubelet.node_name, "-n", "kube-node-lease", "--ignore-not-found"
        )


@pytest.fixture
def node_namespace(lifecycle_plane: ControlPlane, two_nodes: list[LocalKubelet]) -> Iterator[str]:
    name = f"nodes-{time.monotonic_ns() % 10**8}"
    lifecycle_plane.create_namespace(name)
    yield name
    lifecycle_plane.delete_namespace(name)


@pytest.fixture
def node_operator(
    lifecycle_plane: ControlPlane, node_namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    admin = lifecycle_plane.api
    support.install_crd(admin)
    support.grant_operator(admin, node_namespace)
    operator = OperatorProcess(lifecycle_plane, [node_namespace], tmp_path / "operator.log").start()
    try:
        yield operator
    finally:
        operator.stop()
        problems = operator.problems()
        assert not problems, "the operator's log shows errors:\n" + "\n".join(problems[:20])


def spec(url: str) -> Obj:
    """The shards' spec, on the ReadWriteMany claim, with time for a node to be lost."""
    return holding_spec(BRAIN, url, storage={"accessMode": "ReadWriteMany"}, deadlineSeconds=900)


def metered_suite_brain_and_token(admin: KubeApi, namespace: str) -> str:
    token = metered_suite_and_token(admin, namespace)
    admin.create(support.config_maps_path(namespace), support.brain_config_map(BRAIN, "v1"))
    return token


def start_holding(admin: KubeApi, namespace: str, evaluation: str, url: str) -> Obj:
    """`evaluation` through gateway `url`, once T-1 is sealed and T-3's call settled (the agent holds, no
    call in flight) and shard 1's pod is bound: shard 0's pod."""
    job = support.answer_job(evaluation)

    def probe() -> Obj | None:
        if not t1_sealed_and_t3_settled(admin, namespace, evaluation):
            return None
        by_index = pods_by_index(admin, namespace, job)
        if len(by_index.get(0, [])) != 1 or not by_index.get(1):
            return None
        return by_index[0][0]

    support.create_evaluation(admin, namespace, evaluation, spec(url))
    return wait_until(probe, timeout=300, what="shard 0 holding on T-3")


def node_condition(admin: KubeApi, node: str) -> str:
    conditions = admin.get(f"/api/v1/nodes/{node}")["status"]["conditions"]
    return str(next(c["status"] for c in conditions if c["type"] == "Ready"))


def node_logs(kubelets: list[LocalKubelet], namespace: str, lines: int = 30) -> str:
    """The last `lines` lines each container of `namespace`'s pods wrote, on every node (a lost one's too:
    its files stay), for a failure's output: the status says which cell failed, these say why."""
    said = []
    for kubelet in kubelets:
        for log in sorted((kubelet.work_dir / "logs").glob(f"{namespace}_*/*.log")):
            tail = log.read_text(errors="replace").splitlines()[-lines:]
            said.append(f"--- {kubelet.node_name} {log.parent.name} {log.stem}:\n" + "\n".join(tail))
    return "\n".join(said)


def retry_of_shard0(admin: KubeApi, namespace: str, job: str, first_uid: str) -> Callable[[], Obj | None]:
    def probe() -> Obj | None:
        for pod in pods_by_index(admin, namespace, job).get(0, []):
            if pod["metadata"]["uid"] != first_uid and pod["spec"].get("nodeName"):
                return pod
        return None

    return probe


def assert_resumed_and_billed_once(
    admin: KubeApi,
    namespace: str,
    evaluation: str,
    first: Obj,
    done: Obj,
    calm: Obj,
    served: tuple[int, int],
) -> Obj:
    """The verdict is the calm run's; the index was retried once and resumed with the sealed cell of the
    first pod; usage and cost are the gateway's count. Returns the retry pod."""
    status, calm_status = done["status"], calm["status"]
    assert_the_calm_verdict(status, calm_status)
    job = support.answer_job(evaluation)
    retry = retried_once(admin, namespace, job)
    job_status = support.job_status(admin, namespace, job)
    assert job_status.get("succeeded") == 2 and not job_status.get("failed"), job_status
    claim = support.claim_path(admin, namespace, f"{evaluation}-g1-answers")
    cells = answered_by(claim, first, retry)
    assert cells == {"T-1/1": "first", "T-3/1": "retry", "T-5/1": "retry"}, cells
    # Six cells and the cut-off cell's first call; the calm run, six. The kept T-1 was not asked again.
    assert served == (7, 6)
    result = json.loads((claim / "result" / "result.json").read_text())
    assert_billed_as_served(result, status, calm_status, *served)
    return retry


@pytest.mark.parametrize("remedy", ["out-of-service", "node-deleted"])
def test_a_lost_nodes_shard_is_retried_on_the_other_node_with_the_calm_verdict_and_spend(
    remedy: str,
    lifecycle_plane: ControlPlane,
    two_nodes: list[LocalKubelet],
    node_namespace: str,
    node_operator: OperatorProcess,
) -> None:
    admin, namespace = lifecycle_plane.api, node_namespace
    token = metered_suite_brain_and_token(admin, namespace)
    hold = {"content": "hold"}
    job = support.answer_job("lost")
    measured: dict[str, float] = {}
    with (
        metered_gateway(token, lambda: hold["content"]) as gateway,
        metered_gateway(token, lambda: "go") as calm_gateway,
        support.recording(lifecycle_plane, f"/api/v1/namespaces/{namespace}/pods") as pods,
    ):
        first = start_holding(admin, namespace, "lost", gateway.url)
        # Spread: the two shards' pods are on different nodes.
        shard1_node = pods_by_index(admin, namespace, job)[1][0]["spec"]["nodeName"]
        lost_node = first["spec"]["nodeName"]
        assert lost_node != shard1_node, (lost_node, shard1_node)
        # No toleration of its own: the apiserver's DefaultTolerationSeconds gives 300 s for both taints.
        tolerations = {(t["key"], t.get("tolerationSeconds")) for t in first["spec"].get("tolerations") or []}
        assert tolerations == {
            ("node.kubernetes.io/not-ready", 300),
            ("node.kubernetes.io/unreachable", 300),
        }, tolerations
        (lost,) = [k for k in two_nodes if k.node_name == lost_node]
        (survivor,) = [k for k in two_nodes if k.node_name != lost_node]
        hold["content"] = "go"  # the retry's T-3 answers
        started = time.monotonic()
        lost.stop()

        def not_ready() -> bool:
            return node_condition(admin, lost_node) != "True"

        wait_until(not_ready, timeout=120, interval=0.5, what=f"node {lost_node} NotReady")
        measured["not ready"] = time.monotonic() - started

        def unreachable_tainted() -> bool:
            taints = admin.get(f"/api/v1/nodes/{lost_node}")["spec"].get("taints") or []
            return any(
                t["key"] == "node.kubernetes.io/unreachable" and t["effect"] == "NoExecute" for t in taints
            )

        wait_until(unreachable_tainted, timeout=60, interval=0.5, what="the unreachable NoExecute taint")
        # Still there, unreplaced: the Job waits for the pod to be Failed, which no kubelet will report.
        (still,) = pods_by_index(admin, namespace, job)[0]
        assert still["metadata"]["uid"] == first["metadata"]["uid"] and still["status"]["phase"] == "Running"
        # The calm run beside it now: its pods go to the Ready node.
        support.create_evaluation(admin, namespace, "calm", spec(calm_gateway.url))
        # The machine is known to be off: out-of-service (the non-graceful node shutdown procedure), or its
        # Node deleted (what a cloud's node controller does for a gone VM).
        tainted = time.monotonic()
        if remedy == "out-of-service":
            lifecycle_plane.kubectl("taint", "node", lost_node, f"{OUT_OF_SERVICE}=nodeshutdown:NoExecute")
        else:
            lifecycle_plane.kubectl("delete", "node", lost_node)
        retry = wait_until(
            retry_of_shard0(admin, namespace, job, first["metadata"]["uid"]),
            timeout=120,
            interval=0.5,
            what="shard 0's retry bound to a node",
        )
        measured[f"retry bound after {remedy}"] = time.monotonic() - tainted
        measured["retry bound after the node was lost"] = time.monotonic() - started
        assert retry["spec"]["nodeName"] == survivor.node_name, retry["spec"]
        done = support.wait_for_verdict(admin, namespace, "lost", operator=node_operator, timeout=600)
        measured["verdict after the node was lost"] = time.monotonic() - started
        calm = support.wait_for_verdict(admin, namespace, "calm", operator=node_operator, timeout=600)
        served = (len(gateway.requests), len(calm_gateway.requests))
        if {done["status"].get("verdict"), calm["status"].get("verdict")} != {"Pass"}:
            print(node_logs(two_nodes, namespace))  # why, in the failure's output

    print(f"\nnode loss ({remedy}), seconds: {json.dumps({k: round(v, 1) for k, v in measured.items()})}")
    # The lost pod, failed by the pod GC, never by a kubelet: deleted first by the taint manager for the
    # out-of-service taint it does not tolerate, or, its Node gone, by the GC itself (DisruptionTarget both).
    last = pods.versions(first["metadata"]["name"])[-1]
    assert last["status"]["phase"] == "Failed", last["status"]
    disrupted = [c for c in last["status"].get("conditions") or [] if c["type"] == "DisruptionTarget"]
    reason = "DeletionByTaintManager" if remedy == "out-of-service" else "DeletionByPodGC"
    assert disrupted and disrupted[0]["reason"] == reason, last["status"]
    # Killed, not stopped: the first pod never wrote its answers' manifest, but its sealed T-1's seal record
    # was on the claim, so the retry keeps T-1 (not asked, not billed again) as after a drain.
    assert_resumed_and_billed_once(admin, namespace, "lost", first, done, calm, served)


def test_a_drained_nodes_shard_is_retried_on_the_other_node_with_the_calm_verdict_and_spend(
    lifecycle_plane: ControlPlane,
    two_nodes: list[LocalKubelet],
    node_namespace: str,
    node_operator: OperatorProcess,
) -> None:
    admin, namespace = lifecycle_plane.api, node_namespace
    token = metered_suite_brain_and_token(admin, namespace)
    hold = {"content": "hold"}
    job = support.answer_job("drained")
    measured: dict[str, float] = {}
    with (
        metered_gateway(token, lambda: hold["content"]) as gateway,
        metered_gateway(token, lambda: "go") as calm_gateway,
        support.recording(lifecycle_plane, f"/api/v1/namespaces/{namespace}/pods") as pods,
    ):
        first = start_holding(admin, namespace, "drained", gateway.url)
        drained_node = first["spec"]["nodeName"]
        assert pods_by_index(admin, namespace, job)[1][0]["spec"]["nodeName"] != drained_node
        (survivor,) = [k for k in two_nodes if k.node_name != drained_node]
        hold["content"] = "go"
        started = time.monotonic()
        # No PodDisruptionBudget guards answer pods: drain evicts at once and waits for the pod to end.
        lifecycle_plane.kubectl(
            "drain",
            drained_node,
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            "--timeout=180s",
            timeout=200,
        )
        measured["drain"] = time.monotonic() - started
        support.create_evaluation(admin, namespace, "calm", spec(calm_gateway.url))
        retry = wait_until(
            retry_of_shard0(admin, namespace, job, first["metadata"]["uid"]),
            timeout=120,
            interval=0.5,
            what="shard 0's retry bound to a node",
        )
        measured["retry bound after drain began"] = time.monotonic() - started
        assert retry["spec"]["nodeName"] == survivor.node_name, retry["spec"]
        done = support.wait_for_verdict(admin, namespace, "drained", operator=node_operator, timeout=600)
        measured["verdict after drain began"] = time.monotonic() - started
        calm = support.wait_for_verdict(admin, namespace, "calm", operator=node_operator, timeout=600)
        served = (len(gateway.requests), len(calm_gateway.requests))
        if {done["status"].get("verdict"), calm["status"].get("verdict")} != {"Pass"}:
            print(node_logs(two_nodes, namespace))  # why, in the failure's output
        lifecycle_plane.kubectl("uncordon", drained_node)

    print(f"\ndrain, seconds: {json.dumps({k: round(v, 1) for k, v in measured.items()})}")
    # Evicted through the Eviction API (DisruptionTarget: not counted), ended by SIGTERM (143), on its node.
    last = pods.versions(first["metadata"]["name"])[-1]
    assert last["status"]["phase"] == "Failed", last["status"]
    disrupted = [c for c in last["status"].get("conditions") or [] if c["type"] == "DisruptionTarget"]
    assert disrupted and disrupted[0]["reason"] == "EvictionByEvictionAPI", last["status"]
    (answer_state,) = [s for s in last["status"]["containerStatuses"] if s["name"] == "answer"]
    assert answer_state["state"]["terminated"]["exitCode"] == 143, answer_state
    assert_resumed_and_billed_once(admin, namespace, "drained", first, done, calm, served)


def test_a_pod_no_node_fits_is_bound_once_a_node_is_uncordoned(
    lifecycle_plane: ControlPlane,
    two_nodes: list[LocalKubelet],
    node_namespace: str,
    cluster_images: ClusterImages,
) -> None:
    """Both nodes cordoned: a new pod fits none and stays unbound; nothing about the pod changes when one is
    uncordoned, so what binds it is the binder's retry at its next heartbeat, to the uncordoned node."""
    admin = lifecycle_plane.api
    names = [k.node_name for k in two_nodes]
    for name in names:
        lifecycle_plane.kubectl("cordon", name)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "waits"},
        "spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": cluster_images.root_base, "command": ["true"]}],
        },
    }
    admin.create(f"/api/v1/namespaces/{node_namespace}/pods", pod)
    # Seen by the binder and refused: two heartbeats later (2 s each) it is still unbound.
    time.sleep(5)
    assert not admin.get(f"/api/v1/namespaces/{node_namespace}/pods/waits")["spec"].get("nodeName")
    lifecycle_plane.kubectl("uncordon", names[1])

    def bound() -> str | None:
        found = admin.get(f"/api/v1/namespaces/{node_namespace}/pods/waits")
        return found["spec"].get("nodeName") if found["status"].get("phase") == "Succeeded" else None

    assert wait_until(bound, timeout=60, what="the pod bound and run") == names[1]
    lifecycle_plane.kubectl("uncordon", names[0])
