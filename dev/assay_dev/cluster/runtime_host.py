"""The host under the local kubelet's runtime (runtime.py): what it needs (runc, buildah, catatonit, cgroup
v1, root), checked at start, and the clean-up of what kubelets that died left on it (the processes in their
cgroup subtrees /assay-kubelet/<kubelet id>/, the cgroups, their containers' root mounts and their buildah
working containers).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import time
from pathlib import Path

from assay_dev.images import buildah

from . import overlay

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_PARENT = "assay-kubelet"
CATATONIT = Path("/usr/bin/catatonit")
CHECKOUT_PREFIX = "assay-kl-"


class ContainerRuntimeError(RuntimeError):
    """The runtime cannot run containers on this machine, or a container could not be created."""


def check_host() -> None:
    """Say what is missing at start rather than with every pod failing."""
    problems = []
    for tool in ("runc", "buildah"):
        if shutil.which(tool) is None:
            problems.append(f"{tool} is not installed")
    if not CATATONIT.is_file():
        problems.append(f"{CATATONIT} is missing (Debian package catatonit)")
    if not (CGROUP_ROOT / "memory" / "memory.limit_in_bytes").exists():
        problems.append("no cgroup v1 memory controller at /sys/fs/cgroup/memory")
    if os.geteuid() != 0:
        problems.append("the runc back end runs as root")
    if problems:
        raise ContainerRuntimeError(
            "the local kubelet cannot run containers: "
            + "; ".join(problems)
            + " (bash scripts/install-container-tools.sh installs the tools)"
        )


def _hierarchies() -> list[Path]:
    return [p for p in CGROUP_ROOT.iterdir() if p.is_dir()] if CGROUP_ROOT.is_dir() else []


def _remove_cgroup_tree(relative: str, kill: bool) -> None:
    """rmdir a cgroup subtree in every hierarchy, deepest first; with `kill`, SIGKILL its processes first."""
    for hierarchy in _hierarchies():
        top = hierarchy / relative
        if not top.is_dir():
            continue
        folders = [*sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)), top]
        if kill:
            for folder in folders:
                with contextlib.suppress(OSError):
                    for pid in (folder / "cgroup.procs").read_text().split():
                        with contextlib.suppress(ProcessLookupError, PermissionError):
                            os.kill(int(pid), signal.SIGKILL)
        for folder in folders:
            for _ in range(20):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)  # the last processes are still exiting


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale() -> None:
    """Kill and remove what kubelets that died (SIGKILLed test runs) left: their cgroups' processes, the
    cgroups, and their buildah working containers. A kubelet's id starts with its PID."""
    stale: set[str] = set()
    for hierarchy in _hierarchies():
        parent = hierarchy / CGROUP_PARENT
        if parent.is_dir():
            for child in parent.iterdir():
                match = re.match(r"k(\d+)-", child.name)
                if child.is_dir() and match and not _alive(int(match.group(1))):
                    stale.add(child.name)
    for kubelet_id in stale:
        _remove_cgroup_tree(f"{CGROUP_PARENT}/{kubelet_id}", kill=True)
    for source, point in overlay.mounted(re.compile(rf"{CHECKOUT_PREFIX}k(\d+)-")):
        match = re.match(rf"{CHECKOUT_PREFIX}k(\d+)-", source)
        if match and not _alive(int(match.group(1))):
            with contextlib.suppress(OSError):
                overlay.unmount(point)
    with contextlib.suppress(buildah.BuildahError):
        for name in buildah.working_containers(CHECKOUT_PREFIX):
            match = re.match(rf"{CHECKOUT_PREFIX}k(\d+)-", name)
            if match and not _alive(int(match.group(1))):
                buildah.release(name)
