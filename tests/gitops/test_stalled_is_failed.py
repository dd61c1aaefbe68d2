"""A dependency that never appears (a missing brain) must read Failed to Flux and Degraded to Argo CD once
the operator gives up waiting — not InProgress/Progressing for ever. Checked on the status the operator's
own builder writes, with the real kstatus library and Argo CD's Lua check: Stalled=True comes with
Reconciling=False (kstatus reads Reconciling first)."""

from __future__ import annotations

from typing import Any

import pytest

from assay_operator import conditions
from assay_operator.evaluation.read import reconcile
from tests.gitops import kstatus, real_kstatus
from tests.gitops.test_argocd_health import RUNTIMES, health

MESSAGE = "ConfigMap 'brain-late' (brain) not found in namespace agents; retrying until it exists"


def evaluation(stalled: bool, generation: int = 1) -> dict[str, Any]:
    first = reconcile.waiting_status(
        reconcile.parse_status(None), generation, "BrainNotFound", MESSAGE, False
    )
    status = (
        first if not stalled else reconcile.waiting_status(first, generation, "BrainNotFound", MESSAGE, True)
    )
    return {
        "apiVersion": "assay.dev/v1alpha1",
        "kind": "Evaluation",
        "metadata": {"name": "early", "namespace": "agents", "generation": generation},
        "spec": {"brain": {"configMap": {"name": "brain-late"}}},
        "status": status.to_patch(),
    }


@pytest.mark.builds  # the real kstatus: scripts/build-go-tools.sh
def test_waiting_is_in_progress_to_flux_and_argo_cd() -> None:
    obj = evaluation(stalled=False)
    assert real_kstatus.compute(obj).status == "InProgress"
    assert health(obj)["status"] == "Progressing"


@pytest.mark.builds
@pytest.mark.parametrize("runtime", sorted(RUNTIMES))
def test_a_stalled_wait_is_failed_to_flux_and_degraded_to_argo_cd(runtime: str) -> None:
    obj = evaluation(stalled=True)
    got = real_kstatus.compute(obj)
    assert (got.status, got.message) == ("Failed", MESSAGE)
    assert kstatus.compute(obj).status == "Failed"  # the port agrees
    assert health(obj, runtime) == {"status": "Degraded", "message": f"Blocked (BrainNotFound): {MESSAGE}"}


@pytest.mark.parametrize("stalled", [False, True])
@pytest.mark.parametrize(
    "desired",
    [
        lambda stalled: conditions.waiting("BrainNotFound", MESSAGE, stalled),
        lambda stalled: conditions.finished("Pass" if stalled else "Blocked", "GateBlocked", "m"),
        lambda stalled: conditions.running("m"),
    ],
    ids=["waiting", "finished", "running"],
)
def test_stalled_never_comes_with_reconciling(desired: Any, stalled: bool) -> None:
    by_type = {d.type: d.status for d in desired(stalled)}
    assert not (by_type["Stalled"] == "True" and by_type["Reconciling"] == "True"), by_type
