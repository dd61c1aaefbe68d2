"""What Flux (the real kstatus library) and Argo CD (its Lua health check) make of real Evaluations written by
the real operator: Pass is Current/Healthy, Blocked is Failed/Degraded, running is InProgress/Progressing,
and a brain that never appears ends Failed/Degraded once the operator stops waiting — not InProgress for
ever."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.operator_support import condition_status, replay_spec
from tests.gitops import real_kstatus
from tests.gitops.test_argocd_health import health
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster


def test_flux_and_argo_cd_read_real_evaluations(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    operator = operators(
        namespace, image=support.images().fake_runner, env={"ASSAY_STALL_AFTER_RETRIES": "1"}
    )
    brain = brains("v1")
    support.create_evaluation(admin, namespace, "pass-1", replay_spec(brain))
    support.create_evaluation(admin, namespace, "blocked-1", replay_spec(brain))
    support.create_evaluation(admin, namespace, "orphan", replay_spec("brain-never"))

    waiting = support.wait_for_evaluation(
        admin,
        namespace,
        "orphan",
        lambda o: condition_status(o, "Reconciling") == "True" and "BrainNotFound" in str(o.get("status")),
        what="the first BrainNotFound",
        operator=operator,
    )
    assert real_kstatus.compute(waiting).status == "InProgress"
    assert health(waiting)["status"] == "Progressing"

    stalled = support.wait_for_evaluation(
        admin,
        namespace,
        "orphan",
        lambda o: condition_status(o, "Stalled") == "True",
        timeout=60,
        what="Stalled after the retries",
        operator=operator,
    )
    assert condition_status(stalled, "Reconciling") == "False"
    got = real_kstatus.compute(stalled)
    assert got.status == "Failed" and "brain-never" in got.message
    assert health(stalled)["status"] == "Degraded"

    passed = support.wait_for_verdict(admin, namespace, "pass-1", operator=operator)
    blocked = support.wait_for_verdict(admin, namespace, "blocked-1", operator=operator)
    assert [r.status for r in real_kstatus.compute_all([passed, blocked])] == ["Current", "Failed"]
    assert [health(o)["status"] for o in (passed, blocked)] == ["Healthy", "Degraded"]

    # Still retrying: the brain appears and the Evaluation proceeds to its verdict by itself.
    admin.create(support.config_maps_path(namespace), support.brain_config_map("brain-never", "v1"))
    done = support.wait_for_verdict(admin, namespace, "orphan", timeout=120, operator=operator)
    assert done["status"]["verdict"] == "Pass"
    assert real_kstatus.compute(done).status == "Current"
