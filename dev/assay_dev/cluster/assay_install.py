"""Installing Assay into a local control plane the way users do: CRD, `helm install` of the chart, images.

Shared by the chart's end-to-end test and `make demo`. The images are the project's own, built by `make
images` into the local store (built here when missing) and named by digest, as a disconnected install
names them; the local kubelet runs them under runc with the chart's securityContext unchanged.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay_dev.images import build as images_build
from assay_dev.images.build import BuiltImage
from assay_operator.examples import example_campaign, example_evaluation

from .controlplane import ControlPlane

REPO = Path(__file__).resolve().parents[3]
CHART = REPO / "charts" / "assay"
CRDS = REPO / "crds"
EXAMPLES = REPO / "examples"
Obj = dict[str, Any]

__all__ = [
    "LocalImages",
    "brain_config_map",
    "example_campaign",
    "example_evaluation",
    "helm_install_args",
    "local_images",
    "workload_controllers",
]


@dataclass(frozen=True)
class LocalImages:
    """The operator and runner images of this checkout, by digest."""

    operator: BuiltImage
    runner: BuiltImage


def local_images() -> LocalImages:
    """This checkout's images from the local store, built first if missing (a warm check: about a second)."""
    built = {image.name: image for image in images_build.current(["operator", "runner"])}
    return LocalImages(operator=built["operator"], runner=built["runner"])


@contextmanager
def workload_controllers(cp: ControlPlane) -> Iterator[None]:
    """A second controller manager with the Deployment and ReplicaSet controllers, for `helm install`."""
    log = cp.logs_dir / "kube-controller-manager-workloads.log"
    with log.open("ab") as out:
        popen = subprocess.Popen(
            [
                "setpriv",
                "--pdeathsig",
                "KILL",
                "--",
                str(cp.bin_dir / "kube-controller-manager"),
                f"--kubeconfig={cp.kubeconfig}",
                "--leader-elect=false",
                "--controllers=deployment-controller,replicaset-controller",
                "--secure-port=0",
            ],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield
    finally:
        popen.terminate()
        try:
            popen.wait(15)
        except subprocess.TimeoutExpired:
            popen.kill()
            popen.wait(5)


def helm_install_args(
    namespace: str,
    health_port: int | None,
    metrics_port: int | None,
    images: LocalImages,
    extra: tuple[str, ...] = (),
) -> list[str]:
    """`helm install` of the chart with this checkout's images. The operator's health and metrics ports: on
    a node whose pods share the host's network, free ports instead of 8080/8081; None (a networked node,
    where the operator's pod has a network of its own): the chart's."""
    own_ports = health_port is None or metrics_port is None
    ports = () if own_ports else ("--set", f"operator.healthPort={health_port},metrics.port={metrics_port}")
    return [
        "install",
        "assay",
        str(CHART),
        "--namespace",
        namespace,
        "--skip-crds",  # installed beforehand with `kubectl apply --server-side`, the documented upgrade path
        "--set",
        f"image.repository={images.operator.repository},image.digest={images.operator.digest}",
        "--set",
        f"runner.image.repository={images.runner.repository},runner.image.digest={images.runner.digest}",
        *ports,
        "--wait",
        "--timeout=3m",
        *extra,
    ]


def brain_config_map(name: str, version: str) -> Obj:
    folder = EXAMPLES / "support-desk" / "brains" / version
    data = {f.name: f.read_text() for f in sorted(folder.iterdir()) if f.is_file()}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
