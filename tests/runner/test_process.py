"""run_process with real processes: what an agent leaves behind, and how much of its output is kept."""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from pathlib import Path

from assay_runner.agents.process import TRANSCRIPT_LIMIT, ProcessResult, run_process


def run_script(script: str, cwd: Path, timeout: float = 30) -> ProcessResult:
    return asyncio.run(
        run_process(["sh", "-c", script], cwd=cwd, env={"PATH": "/usr/bin:/bin"}, timeout=timeout)
    )


def running(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True, check=False)
    return found.stdout.split()


def test_helpers_left_running_by_an_agent_that_exited_are_killed(tmp_path: Path) -> None:
    marker = f"{300 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 1000:03d}"  # a unique `sleep` argument
    done = run_script(f"sleep {marker} & echo answered", tmp_path)
    assert done.exit_code == 0 and done.stdout == "answered\n"
    assert running(f"sleep {marker}") == []


def test_output_beyond_the_limit_keeps_its_tail_and_says_so(tmp_path: Path) -> None:
    size = TRANSCRIPT_LIMIT + 4096
    done = run_script(f"head -c {size} /dev/zero | tr '\\0' x; echo; echo LAST >&2; echo END", tmp_path)
    assert done.exit_code == 0
    assert done.stdout.startswith("[... earlier output dropped ...]\n")
    assert done.stdout.endswith("x\nEND\n")
    assert len(done.stdout.encode()) == TRANSCRIPT_LIMIT + len("[... earlier output dropped ...]\n")
    assert done.stderr == "LAST\n"  # the streams are kept apart


def test_a_missing_program_is_exit_127_with_the_reason(tmp_path: Path) -> None:
    done = asyncio.run(run_process([str(tmp_path / "nope")], cwd=tmp_path, env={}, timeout=5))
    assert done.exit_code == 127 and "cannot start" in done.stderr and "nope" in done.stderr
