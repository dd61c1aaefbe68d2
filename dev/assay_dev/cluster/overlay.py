"""A container's root filesystem: an overlay of the image's root with a private writable layer.

The image's root is checked out once per kubelet and image (a buildah working container, mounted: the
image's layers, read-only to every container above it), and each container gets an overlay mount of its
own on top, made here with mount(2). Before, every container was a buildah working container of its own:
four buildah processes per container (from, mount, umount, rm), each reading and locking the whole image
store — on a 256-Evaluation grid some 6,500 of them and about 200 s of CPU on 2 cores. An overlay whose
lower layer is itself an overlay is one the kernel supports (two levels of stacking).

Each mount names its kubelet as its source (`source`), so a kubelet that died (a SIGKILLed test run) leaves
mounts the next one can find in /proc/self/mountinfo and remove.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
from pathlib import Path

MNT_DETACH = 2
_libc = ctypes.CDLL(None, use_errno=True)


def mount(lower: Path, layer: Path, target: Path, source: str) -> Path:
    """Mount at `target` an overlay of `lower` with a fresh writable layer under `layer`."""
    upper, work = layer / "upper", layer / "work"
    shutil.rmtree(layer, ignore_errors=True)
    for folder in (upper, work, target):
        folder.mkdir(parents=True, exist_ok=True)
    options = f"lowerdir={lower},upperdir={upper},workdir={work}"
    if _libc.mount(source.encode(), bytes(target), b"overlay", 0, options.encode()) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mounting the container's root at {target} failed: {os.strerror(errno)}")
    return target


def unmount(target: Path, layer: Path | None = None) -> None:
    """Detach the mount at `target` (quiet when it is not mounted), then remove the writable layer."""
    if _libc.umount2(bytes(target), MNT_DETACH) != 0 and ctypes.get_errno() not in (22, 2):  # EINVAL, ENOENT
        errno = ctypes.get_errno()
        raise OSError(errno, f"unmounting {target} failed: {os.strerror(errno)}")
    if layer is not None:
        shutil.rmtree(layer, ignore_errors=True)


def mounted(source: re.Pattern[str]) -> list[tuple[str, Path]]:
    """The overlay mounts whose source matches `source`: (source, mount point), deepest first."""
    found: list[tuple[str, Path]] = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields, _, tail = line.partition(" - ")
            kind, name = [*tail.split(), "", ""][:2]
            if kind == "overlay" and source.match(name):
                point = fields.split()[4].encode().decode("unicode_escape")  # \040 for a space
                found.append((name, Path(point)))
    return sorted(found, key=lambda entry: -len(entry[1].parts))
