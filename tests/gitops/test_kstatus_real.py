"""The real kstatus library, built from the Go module proxy, on every Evaluation and Campaign fixture: the
statuses Flux computes, and the repository's port (tests/gitops/kstatus.py) agrees with it on each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.gitops import kstatus, real_kstatus
from tests.gitops.test_argocd_health import CHECKS, KINDS

FIXTURES = sorted((kind, path) for kind in KINDS for path in (CHECKS / kind / "testdata").glob("*.yaml"))
EXPECTED = {"progressing": "InProgress", "healthy": "Current", "degraded": "Failed"}

pytestmark = pytest.mark.builds  # the real kstatus: scripts/build-go-tools.sh


def load(path: Path) -> dict[str, Any]:
    obj: dict[str, Any] = yaml.safe_load(path.read_text())
    return obj


def test_the_port_agrees_with_the_real_library_on_every_fixture() -> None:
    objects = [load(path) for _, path in FIXTURES]
    real = real_kstatus.compute_all(objects)
    for (kind, path), obj, got in zip(FIXTURES, objects, real, strict=True):
        ported = kstatus.compute(obj)
        assert (ported.status, ported.message) == (got.status, got.message), f"{kind}/{path.name}"


@pytest.mark.parametrize(("kind", "path"), FIXTURES, ids=[f"{k}-{p.stem}" for k, p in FIXTURES])
def test_flux_reads_each_fixture_as_argo_cd_does(kind: str, path: Path) -> None:
    """Flux (kstatus) and Argo CD (the Lua check) agree on every fixture that has a status: Progressing is
    InProgress, Healthy is Current, Degraded is Failed. (An object with no status at all is Current to
    kstatus, which cannot know better; Argo CD's check calls it Progressing.)"""
    obj = load(path)
    if not obj.get("status"):
        assert real_kstatus.compute(obj).status == "Current"
        return
    expected = EXPECTED[path.stem.split("_")[0]]
    if path.stem == "progressing_stale_condition":
        # kstatus checks the status's observedGeneration, not each condition's: a stale Ready=True of
        # generation 1 under observedGeneration 2 is Current to Flux. The operator never writes that state
        # (conditions and observedGeneration change in one patch); Argo CD's check is stricter.
        expected = "Current"
    assert real_kstatus.compute(obj).status == expected


def test_stalled_and_reconciling_together_are_in_progress() -> None:
    """kstatus' own rule, and why the operator must clear Reconciling when it sets Stalled: with both True,
    Flux reports InProgress and waits out its timeout instead of failing fast."""
    obj = load(CHECKS / "Evaluation" / "testdata" / "degraded_blocked.yaml")
    stalled = next(c for c in obj["status"]["conditions"] if c["type"] == "Stalled")
    both = {
        **obj,
        "status": {
            **obj["status"],
            "conditions": [
                {**stalled, "type": "Reconciling", "reason": "BrainNotFound"},
                *obj["status"]["conditions"],
            ],
        },
    }
    assert real_kstatus.compute(both).status == "InProgress"
    assert real_kstatus.compute(obj).status == "Failed"
