"""A status the real apiserver refuses is never silent: the REAL operator writes Stalled with the apiserver's
reason instead (kstatus: Failed; Argo CD: Degraded) and a Warning Event.

The operator's statuses fit the committed CRD by construction, so the refusal is provoked the way it happens
in the field: a CRD older than the operator (Helm never upgrades a chart's CRDs), here one whose
status.jobName is limited to 3 characters. The committed CRD is put back afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.operator_support import condition, condition_status, replay_spec
from tests.gitops import real_kstatus
from tests.gitops.test_argocd_health import health
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster
CRD_PATH = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{support.CRD_NAME}"


@pytest.fixture
def older_crd(admin: KubeApi) -> Iterator[None]:
    crd = admin.get(CRD_PATH)
    status = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]
    status["properties"]["jobName"]["maxLength"] = 3
    admin.request("PUT", CRD_PATH, body=crd)
    try:
        yield
    finally:
        support.install_crd(admin)  # the committed CRD again, for the tests after this one


def test_a_refused_status_reads_stalled_with_the_reason(
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    older_crd: None,
) -> None:
    operator = operators(namespace, image=support.images().fake_runner, expect_problems=True)
    support.create_evaluation(admin, namespace, "refused", replay_spec(brains("v1")))
    stalled = support.wait_for_evaluation(
        admin,
        namespace,
        "refused",
        lambda o: condition_status(o, "Stalled") == "True",
        timeout=60,
        what="Stalled (StatusRefused)",
        operator=operator,
    )
    found = condition(stalled, "Stalled")
    assert found is not None and found["reason"] == "StatusRefused"
    assert "jobName" in found["message"] and "could not write" in found["message"]
    assert condition_status(stalled, "Reconciling") == "False"
    assert real_kstatus.compute(stalled).status == "Failed"
    assert health(stalled)["status"] == "Degraded"
    support.wait_for_events(admin, namespace, "refused", {"StatusRefused"})
    assert support.log_count(operator, "not written", "StatusRefused") >= 1
