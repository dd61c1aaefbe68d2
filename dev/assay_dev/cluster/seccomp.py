"""The `RuntimeDefault` seccomp profile: containers/common's default (/usr/share/containers/seccomp.json,
installed with buildah), the profile CRI-O and Podman apply — so OpenShift's RuntimeDefault — turned into
the OCI runtime spec's `linux.seccomp` for one container, as containers/common does it: entries are kept
when their architecture is this machine's, their `includes.caps` are all granted to the container and
none of their `excludes.caps` is (a container without CAP_SYS_ADMIN gets EPERM from mount, unshare, ...).
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterable
from pathlib import Path
from typing import Any

Obj = dict[str, Any]

PROFILE = Path("/usr/share/containers/seccomp.json")
# containers/common names architectures as Go does.
_GO_ARCH = {"x86_64": "amd64", "aarch64": "arm64", "ppc64le": "ppc64le", "s390x": "s390x"}


class SeccompError(Exception):
    """The default profile is missing or cannot be read."""


def _kernel_at_least(wanted: str) -> bool:
    def numbers(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.split("-", maxsplit=1)[0].split(".")[:2] if part.isdigit())

    return numbers(os.uname().release) >= numbers(wanted)


LANDLOCK_CALLS = frozenset({"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"})


def runtime_default(capabilities: Iterable[str], profile: Path = PROFILE, *, landlock: bool = True) -> Obj:
    """The OCI `linux.seccomp` object for a container holding `capabilities` (CAP_* names). `landlock=False`:
    the profile without the Landlock calls (the default action refuses them), as containerd 1.6's
    RuntimeDefault was (docs/runtime.md): a node on which agents run without the cell's sandbox."""
    try:
        source: Obj = json.loads(profile.read_text())
    except (OSError, ValueError) as error:
        raise SeccompError(f"cannot read the default seccomp profile {profile}: {error}") from error
    granted = set(capabilities)
    machine = platform.machine()
    arch = _GO_ARCH.get(machine, machine)
    architectures: list[str] = []
    for entry in source.get("archMap") or []:
        if entry["architecture"] == f"SCMP_ARCH_{machine.upper()}":
            architectures = [entry["architecture"], *entry.get("subArchitectures", [])]
    syscalls: list[Obj] = []
    for rule in source.get("syscalls") or []:
        includes, excludes = rule.get("includes") or {}, rule.get("excludes") or {}
        if includes.get("arches") and arch not in includes["arches"]:
            continue
        if excludes.get("arches") and arch in excludes["arches"]:
            continue
        if includes.get("caps") and not set(includes["caps"]) <= granted:
            continue
        if excludes.get("caps") and set(excludes["caps"]) & granted:
            continue
        if includes.get("minKernel") and not _kernel_at_least(includes["minKernel"]):
            continue
        names = rule.get("names") or ([rule["name"]] if rule.get("name") else [])
        if not landlock:
            names = [name for name in names if name not in LANDLOCK_CALLS]
            if not names:
                continue
        converted: Obj = {"names": names, "action": rule["action"]}
        if rule.get("errnoRet") is not None:
            converted["errnoRet"] = rule["errnoRet"]
        if rule.get("args"):
            converted["args"] = [
                {"index": a["index"], "value": a["value"], "valueTwo": a.get("valueTwo", 0), "op": a["op"]}
                for a in rule["args"]
            ]
        syscalls.append(converted)
    seccomp: Obj = {
        "defaultAction": source["defaultAction"],
        "architectures": architectures,
        "syscalls": syscalls,
    }
    if source.get("defaultErrnoRet") is not None:
        seccomp["defaultErrnoRet"] = source["defaultErrnoRet"]
    return seccomp
