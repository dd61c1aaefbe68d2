"""Flux: what kstatus (ported in tests/gitops/kstatus.py) makes of every state an Evaluation goes through, and
the example in gitops/flux/: `agent-evaluation` waits for the Evaluation, fails fast on Blocked, and
`agent-release` (dependsOn) is applied only after a Pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_operator.evaluation.api import EvaluationSpec
from tests.chart.conftest import kustomize
from tests.gitops import kstatus
from tests.gitops.test_argocd_health import CHECK

ROOT = Path(__file__).resolve().parents[2]
FLUX = ROOT / "gitops" / "flux"


def fixture(name: str) -> dict[str, Any]:
    obj: dict[str, Any] = yaml.safe_load((CHECK / "testdata" / f"{name}.yaml").read_text())
    return obj


# --- kstatus reads Assay's statuses ------------------------------------------------------------------------

KSTATUS = [
    ("progressing_running", "InProgress", "Running"),
    ("progressing_stale_generation", "InProgress", "LatestGenerationNotObserved"),
    ("progressing_rerun_after_pass", "InProgress", "Running"),
    ("progressing_waiting_for_brain", "InProgress", "BrainNotFound"),
    ("degraded_brain_not_found", "Failed", "BrainNotFound"),
    ("healthy_pass", "Current", ""),
    ("degraded_blocked", "Failed", "GateBlocked"),
    ("degraded_deadline_exceeded", "Failed", "DeadlineExceeded"),
    ("degraded_invalid_spec", "Failed", "InvalidSpec"),
]


@pytest.mark.parametrize(("name", "status", "reason"), KSTATUS, ids=[k[0] for k in KSTATUS])
def test_kstatus_reads_each_state(name: str, status: str, reason: str) -> None:
    result = kstatus.compute(fixture(name))
    assert (result.status, result.reason) == (status, reason)


CAMPAIGN_KSTATUS = [
    ("progressing_evaluating", "InProgress", "Evaluating"),
    ("progressing_stale_generation", "InProgress", "LatestGenerationNotObserved"),
    ("healthy_promote", "Current", ""),
    ("degraded_keep_incumbent", "Failed", "NoPromotion"),
]


@pytest.mark.parametrize(("name", "status", "reason"), CAMPAIGN_KSTATUS, ids=[k[0] for k in CAMPAIGN_KSTATUS])
def test_kstatus_reads_each_campaign_state(name: str, status: str, reason: str) -> None:
    """A Flux Kustomization with `wait: true` gates on a Campaign as on an Evaluation: a promotion is
    Current, keeping the incumbent Failed, Evaluations still running InProgress."""
    path = CHECK.parent / "Campaign" / "testdata" / f"{name}.yaml"
    result = kstatus.compute(yaml.safe_load(path.read_text()))
    assert (result.status, result.reason) == (status, reason)


def test_ready_false_alone_is_in_progress_not_failed() -> None:
    """Flux fails fast only on Stalled=True; Ready=False without it means "still working"."""
    obj = fixture("degraded_blocked")
    obj["status"]["conditions"] = [c for c in obj["status"]["conditions"] if c["type"] != "Stalled"]
    assert kstatus.compute(obj).status == "InProgress"


def test_a_new_evaluation_without_status_reads_current() -> None:
    """kstatus's rule for an object with no conditions at all: Current. Between `kubectl apply` and the
    operator's first status write (Reconciling=True within seconds), Flux could therefore call a brand-new
    Evaluation healthy. A CRD default `status: {observedGeneration: 0}` (served on every read) closes that
    window: the generation check then says InProgress. See docs/gate-a-promotion.md."""
    fresh = fixture("progressing_no_status")
    assert kstatus.compute(fresh).status == "Current"
    fresh["status"] = {"observedGeneration": 0}
    assert kstatus.compute(fresh) == kstatus.Result(
        "InProgress",
        "Evaluation generation is 1, but latest observed generation is 0",
        "LatestGenerationNotObserved",
    )


def test_kstatus_port_follows_list_order_and_deletion() -> None:
    obj = fixture("progressing_waiting_for_brain")
    for condition in obj["status"]["conditions"]:
        if condition["type"] == "Stalled":
            condition["status"] = "True"
    # Reconciling comes before Stalled in the operator's order: still InProgress (kstatus takes the first).
    assert kstatus.compute(obj).status == "InProgress"
    obj["metadata"]["deletionTimestamp"] = "2026-12-01T12:00:00Z"
    assert kstatus.compute(obj).status == "Terminating"


# --- Flux's wait and dependsOn, over a sequence of statuses -------------------------------------------------


def flux_wait(states: list[dict[str, Any]]) -> tuple[str, int]:
    """kustomize-controller's health check with `wait: true`, one poll per state: Failed at the first Failed
    (fail fast), Ready at the first Current, else still waiting when the timeout ends the list."""
    for poll, obj in enumerate(states, start=1):
        status = kstatus.compute(obj).status
        if status == "Failed":
            return "Failed", poll
        if status == "Current":
            return "Ready", poll
    return "TimedOut", len(states)


def release(states: list[dict[str, Any]]) -> bool:
    """`agent-release` dependsOn `agent-evaluation`: it is applied only when that one is Ready."""
    return flux_wait(states)[0] == "Ready"


RUN = ["progressing_stale_generation", "progressing_rerun_after_pass", "progressing_running"]


def test_flux_releases_after_a_pass() -> None:
    states = [fixture(n) for n in [*RUN, "healthy_pass"]]
    assert flux_wait(states) == ("Ready", 4)
    assert release(states)


def test_flux_fails_fast_on_blocked_and_does_not_release() -> None:
    # Blocked at the 4th poll of a timeout that would allow 100: Failed there, not at the timeout.
    states = [fixture(n) for n in [*RUN, "degraded_blocked"]] + [fixture("progressing_running")] * 96
    assert flux_wait(states) == ("Failed", 4)
    assert not release(states)


def test_flux_keeps_waiting_while_running() -> None:
    states = [fixture(n) for n in RUN]
    assert flux_wait(states) == ("TimedOut", 3)
    assert not release(states)


# --- the example in gitops/flux -----------------------------------------------------------------------------


def flux_objects() -> dict[str, dict[str, Any]]:
    documents = yaml.safe_load_all((FLUX / "flux-kustomizations.yaml").read_text())
    return {o["metadata"]["name"]: o for o in documents if o["kind"] == "Kustomization"}


def test_flux_kustomizations_wait_and_depend() -> None:
    kustomizations = flux_objects()
    evaluation, release_ = kustomizations["agent-evaluation"], kustomizations["agent-release"]
    assert evaluation["apiVersion"] == "kustomize.toolkit.fluxcd.io/v1"
    assert evaluation["spec"]["wait"] is True
    assert release_["spec"]["dependsOn"] == [{"name": "agent-evaluation"}]
    for kustomization in kustomizations.values():
        assert (ROOT / kustomization["spec"]["path"]).is_dir(), kustomization["spec"]["path"]
    # The wait outlasts the Evaluation's own deadline, so a verdict always arrives before Flux gives up.
    built = yaml.safe_load((FLUX / "evaluation" / "evaluation.yaml").read_text())
    minutes = int(evaluation["spec"]["timeout"].removesuffix("m"))
    assert minutes * 60 > built["spec"]["deadlineSeconds"]


def test_the_evaluation_and_the_release_carry_the_same_brain(k8s_bin: Path) -> None:
    evaluation_objects = kustomize(k8s_bin, FLUX / "evaluation")
    release_objects = kustomize(k8s_bin, FLUX / "release")
    brain = next(o for o in evaluation_objects if o["kind"] == "ConfigMap")
    evaluation = next(o for o in evaluation_objects if o["kind"] == "Evaluation")
    # kustomize filled in the hashed name: a brain edit is a spec change, so a new generation and a new run.
    assert brain["metadata"]["name"].startswith("support-agent-brain-")
    assert evaluation["spec"]["brain"]["configMap"]["name"] == brain["metadata"]["name"]
    EvaluationSpec.model_validate(evaluation["spec"])
    released = next(o for o in release_objects if o["kind"] == "ConfigMap")
    assert released["metadata"]["name"] == brain["metadata"]["name"]
    assert released["data"] == brain["data"]
    assert released["metadata"]["namespace"] == "agents-prod"


def test_the_example_brain_is_the_bundled_v1_brain() -> None:
    bundled = ROOT / "examples" / "support-desk" / "brains" / "v1"
    for path in bundled.iterdir():
        assert (FLUX / "brain" / path.name).read_text() == path.read_text(), path.name
