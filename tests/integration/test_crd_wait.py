"""Waiting for a new CRD (make demo, the chart tests): `kubectl wait --for=condition=Established` fails at
once on an object whose `status.conditions` is still null — the state of every CRD for a moment after it is
created — so `make demo` could fail by chance. The demo now polls through the API (assay_dev.cluster.crds)."""

from __future__ import annotations

import importlib.util
import secrets
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from assay_dev.cluster import ControlPlane
from assay_dev.cluster.crds import CRDS_PATH, has_condition, wait_established

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parents[2]
Obj = dict[str, Any]


def load_demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_cluster", ROOT / "scripts" / "demo_cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as an import would: the script's dataclasses look their module up by name.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def null_conditions(control_plane: ControlPlane) -> Iterator[tuple[str, str]]:
    """A custom resource whose status.conditions is null, as a CRD's is before its controllers run (a CRD
    of our own: the apiserver owns a real CRD's status and writes it within milliseconds)."""
    group = f"nullstatus-{secrets.token_hex(3)}.example.com"
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"things.{group}"},
        "spec": {
            "group": group,
            "scope": "Cluster",
            "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                    },
                }
            ],
        },
    }
    control_plane.api.create(CRDS_PATH, crd)
    wait_established(control_plane.api, [f"things.{group}"])
    path = f"/apis/{group}/v1/things"
    control_plane.api.create(
        path,
        {
            "apiVersion": f"{group}/v1",
            "kind": "Thing",
            "metadata": {"name": "fresh"},
            "status": {"conditions": None},
        },
    )
    yield f"things.{group}", f"{path}/fresh"
    control_plane.api.delete(f"{CRDS_PATH}/things.{group}")


def test_kubectl_wait_fails_at_once_on_null_conditions(
    control_plane: ControlPlane, null_conditions: tuple[str, str]
) -> None:
    """The failure `make demo` hit, made deterministic: kubectl does not wait, it errors."""
    crd_name, path = null_conditions
    stored = control_plane.api.get(path)
    assert "conditions" in stored["status"] and stored["status"]["conditions"] is None
    started = time.monotonic()
    result = control_plane.kubectl(
        "wait", "--for=condition=Established", f"{crd_name}/fresh", "--timeout=20s", check=False
    )
    assert result.returncode != 0
    assert "accessor error" in result.stderr, result.stderr
    assert time.monotonic() - started < 15, "kubectl waited: the failure mode is not reproduced"
    # What the demo now uses reads the same object as "not yet", without an error.
    assert has_condition(stored, "Established") is False


def test_the_demo_waits_for_fresh_crds(control_plane: ControlPlane, tmp_path: Path) -> None:
    """The demo's CRD step on CRDs that did not exist a moment before (renamed copies of ours, so the shared
    ones are untouched), five times over: each returns only once the CRD is Established and served."""
    demo = load_demo()
    created: list[str] = []
    try:
        _install_five(demo, control_plane, tmp_path, created)
    finally:
        for name in created:
            control_plane.api.delete(f"{CRDS_PATH}/{name}")


def _install_five(demo: ModuleType, control_plane: ControlPlane, tmp_path: Path, created: list[str]) -> None:
    for _ in range(5):
        group = f"wait-{secrets.token_hex(3)}.assay.dev"
        directory = tmp_path / group
        directory.mkdir()
        for source in sorted((ROOT / "crds").glob("*.yaml")):
            (directory / source.name).write_text(source.read_text().replace("assay.dev", group))
        demo.install_crds(control_plane, directory)
        for source in sorted(directory.glob("*.yaml")):
            crd = next(d for d in yaml.safe_load_all(source.read_text()) if d)
            created.append(crd["metadata"]["name"])
            got = control_plane.api.get(f"{CRDS_PATH}/{crd['metadata']['name']}")
            assert has_condition(got, "Established")
            control_plane.api.get(f"/apis/{group}/v1alpha1/{crd['spec']['names']['plural']}")


def test_has_condition_reads_every_shape() -> None:
    assert not has_condition({}, "Established")
    assert not has_condition({"status": None}, "Established")
    assert not has_condition({"status": {"conditions": None}}, "Established")
    assert not has_condition(
        {"status": {"conditions": [{"type": "Established", "status": "False"}]}}, "Established"
    )
    assert has_condition(
        {"status": {"conditions": [{"type": "Established", "status": "True"}]}}, "Established"
    )
