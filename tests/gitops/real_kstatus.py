"""The real kstatus (sigs.k8s.io/cli-utils/pkg/kstatus/status, built by scripts/build-go-tools.sh from
tools/kstatus): what Flux's kustomize-controller and helm-controller compute for `wait: true`."""

from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Result:
    status: str
    message: str
    conditions: tuple[tuple[str, str, str], ...]
    """The conditions kstatus would set: (type, status, reason)."""


@functools.cache
def binary() -> Path:
    """Build (first time; cached afterwards) and locate the kstatus helper. A failed build fails the test."""
    built = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build-go-tools.sh"), "kstatus"],
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        raise RuntimeError(f"scripts/build-go-tools.sh kstatus failed:\n{built.stderr}")
    return Path(built.stdout.strip().splitlines()[-1])


def compute_all(objects: list[dict[str, Any]]) -> list[Result]:
    """kstatus's status.Compute on each object, in one run of the program."""
    done = subprocess.run(
        [str(binary())],
        input="\n".join(json.dumps(obj) for obj in objects),  # a JSON stream
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"kstatus failed ({done.returncode}): {done.stderr}")
    results = []
    for line in done.stdout.splitlines():
        got = json.loads(line)
        conditions = tuple((c["type"], c["status"], c.get("reason", "")) for c in got["conditions"])
        results.append(Result(got["status"], got["message"], conditions))
    if len(results) != len(objects):
        raise RuntimeError(f"kstatus answered {len(results)} results for {len(objects)} objects")
    return results


def compute(obj: dict[str, Any]) -> Result:
    return compute_all([obj])[0]
