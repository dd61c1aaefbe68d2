"""Real Kueue on the local control plane (built from the Go module proxy, webhooks on loopback): Evaluations
naming a LocalQueue wait as Kueue Workloads while the ClusterQueue's quota is in use, start when admitted,
and say so in their Queued condition, naming the queue. The REAL operator creates their Jobs suspended;
Kueue, not the operator, decides when each runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.kueue import API, MANAGED_LABEL, Kueue, running_kueue
from assay_dev.operator_support import condition, replay_spec
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster
CPU_QUOTA = "1"
"""Each runner pod asks for 500m (support.SMALL): two Evaluations run at once, the third waits."""


@pytest.fixture(scope="module")
def kueue(control_plane: ControlPlane) -> Iterator[Kueue]:
    with running_kueue(control_plane) as running:
        yield running


def queues(api: KubeApi, namespace: str, name: str) -> None:
    """A ResourceFlavor, a ClusterQueue with room for two runner pods, and a LocalQueue in `namespace`."""
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

    # Kueue, not the operator, ran them: a Workload per answer Job (its shards admitted together), each
    # admitted by the ClusterQueue; the judge Jobs follow on the quota the answers released.
    workloads = admin.get(f"{API}/namespaces/{namespace}/workloads")["items"]
    jobs = {d["status"]["answer"]["jobName"] for d in done}
    owners = {r["name"] for w in workloads for r in w["metadata"].get("ownerReferences") or []}
    assert jobs <= owners, (jobs, owners)
    assert not {d["status"]["jobName"] for d in done} & owners  # no Workload for a judge Job
    # At most two answered at once (quota): no moment with three answer Jobs resumed and unfinished.
    assert peak_running(jobs_watch, jobs) <= 2


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
