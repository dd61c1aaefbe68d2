"""The few buildah commands the image builds and the local kubelet use, with errors that say what failed.

buildah keeps images in containers/storage (/var/lib/containers/storage for root): `make images` writes
there, and the kubelet's runc back end checks containers out of there (`buildah from` + `buildah mount`:
an overlay of the image's layers with a writable layer per container, in about a tenth of a second).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Obj = dict[str, Any]


class BuildahError(RuntimeError):
    """A buildah command failed; the message holds the command and its output."""


class ImageNotFound(BuildahError):
    """No image by that reference in the local store."""


def buildah_path() -> str:
    found = shutil.which("buildah")
    if found is None:
        raise BuildahError(
            "buildah is not installed: run `bash scripts/install-container-tools.sh` (make images does)"
        )
    return found


def run(
    args: Sequence[str], *, timeout: float = 120, check: bool = True, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    argv = [buildah_path(), *args]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, cwd=cwd)
    if check and result.returncode != 0:
        output = (result.stderr or result.stdout).strip()
        if "image not known" in output or "identifier is not an image" in output:
            raise ImageNotFound(f"no image {args[-1]!r} in the local store: {output}")
        raise BuildahError(f"`buildah {' '.join(args)}` exited {result.returncode}: {output}")
    return result


@dataclass(frozen=True)
class ImageInfo:
    """What the kubelet and the build record need from an image in the store."""

    reference: str
    id: str
    """The image ID: sha256 of its config."""
    digest: str
    """The manifest digest (sha256:...), what `repository@digest` references."""
    entrypoint: tuple[str, ...]
    cmd: tuple[str, ...]
    env: dict[str, str]
    workdir: str
    user: str
    labels: dict[str, str]


def inspect_image(reference: str) -> ImageInfo:
    result = run(["inspect", "--type", "image", reference], timeout=60)
    data: Obj = json.loads(result.stdout)
    config: Obj = (data.get("OCIv1") or {}).get("config") or {}
    env = dict(item.partition("=")[::2] for item in config.get("Env") or [])
    return ImageInfo(
        reference=reference,
        id=str(data["FromImageID"]),
        digest=str(data["FromImageDigest"]),
        entrypoint=tuple(config.get("Entrypoint") or ()),
        cmd=tuple(config.get("Cmd") or ()),
        env=env,
        workdir=str(config.get("WorkingDir") or "/"),
        user=str(config.get("User") or ""),
        labels=dict(config.get("Labels") or {}),
    )


def image_exists(reference: str) -> bool:
    try:
        inspect_image(reference)
    except ImageNotFound:
        return False
    return True


def tag(source: str, *targets: str) -> None:
    run(["tag", source, *targets])


def image_size(reference: str) -> int:
    result = run(["images", "--format", "{{.Size}}", "--noheading", reference], check=False)
    text = result.stdout.strip().splitlines()[0] if result.stdout.strip() else ""
    units = {"B": 1, "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9}
    number, _, unit = text.partition(" ")
    try:
        return int(float(number) * units.get(unit, 1))
    except ValueError:
        return 0


# --- working containers (the kubelet's root filesystems) ----------------------------------------------


def checkout(image_id: str, name: str) -> Path:
    """A working container of the image, mounted: its root filesystem (overlay, writable upper layer)."""
    run(["from", "--pull=never", "--quiet", "--name", name, image_id], timeout=120)
    try:
        mounted = run(["mount", name]).stdout.strip()
    except BuildahError:
        run(["rm", name], check=False)
        raise
    return Path(mounted)


def release(name: str) -> None:
    """Unmount and remove a working container made by checkout(); quiet when it is gone already."""
    run(["umount", name], check=False)
    run(["rm", name], check=False)


def working_containers(prefix: str) -> list[str]:
    result = run(["containers", "--noheading", "--format", "{{.ContainerName}}"], check=False)
    return [name for name in result.stdout.split() if name.startswith(prefix)]
