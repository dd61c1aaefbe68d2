"""The OCI runtime spec (runc's config.json) of a pod's containers and of its sandbox, as pure data.

A pod is a sandbox process (catatonit -P, Kubernetes' "pause") that holds the pod's IPC and UTS namespaces
(and its PID namespace, which containers join only under shareProcessNamespace), and containers that join
them; each container has its own PID (by default), mount and cgroup namespaces and its image's root
filesystem. There is no network namespace (pods share the host's network: the node runs on loopback; see
docs/runtime.md), except on a networked node (network.py), whose pods join the one it made for them.
What a container gets, as CRI-O gives it: its own /proc, a private /dev with the default
devices, /sys and the cgroup tree read-only, CRI-O's masked and read-only /proc and /sys paths, its
volumes as bind mounts, the capability set and seccomp profile of its securityContext, no_new_privs when
escalation is off, and cgroup v1 limits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .security import Security

Obj = dict[str, Any]

OCI_VERSION = "1.0.2"
DEV_SHM_SIZE = 64 * 1024 * 1024  # Kubernetes' default /dev/shm

MASKED_PATHS = (
    "/proc/acpi",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/sys/firmware",
    "/sys/fs/selinux",
    "/sys/dev/block",
)
READONLY_PATHS = ("/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger")
POD_NAMESPACES = ("pid", "ipc", "uts")
"""The sandbox's namespaces. Containers always join its IPC and UTS namespaces; its PID namespace only with
`shareProcessNamespace: true` — otherwise each container has its own, as Kubernetes gives it (CRI's
NamespaceMode CONTAINER), and sees no other container's processes, its pod's included."""


@dataclass(frozen=True)
class Mount:
    """A bind mount of a host path (a volume, a file the kubelet writes) into the container."""

    source: str
    destination: str
    read_only: bool = False


@dataclass(frozen=True)
class Process:
    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: str
    uid: int
    gid: int
    groups: Sequence[int] = ()
    oom_score_adj: int = 0


@dataclass(frozen=True)
class ContainerSpec:
    process: Process
    rootfs: str
    security: Security
    cgroups_path: str
    resources: Obj
    seccomp: Obj | None = None
    mounts: Sequence[Mount] = ()
    namespace_paths: Mapping[str, str] = field(default_factory=dict)
    """type -> /proc/PID/ns/TYPE of the sandbox to join; the others are new. "network" (a networked node's
    pod namespace, /run/netns/...) is joined when given, else the host's is kept."""
    hostname: str | None = None
    """Only for the sandbox: containers joining its UTS namespace inherit the name."""


def _base_mounts() -> list[Obj]:
    return [
        {"destination": "/proc", "type": "proc", "source": "proc", "options": ["nosuid", "noexec", "nodev"]},
        {
            "destination": "/dev",
            "type": "tmpfs",
            "source": "tmpfs",
            "options": ["nosuid", "strictatime", "mode=755", "size=65536k"],
        },
        {
            "destination": "/dev/pts",
            "type": "devpts",
            "source": "devpts",
            "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"],
        },
        {
            "destination": "/dev/shm",
            "type": "tmpfs",
            "source": "shm",
            "options": ["nosuid", "noexec", "nodev", "mode=1777", f"size={DEV_SHM_SIZE}"],
        },
        {
            "destination": "/dev/mqueue",
            "type": "mqueue",
            "source": "mqueue",
            "options": ["nosuid", "noexec", "nodev"],
        },
        {
            "destination": "/sys",
            "type": "sysfs",
            "source": "sysfs",
            "options": ["nosuid", "noexec", "nodev", "ro"],
        },
        {
            "destination": "/sys/fs/cgroup",
            "type": "cgroup",
            "source": "cgroup",
            "options": ["nosuid", "noexec", "nodev", "relatime", "ro"],
        },
    ]


def _bind(mount: Mount) -> Obj:
    options = ["rbind", "rprivate", "nosuid", "nodev"]
    if mount.read_only:
        options.append("ro")
    return {"destination": mount.destination, "type": "bind", "source": mount.source, "options": options}


def runtime_spec(spec: ContainerSpec) -> Obj:
    process = spec.process
    capabilities = list(spec.security.capabilities)
    namespaces: list[Obj] = []
    for kind in (*POD_NAMESPACES, "mount", "cgroup"):
        path = spec.namespace_paths.get(kind)
        namespaces.append({"type": kind, "path": path} if path else {"type": kind})
    if "network" in spec.namespace_paths:  # a networked node's pod: its sandbox and containers join it
        namespaces.append({"type": "network", "path": spec.namespace_paths["network"]})
    linux: Obj = {
        "namespaces": namespaces,
        "cgroupsPath": spec.cgroups_path,
        "resources": spec.resources,
        "maskedPaths": list(MASKED_PATHS),
        "readonlyPaths": list(READONLY_PATHS),
    }
    if spec.seccomp is not None:
        linux["seccomp"] = spec.seccomp
    config: Obj = {
        "ociVersion": OCI_VERSION,
        "process": {
            "terminal": False,
            "user": {"uid": process.uid, "gid": process.gid, "additionalGids": list(process.groups)},
            "args": list(process.argv),
            "env": [f"{k}={v}" for k, v in process.env.items()],
            "cwd": process.cwd,
            "capabilities": {
                "bounding": capabilities,
                "effective": capabilities,
                "permitted": capabilities,
                "inheritable": [],
                "ambient": [],
            },
            "noNewPrivileges": spec.security.no_new_privileges,
            "oomScoreAdj": process.oom_score_adj,
        },
        "root": {"path": spec.rootfs, "readonly": spec.security.read_only_root},
        "mounts": _base_mounts() + [_bind(m) for m in spec.mounts],
        "linux": linux,
    }
    if spec.hostname is not None:
        config["hostname"] = spec.hostname
    return config
