"""Fixtures shared by every test on the real control plane (tests/integration, tests/operator_cluster; see
docs/control-plane.md).

`control_plane` (session): etcd + kube-apiserver + kube-controller-manager built by scripts/build-k8s.sh
(or taken from $ASSAY_K8S_BIN_DIR). `kubelet` (session): the local kubelet that runs pods as processes.
`namespace` (per test): a fresh namespace whose `default` ServiceAccount exists, deleted afterwards.

Missing binaries fail the run; they never skip it, so a broken build cannot turn CI green.
"""

from __future__ import annotations

import re
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_dev.cluster import ControlPlane, ControlPlaneError, ImageSpec, LocalKubelet, locate_binaries
from assay_dev.cluster.podspec import DEFAULT_PATH

PYTHON_IMAGE = "assay-test/python:local"
"""An image whose `python` is this interpreter (its venv's bin first on PATH)."""

_BIN_DIR = pytest.StashKey[Path | ControlPlaneError]()


@pytest.hookimpl(trylast=True)  # after -m/-k deselection: build only when a cluster test will run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if any(item.get_closest_marker("cluster") for item in items):
        # Here rather than in a fixture: a cold build takes longer than the per-test timeout.
        try:
            config.stash[_BIN_DIR] = locate_binaries()
        except ControlPlaneError as error:
            config.stash[_BIN_DIR] = error  # every cluster test errors with it, below


@pytest.fixture(scope="session")
def control_plane(pytestconfig: pytest.Config) -> Iterator[ControlPlane]:
    located = pytestconfig.stash.get(_BIN_DIR, None)
    if isinstance(located, ControlPlaneError):
        pytest.fail(f"no control-plane binaries: {located}", pytrace=False)
    with ControlPlane(located or locate_binaries()) as plane:
        yield plane


@pytest.fixture(scope="session")
def kubelet(control_plane: ControlPlane) -> Iterator[LocalKubelet]:
    python_bin = str(Path(sys.executable).parent)
    images = {PYTHON_IMAGE: ImageSpec(entrypoint=("python",), env={"PATH": f"{python_bin}:{DEFAULT_PATH}"})}
    local = control_plane.local_kubelet(images)
    local.start()
    yield local
    local.stop()


@pytest.fixture
def namespace(
    control_plane: ControlPlane, kubelet: LocalKubelet, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A fresh namespace per test; pods in it run (the kubelet is started)."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")
    name = f"{slug[:48].rstrip('-')}-{secrets.token_hex(3)}"
    control_plane.create_namespace(name)
    yield name
    control_plane.delete_namespace(name)
