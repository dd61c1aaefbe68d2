"""The first process of a local container: runs inside a private mount (and UTS) namespace made by
`unshare`, lays out the pod's mounts, then execs the container's command.

It is started as `unshare -m -u --propagation private -- python -I -S pod_init.py PLAN.json` by the local
kubelet and imports only the standard library (by file path, no package), so it works whatever the pod
mounts over. Every source is opened (O_PATH) before the first mount, then mounted through
/proc/PID/fd/N, so a volume mounted over a parent directory (an emptyDir at /tmp, say) cannot hide a
source that lives under it. Paths in `keep` (the interpreter the image map points at) are re-bound into
any volume that covers them, as an image would carry its own runtime.
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import sys
from typing import Any, NoReturn

MS_RDONLY = 0x1
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
START_ERROR_EXIT = 128  # what a runtime reports when the process could not be started

_libc = ctypes.CDLL(None, use_errno=True)


def _mount(
    source: str | None, target: str, flags: int, fstype: str | None = None, data: str | None = None
) -> None:
    encoded = [value.encode() if value else None for value in (source, target, fstype, data)]
    if _libc.mount(encoded[0], encoded[1], encoded[2], flags, encoded[3]) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {source or ''} -> {target}: {os.strerror(errno)}")


def _make_mount_point(path: str, is_file: bool) -> None:
    if os.path.lexists(path):
        return
    os.makedirs(os.path.dirname(path) or "/", exist_ok=True)
    if is_file:
        with open(path, "a"):
            pass
    else:
        os.mkdir(path)


def _private_ancestors(paths: list[str]) -> list[str]:
    """The highest directory above each path that others cannot traverse (pyenv lives under /root)."""
    found: set[str] = set()
    for path in paths:
        parts = path.strip("/").split("/")
        for depth in range(1, len(parts)):
            ancestor = "/" + "/".join(parts[:depth])
            if not os.stat(ancestor).st_mode & 0o001:
                found.add(ancestor)
                break
    return sorted(found)


def _fd_path(fd: int) -> str:
    return f"/proc/{os.getpid()}/fd/{fd}"


def _under(path: str, parent: str) -> bool:
    return parent == "/" or path.startswith(parent.rstrip("/") + "/")


def _set_up(plan: dict[str, Any]) -> None:
    if plan.get("hostname"):
        socket.sethostname(plan["hostname"])
    mounts = list(plan["mounts"])
    if plan.get("uid", 0) != 0:
        # The pod's user must reach the interpreter the image map names, as it would inside an image:
        # cover a private directory above it with an empty tmpfs; the keep logic below re-binds it there.
        for blocked in _private_ancestors(plan.get("keep", [])):
            mounts.append({"tmpfs": True, "target": blocked, "readOnly": False, "file": False})
    mounts.sort(key=lambda m: m["target"].rstrip("/").count("/"))
    source_fds = [None if m.get("tmpfs") else os.open(m["source"], os.O_PATH) for m in mounts]
    keep = [(path, os.open(path, os.O_PATH)) for path in plan.get("keep", []) if os.path.exists(path)]

    # A read-only root needs a fresh mount of "/" to flip: the host's root mount has writers (our log
    # file, for one), so remounting it read-only fails with EBUSY. Bind "/" (with its submounts) onto an
    # empty directory, build the pod's mounts inside it, make it read-only and chroot into it.
    root = "/"
    if plan.get("readOnlyRootFilesystem"):
        root = plan["rootDir"]
        _mount("/", root, MS_BIND | MS_REC)

    def at_root(path: str) -> str:
        return root.rstrip("/") + path if root != "/" else path

    for mount, fd in zip(mounts, source_fds, strict=True):
        target = mount["target"]
        _make_mount_point(at_root(target), mount["file"])
        if fd is None:
            _mount("tmpfs", at_root(target), 0, "tmpfs", "mode=755")
        else:
            _mount(_fd_path(fd), at_root(target), MS_BIND | MS_REC)
        for path, keep_fd in keep:
            if path != target and _under(path, target) and not mount["file"]:
                _make_mount_point(at_root(path), os.path.isfile(_fd_path(keep_fd)))
                _mount(_fd_path(keep_fd), at_root(path), MS_BIND | MS_REC)
    # Read-only last: a read-only volume may still need mount points made inside it above.
    for mount in mounts:
        if mount["readOnly"]:
            _mount(None, at_root(mount["target"]), MS_REMOUNT | MS_BIND | MS_RDONLY)
    for fd in [fd for fd in source_fds if fd is not None] + [fd for _, fd in keep]:
        os.close(fd)
    if root != "/":
        _mount(None, root, MS_REMOUNT | MS_BIND | MS_RDONLY)
        os.chroot(root)
    os.chdir("/")
    if not os.path.isdir(plan["cwd"]):
        os.makedirs(plan["cwd"])
    # Last, as root can no longer mount after this: the pod's user (an arbitrary uid on OpenShift).
    os.setgroups(plan.get("groups", []))
    os.setgid(plan.get("gid", 0))
    os.setuid(plan.get("uid", 0))
    os.chdir(plan["cwd"])


def _fail(error_fd: int, message: str) -> NoReturn:
    os.write(error_fd, message.encode())
    print(message, file=sys.stderr)
    sys.exit(START_ERROR_EXIT)


def main(plan_path: str) -> None:
    with open(plan_path) as f:
        plan: dict[str, Any] = json.load(f)
    # Opened before any mount: the file may live under a directory a volume is about to cover.
    error_fd = os.open(plan["startErrorFile"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        _set_up(plan)
    except OSError as error:
        _fail(error_fd, f"failed to create container: {error}")
    argv = plan["argv"]
    try:
        os.execvpe(argv[0], argv, plan["env"])
    except OSError as error:
        reason = error.strerror
        if isinstance(error, FileNotFoundError) and "/" not in argv[0]:
            reason = "executable file not found in $PATH"
        _fail(error_fd, f'unable to start container process: exec: "{argv[0]}": {reason}')


if __name__ == "__main__":
    main(sys.argv[1])
