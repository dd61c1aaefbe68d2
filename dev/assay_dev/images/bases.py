"""Which base the images build on: UBI when a registry serves it, else a Debian base bootstrapped here.

The Containerfiles take the base as build arguments (PYTHON_BUILDER for the builder stages, BASE for the
agents and final stages). UBI's references are pinned to the digests pulled, so the content key of every
image names exactly the base it was built on; the Debian base is tagged with the hash of its bootstrap
script (images/base/debian-python.sh), which holds its package list.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import buildah
from .keys import file_key

UBI_PYTHON_BUILDER = "registry.access.redhat.com/ubi9/python-311:latest"
UBI_BASE = "registry.access.redhat.com/ubi9/ubi-minimal:latest"
DEBIAN_REPOSITORY = "localhost/assay-base/debian-python"
DEBIAN_SCRIPT = Path("images/base/debian-python.sh")
PREFERENCES = ("auto", "ubi", "debian")


@dataclass(frozen=True)
class Bases:
    kind: str
    """`ubi` or `debian`."""
    python_builder: str
    base: str
    built_seconds: float = 0.0
    """Time spent bootstrapping the Debian base in this run (0 when cached or UBI)."""

    def build_args(self) -> dict[str, str]:
        return {"PYTHON_BUILDER": self.python_builder, "BASE": self.base}


class BaseError(RuntimeError):
    """No base could be had."""


def _pinned(reference: str) -> str:
    repository = reference.rsplit(":", 1)[0] if "@" not in reference else reference.split("@", 1)[0]
    return f"{repository}@{buildah.inspect_image(reference).digest}"


def _ubi(pull: bool, log: Callable[[str], None]) -> Bases | None:
    """UBI, pinned to digests, when both images are in the store or (with `pull`) can be pulled."""
    for reference in (UBI_PYTHON_BUILDER, UBI_BASE):
        if buildah.image_exists(reference):
            continue
        if not pull:
            return None
        result = buildah.run(["pull", "--quiet", reference], timeout=600, check=False)
        if result.returncode != 0:
            reason = ((result.stderr or result.stdout).strip().splitlines() or ["no output"])[-1]
            log(f"UBI cannot be pulled ({reason[-120:]}): the Debian base it is")
            return None
    return Bases("ubi", _pinned(UBI_PYTHON_BUILDER), _pinned(UBI_BASE))


def debian_base(root: Path, log: Callable[[str], None]) -> Bases:
    script = root / DEBIAN_SCRIPT
    reference = f"{DEBIAN_REPOSITORY}:{file_key(script)[:16]}"
    seconds = 0.0
    if not buildah.image_exists(reference):
        log(f"bootstrapping the Debian base {reference} (mmdebstrap; about 30 s)")
        started = time.monotonic()
        result = subprocess.run(["bash", str(script), reference], capture_output=True, text=True, check=False)
        if result.returncode != 0:
            tail = "\n".join((result.stderr + result.stdout).strip().splitlines()[-30:])
            raise BaseError(f"{DEBIAN_SCRIPT} failed ({result.returncode}):\n{tail}")
        seconds = time.monotonic() - started
    return Bases("debian", reference, reference, seconds)


def choose(root: Path, preference: str, log: Callable[[str], None]) -> Bases:
    """`ubi`: UBI or an error; `debian`: the Debian base; `auto`: UBI if it can be had, else Debian."""
    if preference not in PREFERENCES:
        raise BaseError(f"unknown base {preference!r}: choose one of {', '.join(PREFERENCES)}")
    if preference in ("auto", "ubi"):
        found = _ubi(pull=True, log=log)
        if found is not None:
            return found
        if preference == "ubi":
            raise BaseError(
                f"UBI images ({UBI_PYTHON_BUILDER}, {UBI_BASE}) are not in the store and cannot be pulled"
            )
    return debian_base(root, log)
