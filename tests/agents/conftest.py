"""The pinned agent CLIs (agents/package.json + package-lock.json), installed by `make agents`.

A missing CLI fails the tests that need it, with the command that installs it: it never skips them, so a
broken install cannot turn CI green.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

AGENTS_BIN = Path(__file__).resolve().parents[2] / "agents" / "node_modules" / ".bin"
CLIS = ("opencode", "claude", "codex")


@pytest.fixture(autouse=True)
def _installed_clis() -> None:
    missing = [cli for cli in CLIS if not os.access(AGENTS_BIN / cli, os.X_OK)]
    if missing:
        pytest.fail(f"agent CLIs not installed in {AGENTS_BIN}: {', '.join(missing)}; run `make agents`")
    if os.geteuid() != 0:
        pytest.fail("the real-agent tests need root for `unshare --net` (a network namespace per run)")
