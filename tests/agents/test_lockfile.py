"""The agents lockfile pins every CLI's native binary, with its integrity hash, for the platforms
agents/platforms.js names; the install refuses any other (npm would install an unpinned binary there)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.agents

AGENTS = Path(__file__).resolve().parents[2] / "agents"


def platforms(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", "platforms.js", *args], cwd=folder, capture_output=True, text=True, check=False
    )


def test_the_lockfile_covers_linux_x64_glibc_for_every_cli() -> None:
    done = platforms(AGENTS, "--list")
    assert done.returncode == 0, done.stderr
    # OpenCode 1.18.33 publishes no linux-arm64 or musl binary: the image with agent CLIs is linux/amd64.
    assert done.stdout.split() == ["linux-x64-glibc"]
    lock = json.loads((AGENTS / "package-lock.json").read_text())["packages"]
    for native in ("@anthropic-ai/claude-code-linux-x64", "@openai/codex-linux-x64", "opencode-linux-x64"):
        assert lock[f"node_modules/{native}"]["integrity"].startswith("sha512-")


def test_a_platform_the_lockfile_does_not_cover_is_refused(tmp_path: Path) -> None:
    """The same lockfile without OpenCode's linux-x64 binaries: this machine is no longer covered."""
    for name in ("package.json", "platforms.js"):
        shutil.copy(AGENTS / name, tmp_path / name)
    lock = json.loads((AGENTS / "package-lock.json").read_text())
    for key in [k for k in lock["packages"] if k.startswith("node_modules/opencode-linux-x64")]:
        del lock["packages"][key]
    (tmp_path / "package-lock.json").write_text(json.dumps(lock))
    done = platforms(tmp_path)
    assert done.returncode == 1
    assert "this machine is linux-x64-glibc" in done.stderr and "opencode-ai: " in done.stderr
