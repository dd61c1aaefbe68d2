"""The cell sandbox's launcher for the runner image (runner/assay_runner/sandbox/launcher.c, `assay-confine`),
compiled on the build host by scripts/build-launcher.sh, linked statically (the image's glibc is not the
host's), into images/launcher/, where the runner Containerfile copies it from to where the runner looks for
it. A stamp holds the checksum of the source and the script, so a warm build compiles nothing.

The image build needs a C compiler that links statically (Debian: gcc and libc6-dev): a runner image
without the launcher would confine every agent in a fork of the runner, a few milliseconds slower each.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

SOURCE = Path("runner/assay_runner/sandbox/launcher.c")
SCRIPT = Path("scripts/build-launcher.sh")
TARGET = Path("images/launcher/assay-confine")
STAMP = ".assay-built"


class LauncherBuildError(RuntimeError):
    """No compiler, or the launcher did not compile or link statically."""


def prepare(root: Path) -> Path:
    """Compile images/launcher/assay-confine unless the stamp matches; returns it."""
    target = root / TARGET
    stamp = target.with_name(STAMP)
    want = hashlib.sha256((root / SOURCE).read_bytes() + (root / SCRIPT).read_bytes()).hexdigest()
    if target.is_file() and stamp.is_file() and stamp.read_text().strip() == want:
        return target
    result = subprocess.run(
        ["bash", str(root / SCRIPT), str(target), "static"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if result.returncode != 0:
        raise LauncherBuildError(
            f"{SCRIPT} {TARGET} failed ({result.returncode}): {(result.stderr or result.stdout).strip()}"
        )
    stamp.write_text(want + "\n")
    return target
