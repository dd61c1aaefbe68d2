"""A container's resources as cgroup v1 limits (the OCI spec's `linux.resources`), its QoS oom_score_adj,
and the memory cgroup's OOM-kill counter, read as kubelet's runtime reports an OOMKilled container.

- memory: limits.memory is memory.limit_in_bytes, and memsw (memory + swap) the same when the kernel
  accounts swap, so a container cannot swap past its limit;
- cpu: requests.cpu becomes cpu.shares (1024 per core, at least 2), limits.cpu a CFS quota over a 100 ms
  period (at least 1 ms), as kubelet computes them;
- pids: the node's per-pod cap (kubelet's --pod-max-pids) applied to each container;
- oom_score_adj by QoS class: Guaranteed -997, BestEffort 1000, Burstable between (pkg/kubelet/qos),
  never below the kubelet's own when it lacks CAP_SYS_RESOURCE (a kubelet itself in a container cannot
  lower a score; the kernel refuses and runc fails to start the container).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .podspec import parse_quantity

Obj = dict[str, Any]

CPU_PERIOD = 100_000
MIN_QUOTA = 1_000
MIN_SHARES = 2
MEMORY_ROOT = Path("/sys/fs/cgroup/memory")


def _resources(container: Obj) -> tuple[Obj, Obj]:
    resources = container.get("resources") or {}
    return resources.get("requests") or {}, resources.get("limits") or {}


def linux_resources(container: Obj, pids_limit: int, swap_accounted: bool) -> Obj:
    requests, limits = _resources(container)
    out: Obj = {"devices": [{"allow": False, "access": "rwm"}], "pids": {"limit": pids_limit}}
    if "memory" in limits:
        limit = int(parse_quantity(limits["memory"]))
        out["memory"] = {"limit": limit, **({"swap": limit} if swap_accounted else {})}
    cpu: Obj = {}
    request = requests.get("cpu", limits.get("cpu"))
    if request is not None:
        cpu["shares"] = max(MIN_SHARES, math.ceil(parse_quantity(request) * 1024))
    if "cpu" in limits:
        cpu["quota"] = max(MIN_QUOTA, math.ceil(parse_quantity(limits["cpu"]) * CPU_PERIOD))
        cpu["period"] = CPU_PERIOD
    if cpu:
        out["cpu"] = cpu
    return out


def qos_class(pod: Obj) -> str:
    containers = [*(pod["spec"].get("initContainers") or []), *pod["spec"]["containers"]]
    pairs = [_resources(c) for c in containers]
    if not any(requests or limits for requests, limits in pairs):
        return "BestEffort"
    for requests, limits in pairs:
        for resource in ("cpu", "memory"):
            if resource not in limits:
                return "Burstable"
            if resource in requests and parse_quantity(requests[resource]) != parse_quantity(
                limits[resource]
            ):
                return "Burstable"
    return "Guaranteed"


def oom_score_adj(pod: Obj, container: Obj, node_memory_bytes: int) -> int:
    qos = qos_class(pod)
    if qos == "Guaranteed":
        return -997
    if qos == "BestEffort":
        return 1000
    requests, limits = _resources(container)
    memory = requests.get("memory", limits.get("memory"))
    request = int(parse_quantity(memory)) if memory is not None else 0
    adjust = 1000 - (1000 * request) // max(1, node_memory_bytes)
    return 999 if adjust >= 1000 else max(2, adjust)


CAP_SYS_RESOURCE = 24


def oom_score_floor() -> int:
    """The lowest oom_score_adj this process may give its children: anything with CAP_SYS_RESOURCE, else
    its own score."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("CapEff:") and int(line.split()[1], 16) & (1 << CAP_SYS_RESOURCE):
                return -1000
    with open("/proc/self/oom_score_adj") as own:
        return int(own.read().strip())


def swap_accounted(root: Path = MEMORY_ROOT) -> bool:
    return (root / "memory.memsw.limit_in_bytes").exists()


def oom_kills(cgroup_path: str, root: Path = MEMORY_ROOT) -> int:
    """How many processes the kernel's OOM killer killed in this memory cgroup (0 when it is gone)."""
    control = root / cgroup_path.lstrip("/") / "memory.oom_control"
    try:
        for line in control.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill":
                return int(value)
    except OSError:
        return 0
    return 0
