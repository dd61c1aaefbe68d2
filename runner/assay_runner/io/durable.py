"""Files that survive their writer being killed, or its machine losing power: flushed to disk before
anything that relies on them is written, and whole or absent (written aside, then renamed into place)."""

from __future__ import annotations

import os
from pathlib import Path


def write_flushed(path: Path, data: bytes) -> None:
    """`data` at `path`, on disk when this returns (the folder's entry is `fsync_folder`'s)."""
    with path.open("wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())


def replace_flushed(path: Path, data: bytes) -> None:
    """`data` at `path`, whole or not at all: written aside and flushed, renamed over `path`, the folder
    flushed. A reader never sees a torn file, even after a SIGKILL or a power loss."""
    partial = path.with_name(f".{path.name}.tmp")
    write_flushed(partial, data)
    partial.replace(path)
    fsync_folder(path.parent)


def fsync_folder(folder: Path) -> None:
    """The folder's entries (files made, renamed or removed in it) on disk."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
