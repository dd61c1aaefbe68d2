"""Small images derived from a built one: a base image plus a few files and environment variables, cached by
content like the rest. The tests use them for what must be "in the image" (test agents, a stand-in runner),
so pods still run from real image root filesystems and see nothing of the host.
"""

from __future__ import annotations

import hashlib
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path

from . import buildah
from .build import locked


def derived_image(
    base: str,
    repository: str,
    files: Mapping[str, tuple[bytes, int]],
    env: Mapping[str, str] | None = None,
) -> str:
    """`base` plus `files` ({absolute path: (content, mode)}, owned by root) and `env`; returns the image
    as `repository@digest`, built only when no image with the same content key is in the store."""
    env = dict(env or {})
    base_id = buildah.inspect_image(base).id
    digest = hashlib.sha256(f"derived 1\0{base_id}".encode())
    for path in sorted(files):
        content, mode = files[path]
        digest.update(f"\0{path}\0{mode:o}\0".encode())
        digest.update(hashlib.sha256(content).digest())
    for name in sorted(env):
        digest.update(f"\0env {name}={env[name]}".encode())
    tag = f"{repository}:{digest.hexdigest()[:16]}"
    # Under a lock: two processes building the same tag at once (two test workers on a fresh machine) would
    # each commit an image, and the tag would move to the second, leaving the first's `repository@digest`
    # naming an image without that repository.
    with locked("derived-" + repository.replace("/", "-")):
        if not buildah.image_exists(tag):
            _build(base_id, tag, files, env)
    info = buildah.inspect_image(tag)
    return f"{repository}@{info.digest}"


def _build(base_id: str, tag: str, files: Mapping[str, tuple[bytes, int]], env: Mapping[str, str]) -> None:
    """Commit `base_id` plus `files` and `env` as `tag`."""
    container = f"assay-derive-{uuid.uuid4().hex[:12]}"
    buildah.run(["from", "--pull=never", "--quiet", "--name", container, base_id])
    try:
        with tempfile.TemporaryDirectory(prefix="assay-derive-") as context:
            for path, (content, mode) in files.items():
                target = Path(context) / path.lstrip("/")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
                target.chmod(mode)
            for folder in [Path(context), *(p for p in Path(context).rglob("*") if p.is_dir())]:
                folder.chmod(0o755)
            buildah.run(["copy", "--chown", "0:0", container, f"{context}/", "/"])
        for name, value in env.items():
            buildah.run(["config", "--env", f"{name}={value}", container])
        buildah.run(["commit", "--quiet", container, tag], timeout=300)
    finally:
        buildah.run(["rm", container], check=False)
