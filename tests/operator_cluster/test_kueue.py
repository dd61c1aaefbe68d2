"""Real Kueue on the local control plane (built from the Go module proxy, webhooks on loopback): Evaluations
naming a LocalQueue wait as Kueue Workloads while the ClusterQueue's quota is in use, start when admitted,
and say so in their Queued condition, naming the queue. The REAL operator creates both Jobs of a run (the
answer Job, then the judge Job) suspended in that queue; Kueue, not the operator, decides when each runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.kueue import API, MANAGED_LABEL, Kueue, running_kueue
from assay_dev.operator_support import condition, replay_spec
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster
CPU_QUOTA = "1"
"""Room for AT_ONCE runner pods (support.SMALL's cpu each): the other Jobs wait for quota."""
AT_ONCE = int(Decimal(CPU_QUOTA) / Decimal(support.SMALL["cpu"]))


@pytest.fixture(scope="module")
def kueue(control_plane: ControlPlane) -> Iterator[Kueue]:
    with running_kueue(control_plane) as running:
        yield running


def queues(api: KubeApi, namespace: str, name: str) -> None:
    """A ResourceFlavor, a ClusterQueue with room for AT_ONCE runner pods, and a LocalQueue in
    `namespace`."""
    flavor = f"{name}-flavor"
    api.create(
        f"{API}/resourceflavors",
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": flavor}},
    )
    api.create(
        f"{API}/clusterqueues",
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ClusterQueue",
            "metadata": {"name": name},
            "spec": {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory"],
                        "flavors": [
                            {
                                "name": flavor,
                                "resources": [
                                    {"name": "cpu", "nominalQuota": CPU_QUOTA},
                                    {"name": "memory", "nominalQuota": "4Gi"},
                                ],
                            }
                        ],
                    }
                ],
            },
        },
    )
    api.create(
        f"{API}/namespaces/{namespace}/localqueues",
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "LocalQueue",
            "metadata": {"name": "evals"},
            "spec": {"clusterQueue": name},
        },
    )


def test_kueue_admits_and_queues_evaluations_by_quota(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    kueue: Kueue,
) -> None:
    key, value = MANAGED_LABEL
    admin.merge_patch(f"/api/v1/namespaces/{namespace}", {"metadata": {"labels": {key: value}}})
    queues(admin, namespace, f"evals-{namespace}"[:63])
    operator = operators(namespace, image=support.images().fake_runner)
    brain = brains("v1")
    names = [f"queued-{i}" for i in range(3)]
    with (
        support.recording(control_plane, support.evaluations_path(namespace)) as watch,
        support.recording(control_plane, support.jobs_path(namespace)) as jobs_watch,
    ):
        for name in names:
            support.create_evaluation(admin, namespace, name, replay_spec(brain, queueName="evals"))
        done = [support.wait_for_verdict(admin, namespace, n, timeout=180, operator=operator) for n in names]
    assert [d["status"]["verdict"] for d in done] == ["Pass"] * 3

    # Every Evaluation waited as a Kueue Workload, and at least one waited for quota: Queued=True, naming
    # the queue, before Admitted.
    def queued_states(name: str) -> list[tuple[str, str]]:
        seen = []
        for obj in watch.versions(name):
            found = condition(obj, "Queued")
            if found is not None and (not seen or seen[-1] != (found["status"], found["reason"])):
                seen.append((found["status"], found["reason"]))
        return seen

    histories = {n: queued_states(n) for n in names}
    assert all(("False", "Admitted") in h for h in histories.values()), histories
    waited = [n for n, h in histories.items() if ("True", "Queued") in h]
    assert waited, histories
    first_wait = next(
        condition(o, "Queued") for o in watch.versions(waited[0]) if condition_is(o, "Queued", "True")
    )
    assert first_wait is not None and "queue 'evals'" in first_wait["message"]
    # While it waits, `kubectl get evaluations` reads Queued in its State column (Reconciling's reason), not
    # the Running of a run that is starting.
    waiting = [o for n in names for o in watch.versions(n) if condition_is(o, "Queued", "True")]
    assert waiting and all((condition(o, "Reconciling") or {}).get("reason") == "Queued" for o in waiting)

    # Each judge Job was admitted by Kueue under the same queue: the Evaluation said so, naming it.
    for d in done:
        judge = d["status"]["jobName"]
        admitted = [
            found["message"]
            for o in watch.versions(d["metadata"]["name"])
            if (found := condition(o, "Queued")) is not None and found["reason"] == "Admitted"
        ]
        assert any(m.startswith(f"Job {judge} admitted by Kueue from queue 'evals'") for m in admitted), (
            admitted
        )

    # Kueue, not the operator, ran them: a Workload per Job, answer Jobs (their shards admitted together) and
    # judge Jobs alike, each in the LocalQueue and admitted by the ClusterQueue.
    workloads = admin.get(f"{API}/namespaces/{namespace}/workloads")["items"]
    answers = {d["status"]["answer"]["jobName"] for d in done}
    judges = {d["status"]["jobName"] for d in done}
    owners = {r["name"]: w for w in workloads for r in w["metadata"].get("ownerReferences") or []}
    assert answers | judges <= set(owners), (answers, judges, sorted(owners))
    for job in answers | judges:
        workload = owners[job]
        assert workload["spec"]["queueName"] == "evals", workload["spec"]
        assert workload["status"]["admission"]["clusterQueue"] == f"evals-{namespace}"[:63], workload[
            "status"
        ]
    # Each judge Job was created suspended, in the queue, and resumed by Kueue.
    for job in judges:
        versions = [e.object for e in jobs_watch.snapshot() if e.object["metadata"]["name"] == job]
        assert versions[0]["spec"]["suspend"] is True and not versions[-1]["spec"]["suspend"], job
        assert versions[0]["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "evals"
    # No more ran at once than the quota has room for, answer and judge Jobs together.
    assert peak_running(jobs_watch, answers | judges) <= AT_ONCE


def condition_is(obj: support.Obj, kind: str, status: str) -> bool:
    found = condition(obj, kind)
    return found is not None and found["status"] == status


def peak_running(watch: support.Recorder, jobs: set[str]) -> int:
    """The most of `jobs` ever resumed (admitted) and not finished at once, replaying the Jobs' watch: Kueue
    resumes one only after it saw another finish and release its quota."""
    running: set[str] = set()
    peak = 0
    for event in watch.snapshot():
        job = event.object
        name = job["metadata"]["name"]
        if name not in jobs:
            continue
        finished = any(
            c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
            for c in (job.get("status") or {}).get("conditions") or []
        )
        if event.type != "DELETED" and not job["spec"].get("suspend") and not finished:
            running.add(name)
        else:
            running.discard(name)
        peak = max(peak, len(running))
    return peak


def test_an_evaluation_without_a_queue_runs_at_once(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str], kueue: Kueue
) -> None:
    """In a namespace Kueue does not manage, an Evaluation without a queue runs at once, with no Queued
    condition and no Workload (the harness keeps Kueue's Job webhook to labelled namespaces)."""
    operator = operators(namespace, image=support.images().fake_runner)
    support.create_evaluation(admin, namespace, "free", replay_spec(brains("v1")))
    done = support.wait_for_verdict(admin, namespace, "free", operator=operator)
    assert condition(done, "Queued") is None
    assert admin.get(f"{API}/namespaces/{namespace}/workloads")["items"] == []
