"""manifests/base is the chart rendered with default values: re-rendering changes nothing, kustomize builds it
into the same objects, and an overlay that moves it to another namespace keeps the operator's identity
consistent (RoleBinding subject, and ASSAY_NAMESPACES read from the pod's own namespace)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.chart.conftest import ROOT, Helm, kustomize
from tests.chart.test_render import load_script

BASE = ROOT / "manifests" / "base"


def key(obj: dict[str, Any]) -> tuple[str, str, str]:
    return obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def test_manifests_have_not_drifted(helm: Helm) -> None:
    renderer = load_script("render_manifests")
    assert renderer.drift(helm.binary) == [], "run python scripts/render_manifests.py"


def test_drift_is_detected(helm: Helm, tmp_path: Path, monkeypatch: Any) -> None:
    renderer = load_script("render_manifests")
    for path in BASE.glob("*.yaml"):
        (tmp_path / path.name).write_text(path.read_text())
    (tmp_path / "deployment-assay-operator.yaml").write_text(
        (BASE / "deployment-assay-operator.yaml").read_text().replace("type: Recreate", "type: RollingUpdate")
    )
    (tmp_path / "stray.yaml").write_text("kind: ConfigMap\n")
    monkeypatch.setattr(renderer, "BASE", tmp_path)
    diffs = renderer.drift(helm.binary)
    assert len(diffs) == 2
    assert "-    type: RollingUpdate" in diffs[0] and "+    type: Recreate" in diffs[0]
    assert "manifests/base/stray.yaml" in diffs[1]


def test_kustomize_builds_the_chart_objects(helm: Helm, k8s_bin: Path) -> None:
    built = {key(o): o for o in kustomize(k8s_bin, BASE)}
    # As scripts/render_manifests.py renders it: no generated decision key (it would be one key for all).
    extra = ["--include-crds", "--set", "decisionKey.generate=false"]
    rendered = [o for o in yaml.safe_load_all(helm.template(extra=extra)) if o]
    assert built == {key(o): o for o in rendered}


def test_an_overlay_moves_the_operator_to_another_namespace(k8s_bin: Path, tmp_path: Path) -> None:
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (tmp_path / "base").symlink_to(BASE)
    (overlay / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ml-evals\n"
        "resources: [../base]\n"
    )
    objects = {o["kind"]: o for o in kustomize(k8s_bin, overlay)}
    for kind in ("Deployment", "Role", "RoleBinding", "ServiceAccount", "NetworkPolicy", "Service"):
        assert objects[kind]["metadata"]["namespace"] == "ml-evals", kind
    assert objects["RoleBinding"]["subjects"][0]["namespace"] == "ml-evals"
    env = {e["name"]: e for e in objects["Deployment"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["ASSAY_NAMESPACES"]["value"] == "$(POD_NAMESPACE)"
    assert env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace"
