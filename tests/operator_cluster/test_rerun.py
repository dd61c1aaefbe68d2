"""Re-running without editing the spec: a new value of the rerun.assay.dev/token annotation starts another
run of the same generation (its own deterministic Job), recorded in status.rerun; the same value again, or
removing it, starts nothing; the earlier run's Job is deleted and its late result never overwrites the new
run's. GitOps tools keep using spec changes (new generations)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import replay_spec
from assay_operator.evaluation import names
from tests.operator_cluster.conftest import StartOperator

RERUN = names.RERUN_ANNOTATION


def annotate(admin: KubeApi, namespace: str, name: str, token: str | None) -> None:
    admin.merge_patch(
        support.evaluations_path(namespace, name), {"metadata": {"annotations": {RERUN: token}}}
    )


def job_names(admin: KubeApi, namespace: str, name: str) -> list[str]:
    return sorted(
        j["metadata"]["name"]
        for j in support.jobs_of(admin, namespace, name)
        if not j["metadata"].get("deletionTimestamp")
    )


def wait_for_run(
    admin: KubeApi, namespace: str, name: str, job: str, operator: support.OperatorProcess
) -> dict[str, Any]:
    return support.wait_for_evaluation(
        admin,
        namespace,
        name,
        lambda o: (o.get("status") or {}).get("jobName") == job and support.has_verdict()(o),
        what=f"the verdict of run {job}",
        operator=operator,
    )


def test_a_new_token_reruns_the_same_generation(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    operator = operators(namespace, image=support.images().fake_runner)
    brain = brains("v1")
    support.create_evaluation(admin, namespace, "pass-rerun", replay_spec(brain))
    first = support.wait_for_verdict(admin, namespace, "pass-rerun", operator=operator)
    assert first["status"]["jobName"] == "pass-rerun-g1" and "rerun" not in first["status"]

    annotate(admin, namespace, "pass-rerun", "after-judge-fix")
    second_job = names.job_name("pass-rerun", 1, "after-judge-fix")
    second = wait_for_run(admin, namespace, "pass-rerun", second_job, operator)
    assert second["metadata"]["generation"] == 1  # an annotation is not a spec change
    assert second["status"]["rerun"] == "after-judge-fix"
    assert second["status"]["verdict"] == "Pass" and second["status"]["observedGeneration"] == 1
    assert second["status"]["startTime"] >= first["status"]["startTime"]
    support.wait_for_events(admin, namespace, "pass-rerun", {"JobCreated"})
    # The earlier run's Job is deleted: one Job per (generation, token).
    wait_until(lambda: job_names(admin, namespace, "pass-rerun") == [second_job], timeout=30, what="one Job")

    # The same token again, and then no token: nothing new runs.
    annotate(admin, namespace, "pass-rerun", "after-judge-fix")
    annotate(admin, namespace, "pass-rerun", None)
    time.sleep(5)
    assert job_names(admin, namespace, "pass-rerun") == [second_job]
    kept = admin.get(support.evaluations_path(namespace, "pass-rerun"))
    assert kept["status"]["jobName"] == second_job and kept["status"]["rerun"] == "after-judge-fix"

    # A spec change is still a new generation, with or without the annotation.
    admin.merge_patch(support.evaluations_path(namespace, "pass-rerun"), {"spec": {"repetitions": 2}})
    third = support.wait_for_verdict(admin, namespace, "pass-rerun", generation=2, operator=operator)
    assert third["status"]["jobName"] == "pass-rerun-g2" and "rerun" not in third["status"]


def test_a_rerun_while_running_replaces_the_run(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    """A token set while the first run is still going: that Job is deleted, and only the new run's result
    becomes the verdict."""
    operator = operators(namespace)
    brain = brains("v1")
    support.create_evaluation(admin, namespace, "busy", replay_spec(brain, agent=support.slow_agent(3)))
    support.running_pod(admin, namespace, "busy-g1")
    annotate(admin, namespace, "busy", "now")
    rerun_job = names.job_name("busy", 1, "now")
    done = wait_for_run(admin, namespace, "busy", rerun_job, operator)
    assert done["status"]["verdict"] == "Pass" and done["status"]["rerun"] == "now"
    wait_until(lambda: job_names(admin, namespace, "busy") == [rerun_job], timeout=60, what="one Job")
