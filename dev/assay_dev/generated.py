"""Files generated from the code (chart RBAC and CRD copies, the OLM bundle): written, or checked for
drift with `--check`, which `make test` runs."""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path


def diffs(expected: Mapping[Path, str], root: Path) -> list[str]:
    """Unified diffs (paths shown below `root`) of every expected file that differs from the one on disk."""
    out: list[str] = []
    for path, want in expected.items():
        have = path.read_text() if path.exists() else ""
        if have != want:
            name = str(path.relative_to(root) if path.is_relative_to(root) else path)
            lines = have.splitlines(True), want.splitlines(True)
            out.append("".join(difflib.unified_diff(*lines, name, f"{name} (generated)")))
    return out


def write_or_check(
    argv: list[str] | None,
    *,
    description: str,
    expected: Callable[[], Mapping[Path, str]],
    drift: Callable[[], list[str]],
    command: str,
) -> int:
    """A generator's command line: write every file, or with `--check` print the drift and exit 1."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="fail (exit 1) when a generated file drifted")
    args = parser.parse_args(argv)
    if args.check:
        found = drift()
        for diff in found:
            sys.stdout.write(diff)
        if found:
            print(f"generated files drifted: run {command}", file=sys.stderr)
        return 1 if found else 0
    for path, text in expected().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return 0
