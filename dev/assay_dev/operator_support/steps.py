"""Test steps: create an Evaluation, read its Jobs and pods, find its volume, wait for the operator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay_dev.cluster import KubeApi
from assay_dev.cluster.kubeapi import Obj
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support.manifests import brain_config_map, evaluation, replay_spec
from assay_dev.operator_support.operator_process import OperatorProcess
from assay_dev.operator_support.paths import config_maps_path, evaluations_path, jobs_path
from assay_dev.operator_support.state import get_or_none, pods_of_job, wait_for_verdict
from assay_operator.evaluation.build import names

# --- test steps ---------------------------------------------------------------------------------------------


def create_evaluation(api: KubeApi, namespace: str, name: str, spec: Obj) -> Obj:
    return api.create(evaluations_path(namespace), evaluation(name, spec))


def job_status(api: KubeApi, namespace: str, job: str) -> dict[str, Any]:
    got = get_or_none(api, jobs_path(namespace, job))
    return dict((got or {}).get("status") or {})


def job_condition(api: KubeApi, namespace: str, job: str, kind: str) -> Obj | None:
    for c in job_status(api, namespace, job).get("conditions") or []:
        if c["type"] == kind and c["status"] == "True":
            return dict(c)
    return None


def job_failed_reason(api: KubeApi, namespace: str, job: str) -> str | None:
    failed = job_condition(api, namespace, job, "Failed")
    return None if failed is None else str(failed.get("reason"))


def answer_job(evaluation_name: str, generation: int = 1, rerun: str | None = None) -> str:
    """The name of a run's answer Job (its judge Job is `<name>-g<generation>`)."""
    return names.answer_job_name(evaluation_name, generation, rerun)


def running_pod(api: KubeApi, namespace: str, job: str, exclude: set[str] | None = None) -> str:
    """The name of a pod of `job` with a container running (not one of `exclude`); "" once the Job has
    failed."""

    def probe() -> list[str] | None:
        for pod in pods_of_job(api, namespace, job):
            name = str(pod["metadata"]["name"])
            status = pod.get("status", {})
            statuses = [
                *(status.get("initContainerStatuses") or []),
                *(status.get("containerStatuses") or []),
            ]
            if name not in (exclude or set()) and any("running" in s["state"] for s in statuses):
                return [name]
        return [""] if job_failed_reason(api, namespace, job) else None

    found = wait_until(
        probe,
        timeout=60,
        what=f"a running pod of Job {job}",
        describe=lambda: str([p.get("status", {}).get("phase") for p in pods_of_job(api, namespace, job)]),
    )
    return found[0]


def claim_path(api: KubeApi, namespace: str, claim: str) -> Path:
    """Where a bound PersistentVolumeClaim's volume lives on this node (the local-path provisioner's
    hostPath volume): the answers (`shard-<i>/`) and the result (`result/`) of a run."""
    bound = api.get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{claim}")
    volume = api.get(f"/api/v1/persistentvolumes/{bound['spec']['volumeName']}")
    return Path(volume["spec"]["hostPath"]["path"])


def barrier(api: KubeApi, namespace: str, operator: OperatorProcess) -> None:
    """Run one more Evaluation to its verdict: by then the operator has handled the events queued before it
    (kopf dispatches a watch stream in order)."""
    name = f"barrier-{len(api.get(evaluations_path(namespace))['items'])}"
    brain = "barrier-brain"
    if get_or_none(api, config_maps_path(namespace, brain)) is None:
        api.create(config_maps_path(namespace), brain_config_map(brain, "v1"))
    create_evaluation(api, namespace, name, replay_spec(brain))
    wait_for_verdict(api, namespace, name, operator=operator)
