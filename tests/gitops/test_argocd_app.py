"""The Argo CD example: one Application whose Evaluation is sync wave 0 and whose released brain is wave 1."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.chart.conftest import kustomize

ROOT = Path(__file__).resolve().parents[2]
ARGOCD = ROOT / "gitops" / "argocd"


def test_the_release_waits_for_the_evaluation(k8s_bin: Path) -> None:
    objects = kustomize(k8s_bin, ARGOCD / "sync-waves")
    waves = {
        (o["kind"], o["metadata"]["namespace"]): (o["metadata"].get("annotations") or {}).get(
            "argocd.argoproj.io/sync-wave", "0"
        )
        for o in objects
    }
    assert waves == {
        ("ConfigMap", "agents-eval"): "0",
        ("Evaluation", "agents-eval"): "0",
        ("ConfigMap", "agents-prod"): "1",
    }
    brains = {o["metadata"]["name"] for o in objects if o["kind"] == "ConfigMap"}
    evaluation = next(o for o in objects if o["kind"] == "Evaluation")
    assert brains == {evaluation["spec"]["brain"]["configMap"]["name"]}


def test_the_application_points_at_the_example() -> None:
    application = yaml.safe_load((ARGOCD / "application.yaml").read_text())
    assert (ROOT / application["spec"]["source"]["path"]).is_dir()
