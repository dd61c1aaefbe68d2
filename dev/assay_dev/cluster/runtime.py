"""The local kubelet's container runtime: pods under runc, each container on its image's root filesystem.

- NodeRuntime: one per kubelet — runc's state directory, the sandbox's root filesystem (catatonit alone),
  the cgroup subtree /assay-kubelet/<kubelet id>/ in every hierarchy, and the clean-up of what a kubelet
  that died left behind (its processes, cgroups and buildah working containers: runtime_host.py).
- PodSandbox: one per pod — `catatonit -P` (Kubernetes' pause) holding the pod's IPC and UTS namespaces
  (and the PID namespace containers share under shareProcessNamespace), started before the first
  container and removed after the last; /etc/hostname for the pod.
- ContainerHandle: one per container — an overlay of its image's root with a private writable layer
  (`overlay`: the container's root, read-only under readOnlyRootFilesystem; the image's root is one buildah
  working container per kubelet and image), a runc bundle, and the foreground `runc run --keep` process; on
  exit, the exit code, whether runc itself failed to start it, and the memory cgroup's OOM kills, read
  before `runc delete` removes the cgroup.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from assay_dev.images import buildah

from . import oci, overlay, resources, runc
from .runtime_host import (
    CATATONIT,
    CGROUP_PARENT,
    CHECKOUT_PREFIX,
    _remove_cgroup_tree,
    check_host,
    clean_stale,
)
from .seccomp import runtime_default
from .security import Security

SANDBOX_USER = 65535
HOST_FILES = ("/etc/hosts", "/etc/resolv.conf")
"""Bound read-only into every container, as kubelet does for host-network pods."""


@dataclass(frozen=True)
class ExitStatus:
    code: int
    start_error: str
    """runc's own error when the process could not be started (Kubernetes' StartError), else empty."""
    oom_kills: int


class NodeRuntime:
    def __init__(self, work_dir: Path, pids_limit: int = 4096) -> None:
        self.work_dir = work_dir
        digest = hashlib.sha256(str(work_dir).encode()).hexdigest()[:8]
        self.id = f"k{os.getpid()}-{digest}"
        self.pids_limit = pids_limit
        self.runc = runc.Runc(work_dir / "runc")
        self.sandbox_rootfs = work_dir / "sandbox-rootfs"
        self.swap_accounted = resources.swap_accounted()
        self.oom_score_floor = resources.oom_score_floor()
        self.mount_source = f"{CHECKOUT_PREFIX}{self.id}"
        """The source its containers' root mounts carry: whose they are, for the clean-up."""
        self._image_roots: dict[str, Path] = {}
        self._image_lock = threading.Lock()
        self.landlock_allowed = True
        """Whether its RuntimeDefault seccomp profile lets containers call Landlock (containers/common's
        does). A test may set it False for a while: a node like containerd 1.6's, whose agents run without
        the cell's sandbox (each cell's `isolation` says so), so the layers behind it can be shown."""

    def start(self) -> None:
        check_host()
        clean_stale()
        self.work_dir.mkdir(parents=True, exist_ok=True)
        if not (self.sandbox_rootfs / "catatonit").is_file():
            for folder in ("proc", "dev", "sys", "etc"):
                (self.sandbox_rootfs / folder).mkdir(parents=True, exist_ok=True)
            shutil.copy2(CATATONIT, self.sandbox_rootfs / "catatonit")

    def stop(self) -> None:
        """Remove every container still known to runc, then this kubelet's cgroups, its containers' root
        mounts and its images' roots."""
        for container_id in self.runc.list():
            self.runc.delete(container_id)
        _remove_cgroup_tree(f"{CGROUP_PARENT}/{self.id}", kill=True)
        for _, point in overlay.mounted(re.compile(re.escape(self.mount_source) + "$")):
            with contextlib.suppress(OSError):
                overlay.unmount(point)
        self._image_roots.clear()
        with contextlib.suppress(buildah.BuildahError):
            for name in buildah.working_containers(f"{CHECKOUT_PREFIX}{self.id}-"):
                buildah.release(name)

    def image_root(self, image_id: str) -> Path:
        """The image's root filesystem, checked out once for this kubelet: the lower layer of every
        container of the image (none of them writes to it)."""
        with self._image_lock:
            root = self._image_roots.get(image_id)
            if root is None:
                root = buildah.checkout(image_id, f"{self.mount_source}-image-{image_id[:24]}")
                self._image_roots[image_id] = root
            return root

    def oom_score(self, wanted: int) -> int:
        return max(wanted, self.oom_score_floor)

    def cgroup(self, pod_uid: str, name: str = "") -> str:
        path = f"/{CGROUP_PARENT}/{self.id}/pod{pod_uid}"
        return f"{path}/{name}" if name else path

    def sandbox(self, pod_uid: str, pod_dir: Path, hostname: str, netns: Path | None = None) -> PodSandbox:
        return PodSandbox(self, pod_uid, pod_dir, hostname, netns)


def _runc_id(pod_uid: str, name: str) -> str:
    return f"{pod_uid[:18]}-{re.sub(r'[^A-Za-z0-9_.-]', '-', name)}"


class PodSandbox:
    def __init__(
        self, node: NodeRuntime, pod_uid: str, pod_dir: Path, hostname: str, netns: Path | None = None
    ) -> None:
        self.node = node
        self.netns = netns
        """The pod's network namespace on a networked node (network.py); None: the host's network."""
        self.pod_uid = pod_uid
        self.dir = pod_dir / "runtime"
        self.hostname = hostname
        self.id = _runc_id(pod_uid, "sandbox")
        self.pid = 0
        self.containers: list[ContainerHandle] = []

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "hostname").write_text(self.hostname + "\n")
        (self.dir / "hostname").chmod(0o644)
        no_capabilities = Security(
            capabilities=(), no_new_privileges=True, read_only_root=True, seccomp="RuntimeDefault"
        )
        spec = oci.ContainerSpec(
            process=oci.Process(
                ["/catatonit", "-P"],
                {"PATH": "/"},
                "/",
                SANDBOX_USER,
                SANDBOX_USER,
                (),
                self.node.oom_score(-998),
            ),
            rootfs=str(self.node.sandbox_rootfs),
            security=no_capabilities,
            cgroups_path=self.node.cgroup(self.pod_uid, "sandbox"),
            resources=resources.linux_resources({}, 16, self.node.swap_accounted),
            seccomp=runtime_default(()),
            hostname=self.hostname,
            namespace_paths=self._network(),
        )
        bundle = self.dir / "sandbox"
        self.node.runc.write_bundle(bundle, oci.runtime_spec(spec))
        self.pid = self.node.runc.run_detached(self.id, bundle, bundle / "runc.log")

    def _network(self) -> dict[str, str]:
        return {"network": str(self.netns)} if self.netns is not None else {}

    def namespace_paths(self, share_pid: bool) -> dict[str, str]:
        kinds = [kind for kind in oci.POD_NAMESPACES if share_pid or kind != "pid"]
        return {**{kind: f"/proc/{self.pid}/ns/{kind}" for kind in kinds}, **self._network()}

    def host_mounts(self) -> list[oci.Mount]:
        mounts = [oci.Mount(str(self.dir / "hostname"), "/etc/hostname", read_only=True)]
        mounts += [oci.Mount(path, path, read_only=True) for path in HOST_FILES if Path(path).is_file()]
        return mounts

    def create(
        self,
        name: str,
        image_id: str,
        process: oci.Process,
        security: Security,
        limits: dict[str, object],
        mounts: Sequence[oci.Mount],
        share_pid: bool = False,
    ) -> ContainerHandle:
        """Mount the container's root (image plus writable layer), write its bundle; start() runs it."""
        handle = ContainerHandle(self, name)
        handle.rootfs = overlay.mount(
            self.node.image_root(image_id), handle.layer, handle.bundle / "rootfs", self.node.mount_source
        )
        try:
            self._write_bundle(handle, process, security, limits, mounts, share_pid)
        except BaseException:
            overlay.unmount(handle.rootfs, handle.layer)
            raise
        self.containers.append(handle)
        return handle

    def _write_bundle(
        self,
        handle: ContainerHandle,
        process: oci.Process,
        security: Security,
        limits: dict[str, object],
        mounts: Sequence[oci.Mount],
        share_pid: bool,
    ) -> None:
        seccomp = (
            runtime_default(security.capabilities, landlock=self.node.landlock_allowed)
            if security.seccomp == "RuntimeDefault"
            else None
        )
        spec = oci.ContainerSpec(
            process=process,
            rootfs=str(handle.rootfs),
            security=security,
            cgroups_path=handle.cgroup,
            resources=limits,
            seccomp=seccomp,
            mounts=[*self.host_mounts(), *mounts],
            namespace_paths=self.namespace_paths(share_pid),
        )
        self.node.runc.write_bundle(handle.bundle, oci.runtime_spec(spec))

    def stop(self) -> None:
        """Kill and remove every container, then the sandbox and the pod's cgroups."""
        for handle in self.containers:
            handle.remove()
        if self.pid:
            self.node.runc.kill(self.id, signal.SIGKILL)
            self.node.runc.delete(self.id)
            self.pid = 0
        _remove_cgroup_tree(self.node.cgroup(self.pod_uid).lstrip("/"), kill=True)


class ContainerHandle:
    def __init__(self, sandbox: PodSandbox, name: str) -> None:
        self.sandbox = sandbox
        self.name = name
        self.id = _runc_id(sandbox.pod_uid, name)
        self.cgroup = sandbox.node.cgroup(sandbox.pod_uid, name)
        self.bundle = sandbox.dir / name
        self.layer = sandbox.dir / f"{name}.layer"
        """The container's writable layer (upper and work directories of its root's overlay)."""
        self.runc_log = self.bundle / "runc.log"
        self.rootfs: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.removed = False

    @property
    def runc(self) -> runc.Runc:
        return self.sandbox.node.runc

    def start(self, log_file: Path, timeout: float = 60) -> None:
        """Start the container and return once runc has it running (or it has already ended), so a
        container reported Running can be signalled."""
        with log_file.open("ab") as output:
            self.process = self.runc.run(self.id, self.bundle, output, self.runc_log)
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            state = self.runc.state(self.id)
            if state is not None and state.get("status") in ("running", "stopped"):
                return
            time.sleep(0.02)

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def exited(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def signal(self, sig: signal.Signals) -> None:
        """SIGTERM reaches the container's first process; SIGKILL every process in its cgroup."""
        if self.running():
            self.runc.kill(self.id, sig, every_process=sig == signal.SIGKILL)

    def exit_status(self) -> ExitStatus:
        assert self.process is not None
        code = self.process.wait()
        start_error = runc.errors(self.runc_log)
        return ExitStatus(
            code=128 - code if code < 0 else code,
            start_error=start_error,
            oom_kills=resources.oom_kills(self.cgroup),
        )

    def remove(self) -> None:
        """Kill what is left, delete the runc container (and its cgroup), drop the working container."""
        if self.removed:
            return
        self.removed = True
        if self.process is not None and self.process.poll() is None:
            self.runc.kill(self.id, signal.SIGKILL, every_process=True)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(10)
        self.runc.delete(self.id)
        if self.rootfs is not None:
            overlay.unmount(self.rootfs, self.layer)
