"""Reading a file an agent could have written, without following it anywhere: only a plain file is read.

An agent writes its workspace (and, in the answer phase, could reach the answers tree), and a link is
resolved where the runner or the judge reads it — where the suite's answer keys are. A symbolic link named
`answer.md`, or a hard link to `tickets.yaml`, would hand the key to the judges as the answer; a FIFO would
hang the reader; a device would be read forever. So a file is opened relative to its folder's descriptor,
every folder on the way with O_NOFOLLOW|O_DIRECTORY and the file with O_NOFOLLOW|O_NONBLOCK, and what was
opened is checked with fstat on that descriptor (not a separate lstat, which a running process could race):
a regular file with one name, or it is refused (`NotPlain`, saying what it is) and never read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from assay_runner.errors import describe

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY


class NotPlain(Exception):
    """A file the runner refuses to read: its message says which and what it is."""


def _link(name: str, shown: str, folder: int, root: Path) -> NotPlain:
    try:
        target = os.readlink(name, dir_fd=folder)
    except OSError:
        target = "?"
    inside = os.path.normpath(os.path.join(root, os.path.dirname(shown), target))
    where = "inside" if inside == str(root) or inside.startswith(f"{root}/") else "outside"
    return NotPlain(f"{shown} is a symbolic link to {target} ({where} the workspace): refused")


def _descend(root: Path, parts: list[str]) -> int:
    """A descriptor of `root`/`parts`, no link followed on the way from `root` (itself included)."""
    try:
        folder = os.open(root, FOLDER_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NotPlain(f"{root} is a symbolic link or not a folder: refused") from None
        raise
    try:
        for index, part in enumerate(parts):
            try:
                below = os.open(part, FOLDER_FLAGS, dir_fd=folder)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    info = os.lstat(part, dir_fd=folder)
                    shown = "/".join(parts[: index + 1])
                    if stat.S_ISLNK(info.st_mode):
                        raise _link(part, shown, folder, root) from None
                    raise NotPlain(f"{shown} is {describe(info.st_mode)}, not a folder: refused") from None
                raise
            os.close(folder)
            folder = below
        return folder
    except BaseException:
        os.close(folder)
        raise


def check(fd: int, shown: str) -> os.stat_result:
    """What `fd` is, when it is a plain file (regular, one name); else `NotPlain`."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise NotPlain(f"{shown} is {describe(info.st_mode)}: refused")
    if info.st_nlink > 1:
        raise NotPlain(
            f"{shown} is a hard link ({info.st_nlink} names: another may be outside the workspace, the "
            "answer keys' say): refused"
        )
    return info


@contextlib.contextmanager
def opened(root: Path, relative: str) -> Iterator[BinaryIO | None]:
    """`root`/`relative` open for reading when it is a plain file; None when it does not exist; `NotPlain`
    (never read) when it is a link, a hard link or not a regular file, or a folder on its way is a link."""
    *folders, name = relative.split("/")
    try:
        folder = _descend(root, folders)
    except FileNotFoundError:
        yield None
        return
    try:
        try:
            fd = os.open(name, FILE_FLAGS, dir_fd=folder)
        except FileNotFoundError:
            fd = -1
        except OSError as exc:
            info = os.lstat(name, dir_fd=folder)
            if stat.S_ISLNK(info.st_mode):
                raise _link(name, relative, folder, root) from None
            if exc.errno in (errno.ENXIO, errno.EISDIR, errno.EOPNOTSUPP):
                raise NotPlain(f"{relative} is {describe(info.st_mode)}: refused") from None
            raise
    finally:
        os.close(folder)
    if fd < 0:
        yield None
        return
    try:
        check(fd, relative)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as stream:
        yield stream


def read(root: Path, relative: str) -> bytes | None:
    """The bytes of a plain file (`opened`), None when it does not exist."""
    with opened(root, relative) as stream:
        return None if stream is None else stream.read()


def plain_tree(root: Path, max_bytes: int | None = None) -> dict[str, bytes]:
    """Every file below `root` (relative path -> bytes), no link followed; `NotPlain` at the first entry
    that is not a plain file or folder (a link, a hard link, a pipe, a device), or, with `max_bytes`, at the
    file that takes the total past it (its size read on the open descriptor, the file never read: a sparse
    file of 64 GiB costs no disk, and would cost the reader that much memory)."""
    files: dict[str, bytes] = {}
    total = 0
    os.close(_descend(root, []))  # `root` itself no link: os.walk would walk its target
    for dirpath, dirnames, filenames in os.walk(root):
        relative_dir = os.path.relpath(dirpath, root)
        for name in sorted(dirnames):
            if os.path.islink(os.path.join(dirpath, name)):  # os.walk lists it, and does not enter it
                shown = name if relative_dir == "." else f"{relative_dir}/{name}"
                raise NotPlain(
                    f"{shown} is a symbolic link to {os.readlink(os.path.join(dirpath, name))}: refused"
                )
        for name in sorted(filenames):
            relative = name if relative_dir == "." else f"{relative_dir}/{name}"
            with opened(root, relative) as stream:
                if stream is None:
                    continue
                total += os.fstat(stream.fileno()).st_size
                if max_bytes is not None and total > max_bytes:
                    raise NotPlain(f"{relative}: the folder holds more than {max_bytes:,} bytes: not read")
                files[relative] = stream.read()
    return files
