"""Reading what the cluster shows: conditions, Jobs, pods and Events, and waiting for a verdict."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from assay_dev.cluster import ApiError, KubeApi
from assay_dev.cluster.kubeapi import Obj
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support.operator_process import OperatorProcess
from assay_dev.operator_support.paths import evaluations_path, jobs_path, pods_path
from assay_operator.evaluation.build import names

# --- reading state -----------------------------------------------------------------------------------------


def condition(obj: Obj | None, kind: str) -> Obj | None:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == kind:
            return dict(c)
    return None


def campaign_decided(obj: Obj) -> bool:
    """Whether a Campaign has decided its current generation (Completed, for this generation)."""
    status = obj.get("status") or {}
    completed = condition(obj, "Completed")
    return (
        status.get("observedGeneration") == obj["metadata"]["generation"]
        and completed is not None
        and completed["status"] == "True"
        and completed.get("observedGeneration") == obj["metadata"]["generation"]
    )


def condition_status(obj: Obj | None, kind: str) -> str | None:
    found = condition(obj, kind)
    return None if found is None else str(found["status"])


def assert_conditions(obj: Obj, want: Mapping[str, str], generation: int) -> None:
    """Each condition type has the wanted status and describes `generation`."""
    for kind, status in want.items():
        found = condition(obj, kind)
        assert found is not None and found["status"] == status, (kind, found)
        assert found["observedGeneration"] == generation, (kind, found)


def get_or_none(api: KubeApi, path: str) -> Obj | None:
    try:
        return api.get(path)
    except ApiError as error:
        if error.status == 404:
            return None
        raise


def jobs_of(api: KubeApi, namespace: str, evaluation_name: str) -> list[Obj]:
    """The Jobs labelled for `evaluation_name` (the label value as the operator writes it)."""
    label = names.evaluation_label(evaluation_name)
    items: list[Obj] = api.get(jobs_path(namespace), labelSelector=f"{names.LABEL_EVALUATION}={label}")[
        "items"
    ]
    return items


def pods_of_job(api: KubeApi, namespace: str, job: str) -> list[Obj]:
    items: list[Obj] = api.get(pods_path(namespace), labelSelector=f"job-name={job}")["items"]
    return items


def events_for(api: KubeApi, namespace: str, name: str) -> list[Obj]:
    items: list[Obj] = api.get(
        f"/api/v1/namespaces/{namespace}/events", fieldSelector=f"involvedObject.name={name}"
    )["items"]
    return items


def wait_for_events(api: KubeApi, namespace: str, name: str, reasons: set[str], timeout: float = 30) -> None:
    def probe() -> bool:
        return reasons <= {e["reason"] for e in events_for(api, namespace, name)}

    wait_until(
        probe,
        timeout=timeout,
        what=f"events {sorted(reasons)} on {name}",
        describe=lambda: str(sorted({e["reason"] for e in events_for(api, namespace, name)})),
    )


def summarize(obj: Obj | None) -> str:
    if obj is None:
        return "absent"
    status = obj.get("status") or {}
    conditions = {
        c["type"]: f"{c['status']}/{c.get('reason')}@g{c.get('observedGeneration')}"
        for c in status.get("conditions") or []
    }
    return json.dumps(
        {
            "generation": obj["metadata"].get("generation"),
            "observedGeneration": status.get("observedGeneration"),
            "verdict": status.get("verdict"),
            "jobName": status.get("jobName"),
            "message": status.get("message"),
            "conditions": conditions,
        }
    )


def wait_for_evaluation(
    api: KubeApi,
    namespace: str,
    name: str,
    predicate: Callable[[Obj], bool],
    *,
    timeout: float = 120,
    what: str = "",
    operator: OperatorProcess | None = None,
) -> Obj:
    path = evaluations_path(namespace, name)

    def probe() -> Obj | None:
        obj = get_or_none(api, path)
        if operator is not None and not operator.alive():
            raise RuntimeError(f"the operator died:\n{operator.log_tail()}")
        return obj if obj is not None and predicate(obj) else None

    return wait_until(
        probe,
        timeout=timeout,
        interval=0.25,
        what=what or f"evaluation {namespace}/{name}",
        describe=lambda: summarize(get_or_none(api, path)),
    )


def has_verdict(generation: int | None = None) -> Callable[[Obj], bool]:
    """The verdict of the current (or the given) generation is in the status."""

    def check(obj: Obj) -> bool:
        status = obj.get("status") or {}
        want = generation if generation is not None else obj["metadata"]["generation"]
        completed = condition(obj, "Completed")
        return (
            status.get("verdict") in ("Pass", "Blocked")
            and status.get("observedGeneration") == want
            and completed is not None
            and completed["status"] == "True"
            and completed.get("observedGeneration") == want
        )

    return check


def wait_for_verdict(
    api: KubeApi,
    namespace: str,
    name: str,
    *,
    generation: int | None = None,
    timeout: float = 120,
    operator: OperatorProcess | None = None,
) -> Obj:
    return wait_for_evaluation(
        api,
        namespace,
        name,
        has_verdict(generation),
        timeout=timeout,
        what=f"the verdict of {namespace}/{name}",
        operator=operator,
    )
