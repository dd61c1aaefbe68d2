"""Where a command will write (result folder, RunSummary file, answers tree), checked before any work.

A folder that cannot be created (`/dev/null/x`: its parent is a device), a summary path that is a folder,
whose folder is missing, or that no write can reach (`/dev/full`) would otherwise fail only after every
agent has run, with a traceback. Each problem names the setting and the path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from assay_runner.errors import InputError, Problem

__all__ = ["check_destinations", "destination_problems"]

# Devices every write to fails (ENOSPC): a summary path there is a mistake, not a sink.
_FULL_DEVICES = frozenset({"/dev/full"})


def _existing_ancestor(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path("/")


def folder_problem(folder: Path) -> str | None:
    """Why `folder` cannot hold the outputs (an existing writable folder, or one that can be created)."""
    if folder.exists():
        if not folder.is_dir():
            return "is not a folder"
        return None if os.access(folder, os.W_OK | os.X_OK) else "is a folder this user cannot write to"
    ancestor = _existing_ancestor(folder)
    if not ancestor.is_dir():
        return f"cannot be created: {ancestor} is not a folder"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot be created: {ancestor} is a folder this user cannot write to"
    return None


def file_problem(path: Path) -> str | None:
    """Why `path` cannot take a file (the RunSummary): a folder, a missing folder, an unwritable file."""
    if path.exists():
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            return "is a folder, not a file"
        if os.path.realpath(path) in _FULL_DEVICES:
            return "is a device every write to fails (no space left)"
        return None if os.access(path, os.W_OK) else "is a file this user cannot write to"
    parent = path.parent
    if not parent.exists():
        return f"its folder {parent} does not exist"
    if not parent.is_dir():
        return f"cannot be created: {parent} is not a folder"
    return None if os.access(parent, os.W_OK | os.X_OK) else f"cannot be created in {parent} (not writable)"


def destination_problems(
    out: Path | None,
    summary_path: str | None = None,
    *,
    out_setting: str = "output.dir",
    summary_setting: str = "output.summaryPath",
) -> list[Problem]:
    problems = []
    if out is not None and (why := folder_problem(out)) is not None:
        problems.append(Problem(str(out), out_setting, why))
    if summary_path is not None and (why := file_problem(Path(summary_path))) is not None:
        problems.append(Problem(summary_path, summary_setting, why))
    return problems


def check_destinations(
    out: Path | None,
    summary_path: str | None = None,
    *,
    out_setting: str = "output.dir",
    summary_setting: str = "output.summaryPath",
) -> None:
    """Raise `InputError` (exit 2, before any work) when an output cannot be written where asked."""
    problems = destination_problems(
        out, summary_path, out_setting=out_setting, summary_setting=summary_setting
    )
    if problems:
        raise InputError(problems)
