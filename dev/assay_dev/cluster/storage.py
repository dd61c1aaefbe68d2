"""Dynamic volumes on the local control plane: Rancher's local-path provisioner, the real one (k3s and kind
ship it), so an Evaluation's PersistentVolumeClaims are provisioned, bound and removed as on a cluster.

The binary and its manifests come from one module version (tools/local-path-provisioner, built and cached
by scripts/build-go-tools.sh). It runs as a local process like the control plane's, with its own
ServiceAccount and the upstream RBAC (a TokenRequest kubeconfig: a missing permission fails), and:

- the upstream manifests (namespace, ServiceAccount, Role, ClusterRole, bindings, StorageClass, ConfigMap)
  applied without their Deployment (the process runs here instead);
- `sharedFileSystemPath` mode: one directory of this host is "mounted on every node" (trivially: there is
  one node). In that mode the provisioner supports ReadWriteOnce and ReadWriteMany and the StorageClass
  binds `Immediate` — upstream documents both — so no scheduler is needed: the local kubelet binds pods
  itself, and a WaitForFirstConsumer class would wait for a kube-scheduler that does not run here;
- its helper pod (which creates and removes each volume's directory) from the project's own image, as root
  (it removes files the runner pods wrote under arbitrary uids), run by the local kubelet like any pod;
- the StorageClass `local-path` marked the cluster's default, so a claim that names no class gets it.

PersistentVolumes are `hostPath` volumes under the shared directory; the local kubelet mounts a claim by
resolving it to its bound volume (volumes.py).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .controlplane import ControlPlane
from .processes import REPO, ControlPlaneError, _Process

GO_TOOLS = REPO / "scripts" / "build-go-tools.sh"
NAMESPACE = "local-path-storage"
SERVICE_ACCOUNT = "local-path-provisioner-service-account"
CONFIG_MAP = "local-path-config"
STORAGE_CLASS = "local-path"
PROVISIONER = "rancher.io/local-path"
DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
READY_LINE = "Provisioner started"
Obj = dict[str, Any]


def locate() -> Path:
    """The provisioner's binary (its manifests are in config/ beside it), built on first use."""
    built = subprocess.run(
        ["bash", str(GO_TOOLS), "local-path-provisioner"], capture_output=True, text=True, check=False
    )
    if built.returncode != 0:
        raise ControlPlaneError(f"{GO_TOOLS} local-path-provisioner failed:\n{built.stderr}")
    return Path(built.stdout.strip().splitlines()[-1])


def helper_pod(image: str) -> Obj:
    """The helper pod template: the project's image (a shell, mkdir, rm), as root, nothing else."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "helper-pod"},
        "spec": {
            "securityContext": {"runAsUser": 0, "runAsGroup": 0},
            "containers": [{"name": "helper-pod", "image": image}],
        },
    }


def manifests(upstream: Path, image: str, shared: Path) -> list[Obj]:
    """The upstream manifests for this control plane: no Deployment, the shared-filesystem config with an
    Immediate default StorageClass, the helper pod from `image`."""
    out = []
    for document in (d for d in yaml.safe_load_all(upstream.read_text()) if d):
        kind = document["kind"]
        if kind == "Deployment":
            continue
        if kind == "StorageClass":
            document["volumeBindingMode"] = "Immediate"
            document.setdefault("metadata", {}).setdefault("annotations", {})[DEFAULT_CLASS] = "true"
        if kind == "ConfigMap":
            document["data"]["config.json"] = json.dumps({"sharedFileSystemPath": str(shared)})
            document["data"]["helperPod.yaml"] = yaml.safe_dump(helper_pod(image))
        out.append(document)
    return out


@dataclass
class LocalPathStorage:
    plane: ControlPlane
    binary: Path
    shared: Path
    """Where every volume's directory is made (`<shared>/<pv>_<namespace>_<claim>`)."""
    process: _Process | None = None

    @property
    def upstream(self) -> Path:
        return self.binary.parent / "config" / "local-path-storage.yaml"

    def start(self, helper_image: str, timeout: float = 60) -> LocalPathStorage:
        plane = self.plane
        self.shared.mkdir(parents=True, exist_ok=True)
        documents = manifests(self.upstream, helper_image, self.shared)
        plane.kubectl("apply", "--filename=-", input=yaml.safe_dump_all(documents))
        plane.wait_for_serviceaccount(NAMESPACE, SERVICE_ACCOUNT, timeout=60)
        config = next(d for d in documents if d["kind"] == "ConfigMap")["data"]["config.json"]
        config_file = plane.work_dir / "local-path-config.json"
        config_file.write_text(config)
        kubeconfig = plane.token_kubeconfig(NAMESPACE, SERVICE_ACCOUNT, expiration_seconds=86400)
        self.process = plane._spawn(
            "local-path-provisioner",
            [
                str(self.binary),
                "--debug",
                "start",
                f"--config={config_file}",
                f"--kubeconfig={kubeconfig}",
                f"--namespace={NAMESPACE}",
                f"--service-account-name={SERVICE_ACCOUNT}",
                f"--configmap-name={CONFIG_MAP}",
                f"--provisioner-name={PROVISIONER}",
                f"--helper-image={helper_image}",
            ],
        )
        process = self.process
        plane._wait(process, lambda: READY_LINE in process.log_tail(200), timeout, "local-path-provisioner")
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.plane._processes.remove(self.process)
            self.process = None

    def log_tail(self, lines: int = 40) -> str:
        return "" if self.process is None else self.process.log_tail(lines)


def start_storage(plane: ControlPlane, helper_image: str) -> LocalPathStorage:
    """The provisioner for `plane`, started; its volumes live under the control plane's work directory."""
    return LocalPathStorage(plane, locate(), plane.work_dir / "local-path").start(helper_image)
