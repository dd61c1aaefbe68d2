"""Fixtures for the chart and manifest tests (the control-plane ones come from tests/conftest.py).

`k8s_bin` (session): the directory with helm and kubectl, located - and built if missing - at collection
time, as tests/conftest.py does for cluster tests, because a cold build outlasts the per-test timeout: the
render tests need helm but no control plane. Missing binaries fail the tests that need them; never skip.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_dev.cluster import ControlPlane, ControlPlaneError, locate_binaries
from assay_dev.cluster.crds import wait_established

_LOCATED = pytest.StashKey[Path | ControlPlaneError]()
NEEDS_BINARIES = {"k8s_bin", "helm"}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if any(NEEDS_BINARIES & set(getattr(item, "fixturenames", ())) for item in items):
        try:
            config.stash[_LOCATED] = locate_binaries()
        except ControlPlaneError as error:
            config.stash[_LOCATED] = error


@pytest.fixture(scope="session")
def k8s_bin(pytestconfig: pytest.Config) -> Path:
    located = pytestconfig.stash.get(_LOCATED, None)
    if isinstance(located, ControlPlaneError):
        pytest.fail(f"no helm/kubectl binaries: {located}", pytrace=False)
    return located or locate_binaries()


def kustomize(k8s_bin: Path, directory: Path) -> list[dict[str, Any]]:
    """`kubectl kustomize DIR`, as objects."""
    result = subprocess.run(
        [str(k8s_bin / "kubectl"), "kustomize", str(directory)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return [o for o in yaml.safe_load_all(result.stdout) if o]


class Helm:
    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def run(
        self, *args: str, check: bool = True, kubeconfig: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        argv = [str(self.binary), *args]
        if kubeconfig is not None:
            argv.append(f"--kubeconfig={kubeconfig}")
        result = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        if check and result.returncode != 0:
            raise AssertionError(f"helm {' '.join(args)} exited {result.returncode}:\n{result.stderr}")
        return result

    def template(self, *values: Path, namespace: str = "assay-system", extra: Sequence[str] = ()) -> str:
        args = ["template", "assay", str(CHART), "--namespace", namespace]
        for path in values:
            args += ["--values", str(path)]
        return self.run(*args, *extra).stdout


ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "charts" / "assay"
VALUES = Path(__file__).parent / "values"


@pytest.fixture(scope="session")
def helm(k8s_bin: Path) -> Helm:
    return Helm(k8s_bin / "helm")


@pytest.fixture(scope="session")
def crd(control_plane: ControlPlane) -> None:
    """The Evaluation and Campaign CRDs, installed the documented way (charts/assay/README.md)."""
    control_plane.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(CHART / "crds"))
    wait_established(control_plane.api, ["evaluations.assay.dev", "campaigns.assay.dev"])
