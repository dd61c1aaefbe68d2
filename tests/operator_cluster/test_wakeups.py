"""A ConfigMap an Evaluation waits for wakes it when it appears (a watch), not at kopf's next retry: the REAL
operator starts the run as soon as the brain ConfigMap is created, even when its next retry is far away."""

from __future__ import annotations

import time

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import condition, replay_spec
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster


def test_the_brain_appearing_starts_the_waiting_run(
    admin: KubeApi, namespace: str, operators: StartOperator
) -> None:
    operator = operators(namespace, image=support.images().fake_runner)
    support.create_evaluation(admin, namespace, "early", replay_spec("brain-late"))
    waiting = support.wait_for_evaluation(
        admin,
        namespace,
        "early",
        lambda o: "BrainNotFound" in str(condition(o, "Reconciling")),
        what="BrainNotFound",
        operator=operator,
    )
    assert not support.jobs_of(admin, namespace, "early")
    # Let kopf's retries back off (5, 10, 20 s...): after two of them the next is at least 20 s away.
    wait_until(
        lambda: support.log_count(operator, "early", "failed temporarily") >= 2,
        timeout=60,
        what="two retries of the waiting Evaluation",
    )
    appeared = time.monotonic()
    admin.create(support.config_maps_path(namespace), support.brain_config_map("brain-late", "v1"))
    wait_until(lambda: support.jobs_of(admin, namespace, "early"), timeout=60, what="the Job of early")
    print(f"Job created {time.monotonic() - appeared:.1f} s after the brain ConfigMap")
    assert support.log_count(operator, "early", "a ConfigMap it waited for appeared") == 1
    done = support.wait_for_verdict(admin, namespace, "early", operator=operator)
    assert done["status"]["verdict"] == "Pass" and waiting["metadata"]["uid"] == done["metadata"]["uid"]
