"""A container's securityContext, resolved as kubelet and CRI-O resolve it (container fields over the pod's):
capabilities, no_new_privs, a read-only root and the seccomp profile. Users and groups: podspec.identity.

The default capability set is CRI-O's (OpenShift's runtime), which `drop: [ALL]` empties and `add`
extends. `allowPrivilegeEscalation: false` sets no_new_privs; unset means true, as in Kubernetes. A seccomp
profile of type RuntimeDefault gets seccomp.runtime_default(); unset or Unconfined runs without one (the
kubelet's default without --seccomp-default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .podspec import ConfigError

Obj = dict[str, Any]

DEFAULT_CAPABILITIES = (
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_FSETID",
    "CAP_FOWNER",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_NET_BIND_SERVICE",
    "CAP_KILL",
)
"""CRI-O's default_capabilities (crio.conf), what OpenShift's containers start with."""

KNOWN_CAPABILITIES = frozenset(
    {
        *DEFAULT_CAPABILITIES,
        "CAP_AUDIT_CONTROL",
        "CAP_AUDIT_READ",
        "CAP_AUDIT_WRITE",
        "CAP_BLOCK_SUSPEND",
        "CAP_BPF",
        "CAP_CHECKPOINT_RESTORE",
        "CAP_DAC_READ_SEARCH",
        "CAP_IPC_LOCK",
        "CAP_IPC_OWNER",
        "CAP_LEASE",
        "CAP_LINUX_IMMUTABLE",
        "CAP_MAC_ADMIN",
        "CAP_MAC_OVERRIDE",
        "CAP_MKNOD",
        "CAP_NET_ADMIN",
        "CAP_NET_BROADCAST",
        "CAP_NET_RAW",
        "CAP_PERFMON",
        "CAP_SETFCAP",
        "CAP_SYSLOG",
        "CAP_SYS_ADMIN",
        "CAP_SYS_BOOT",
        "CAP_SYS_CHROOT",
        "CAP_SYS_MODULE",
        "CAP_SYS_NICE",
        "CAP_SYS_PACCT",
        "CAP_SYS_PTRACE",
        "CAP_SYS_RAWIO",
        "CAP_SYS_RESOURCE",
        "CAP_SYS_TIME",
        "CAP_SYS_TTY_CONFIG",
        "CAP_WAKE_ALARM",
    }
)


@dataclass(frozen=True)
class Security:
    capabilities: tuple[str, ...]
    no_new_privileges: bool
    read_only_root: bool
    seccomp: str
    """`RuntimeDefault` or `Unconfined`."""


def _capability(name: str) -> str:
    full = name.upper() if name.upper().startswith("CAP_") else f"CAP_{name.upper()}"
    if full not in KNOWN_CAPABILITIES:
        raise ConfigError(f"unknown capability {name!r}")
    return full


def security(pod: Obj, container: Obj) -> Security:
    pod_context = pod["spec"].get("securityContext") or {}
    context = container.get("securityContext") or {}
    if context.get("privileged"):
        raise ConfigError(
            f"container {container['name']}: privileged containers are not run by the local kubelet"
        )
    capabilities = context.get("capabilities") or {}
    granted = set(DEFAULT_CAPABILITIES)
    drops = [str(c) for c in capabilities.get("drop") or []]
    if any(c.upper() == "ALL" for c in drops):
        granted.clear()
    else:
        granted -= {_capability(c) for c in drops}
    for added in capabilities.get("add") or []:
        if str(added).upper() == "ALL":
            granted |= KNOWN_CAPABILITIES
        else:
            granted.add(_capability(str(added)))
    profile = context.get("seccompProfile") or pod_context.get("seccompProfile") or {}
    kind = profile.get("type", "Unconfined")
    if kind not in ("RuntimeDefault", "Unconfined"):
        raise ConfigError(
            f"container {container['name']}: seccomp profile type {kind!r} is not supported here"
        )
    escalation = context.get("allowPrivilegeEscalation")
    return Security(
        capabilities=tuple(sorted(granted)),
        no_new_privileges=escalation is False,
        read_only_root=bool(context.get("readOnlyRootFilesystem")),
        seccomp=kind,
    )
