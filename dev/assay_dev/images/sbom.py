"""An SBOM per image, written by syft (Anchore's generator, built from the Go module proxy by
scripts/build-go-tools.sh and pinned in tools/syft/go.mod).

Why syft: one tool reads every package source an Assay image has — Debian's dpkg database or UBI's RPM
database, the virtualenv's Python dist-info, the agent CLIs' npm packages — and writes SPDX (and
CycloneDX); a Python-only generator (cyclonedx-py) would see the virtualenv alone. It scans the image's
root filesystem through a buildah working container with the `image` catalogers (installed packages, not
declared manifests) and names the image by its manifest digest.
"""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

from . import buildah


class SbomError(RuntimeError):
    """syft could not be built or failed."""


def syft_binary(root: Path) -> Path:
    result = subprocess.run(
        ["bash", str(root / "scripts" / "build-go-tools.sh"), "syft"],
        capture_output=True,
        text=True,
        check=False,
        timeout=3600,
    )
    if result.returncode != 0:
        raise SbomError(f"building syft failed:\n{result.stderr[-3000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def write_sbom(syft: Path, image: buildah.ImageInfo, name: str, target: Path) -> Path:
    """SPDX JSON of one image into `target` (written atomically)."""
    container = f"assay-sbom-{uuid.uuid4().hex[:12]}"
    rootfs = buildah.checkout(image.id, container)
    temporary = target.with_suffix(".tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        result = subprocess.run(
            [
                str(syft),
                "scan",
                f"dir:{rootfs}",
                "--override-default-catalogers",
                "image",
                "--source-name",
                name,
                "--source-version",
                image.digest,
                "--quiet",
                "--output",
                f"spdx-json={temporary}",
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
    finally:
        buildah.release(container)
    if result.returncode != 0:
        raise SbomError(f"syft failed on {name} ({result.returncode}): {result.stderr.strip()[-2000:]}")
    temporary.replace(target)
    return target
