"""Installing Assay into a local control plane the way users do: CRD, `helm install` of the chart, images.

Shared by the chart's end-to-end test and `make demo`. The "images" are this checkout's virtualenv run as
the image's USER 1001 by the local kubelet; the runner finds the bundled examples at their checkout path.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .controlplane import ControlPlane
from .kubelet import LocalKubelet
from .podspec import DEFAULT_PATH, ImageSpec

REPO = Path(__file__).resolve().parents[3]
CHART = REPO / "charts" / "assay"
CRDS = REPO / "crds"
EXAMPLES = REPO / "examples"
VENV_BIN = Path(sys.executable).parent
OPERATOR_IMAGE = "assay-local/operator:dev"
RUNNER_IMAGE = "assay-local/runner:dev"
IMAGE_USER = 1001
Obj = dict[str, Any]

# The local kubelet mounts the ServiceAccount token under /var/run, a symlink to /run on this machine; with a
# read-only root the symlink resolves outside the pod's root and the token goes missing. This post-renderer
# turns readOnlyRootFilesystem off for the operator container in local installs only (the chart's own
# setting is checked by the render and admission tests).
POST_RENDERER = f"""#!{sys.executable}
import sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
for d in docs:
    if d["kind"] == "Deployment":
        d["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] = False
yaml.safe_dump_all(docs, sys.stdout)
"""


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


def register_images(kubelet: LocalKubelet) -> None:
    path = f"{VENV_BIN}:{DEFAULT_PATH}"
    kubelet.register_image(
        OPERATOR_IMAGE,
        ImageSpec(
            entrypoint=(str(VENV_BIN / "assay-operator"),),
            env={"PATH": path, "PYTHONDONTWRITEBYTECODE": "1"},
            user=IMAGE_USER,
        ),
    )
    kubelet.register_image(
        RUNNER_IMAGE, ImageSpec(entrypoint=("assay",), env={"PATH": path}, workdir="/work", user=IMAGE_USER)
    )
    # Pods mount emptyDirs at /work and /tmp, over a checkout that may live there: the sources and the bundled
    # examples are "in the image" (a real image has them under /opt/assay), so the kubelet keeps them visible.
    import assay_operator
    import assay_runner

    sources = {Path(package.__file__).resolve().parents[1] for package in (assay_runner, assay_operator)}
    for kept in (*sorted(map(str, sources)), str(EXAMPLES)):
        if kept not in kubelet.keep_paths:
            kubelet.keep_paths.append(kept)


def helm_install_args(
    namespace: str, health_port: int, metrics_port: int, post_renderer: Path, extra: tuple[str, ...] = ()
) -> list[str]:
    operator_repository, operator_tag = OPERATOR_IMAGE.rsplit(":", 1)
    runner_repository, runner_tag = RUNNER_IMAGE.rsplit(":", 1)
    return [
        "install",
        "assay",
        str(CHART),
        "--namespace",
        namespace,
        "--skip-crds",  # installed beforehand with `kubectl apply --server-side`, the documented upgrade path
        "--set",
        f"image.repository={operator_repository},image.tag={operator_tag}",
        "--set",
        f"runner.image.repository={runner_repository},runner.image.tag={runner_tag}",
        "--set",
        f"runner.bundledRoot={EXAMPLES}",
        # Pods share the host's network here: free ports instead of 8080/8081.
        "--set",
        f"operator.healthPort={health_port},metrics.port={metrics_port}",
        "--post-renderer",
        str(post_renderer),
        "--wait",
        "--timeout=3m",
        *extra,
    ]


def brain_config_map(name: str, version: str) -> Obj:
    folder = EXAMPLES / "support-desk" / "brains" / version
    data = {f.name: f.read_text() for f in sorted(folder.iterdir()) if f.is_file()}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def example_evaluation(name: str, brain: str, answers: str) -> Obj:
    """The bundled example, replayed from recorded answers and model-judge cassettes (offline)."""
    return {
        "apiVersion": "assay.dev/v1alpha1",
        "kind": "Evaluation",
        "metadata": {"name": name},
        "spec": {
            "brain": {"configMap": {"name": brain}},
            "suite": {"bundled": "support-desk"},
            "agent": {"kind": "replay", "answers": {"bundled": f"support-desk/answers/{answers}"}},
            "cassettes": {"bundled": "support-desk/cassettes"},
            "judgeModel": "example-judge",
            "resources": {"cpu": "500m", "memory": "512Mi"},
        },
    }


def example_campaign(name: str = "brains") -> Obj:
    """Brain v1 challenging the released v0, both replayed (one recorded repetition each)."""
    base = example_evaluation("unused", "brain-v0", "v0")["spec"]
    shared = {k: v for k, v in base.items() if k not in ("brain", "agent")}
    replay = {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}}
    return {
        "apiVersion": "assay.dev/v1alpha1",
        "kind": "Campaign",
        "metadata": {"name": name},
        "spec": {
            **shared,
            "repetitions": 1,
            "maxParallel": 1,
            "incumbent": {
                "name": "released",
                "brain": {"configMap": {"name": "brain-v0"}},
                "agent": {**replay, "answers": {"bundled": "support-desk/answers/v0"}},
            },
            "candidates": [{"name": "v1", "brain": {"configMap": {"name": "brain-v1"}}, "agent": replay}],
        },
    }
