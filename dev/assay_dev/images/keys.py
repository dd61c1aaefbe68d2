"""Content keys for image builds: a hash of everything that goes into an image, so a build whose key is
already in the store is skipped (as scripts/build-k8s.sh skips a cached control plane).

An image's key covers its Containerfile, its build arguments (the base image's reference included, which
names the base's own key) and every file its COPY instructions read from the build context after
.containerignore, each with its path, mode and content. Nothing else reaches `buildah bud`, so equal keys
mean equal inputs. File hashes are remembered by (path, size, mtime, inode) in a small cache, since the
runner's context holds a 120 MB Node binary that rarely changes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from .containerfile import context_files, parse, read_ignore

KEY_VERSION = "1"
"""Bump when the key's recipe changes, so old keys cannot match new builds."""


class FileHashes:
    """sha256 of files, remembered across runs by (size, mtime_ns, inode)."""

    def __init__(self, cache_file: Path | None) -> None:
        self.cache_file = cache_file
        self._known: dict[str, list[object]] = {}
        self._dirty = False
        if cache_file is not None and cache_file.is_file():
            try:
                self._known = json.loads(cache_file.read_text())
            except ValueError:
                self._known = {}

    def digest(self, path: Path) -> str:
        stat = path.stat()
        stamp: list[object] = [stat.st_size, stat.st_mtime_ns, stat.st_ino]
        known = self._known.get(str(path))
        if known is not None and known[:3] == stamp:
            return str(known[3])
        digest = hashlib.sha256()
        with path.open("rb") as stream:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                digest.update(chunk)
        value = digest.hexdigest()
        self._known[str(path)] = [*stamp, value]
        self._dirty = True
        return value

    def save(self) -> None:
        if self.cache_file is None or not self._dirty:
            return
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.cache_file.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(self._known))
        temporary.replace(self.cache_file)
        self._dirty = False


def context_inputs(root: Path, containerfile: Path) -> list[str]:
    """The context files (relative paths) the Containerfile's COPY/ADD instructions read, sorted."""
    rules = read_ignore(root / ".containerignore")
    files: set[str] = set()
    for copy in parse(containerfile).context_copies():
        for source in copy.sources:
            found = context_files(root, source, rules)
            if not found:
                raise FileNotFoundError(
                    f"{containerfile.relative_to(root)}:{copy.line}: COPY {source}: nothing in the build "
                    "context (missing, or excluded by .containerignore)"
                )
            files.update(found)
    return sorted(files)


def image_key(
    root: Path, containerfile: Path, build_args: Mapping[str, str], hashes: FileHashes | None = None
) -> str:
    """The content key of one image build (hex sha256)."""
    hashes = hashes or FileHashes(None)
    digest = hashlib.sha256()
    digest.update(f"assay-image-key {KEY_VERSION}\n".encode())
    digest.update(containerfile.read_bytes())
    for name in sorted(build_args):
        digest.update(f"\0arg {name}={build_args[name]}".encode())
    for relative in context_inputs(root, containerfile):
        path = root / relative
        mode = path.stat().st_mode & 0o777
        digest.update(f"\0file {relative} {mode:o} {hashes.digest(path)}".encode())
    return digest.hexdigest()


def file_key(*paths: Path) -> str:
    """The content key of a few files (the base's bootstrap script, a lockfile)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"\0{path.name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
