"""An agent the kernel's out-of-memory killer ends is named as such: its cell says the memory limit ended
it, not the agent, so the user raises `spec.resources.memory` instead of hunting a crash. A SIGKILL from
anywhere else keeps the plain words: the runner tells the two apart by the memory cgroup's OOM-kill count.

Each `assay answer` runs in a memory cgroup of its own with a limit, as a pod's container does (cgroup v1
here: `memory.limit_in_bytes`; the count is `oom_kill` in `memory.oom_control`, or `memory.events` on v2).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_runner.cgroup import memory_v1_folder
from tests.runner.test_sealed_cells import ASSAY

LIMIT = 192 << 20
"""The runner (about 60 MiB) fits; an agent that touches 512 MiB does not."""
GREEDY = "b = bytearray(512 << 20); b[::4096] = b'x' * len(b[::4096])"
SELF_KILLED = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"


@contextlib.contextmanager
def memory_limited(limit: int) -> Iterator[Path]:
    """A cgroup v1 memory group below this process's, limited to `limit` bytes (no swap on these
    machines; where there is, memsw is limited too)."""
    parent = memory_v1_folder()
    if parent is None or not os.access(parent, os.W_OK):
        pytest.skip("this machine gives this process no writable cgroup v1 memory folder")
    folder = parent / f"assay-test-oom-{os.getpid()}-{time.monotonic_ns()}"
    folder.mkdir()
    try:
        (folder / "memory.limit_in_bytes").write_text(str(limit))
        with contextlib.suppress(OSError):
            (folder / "memory.memsw.limit_in_bytes").write_text(str(limit))
        yield folder
    finally:
        for pid in (folder / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), 9)
        deadline = time.monotonic() + 10
        while (folder / "cgroup.procs").read_text().strip() and time.monotonic() < deadline:
            time.sleep(0.05)
        folder.rmdir()


def answer_in(folder: Path, suite: Path, brain: Path, tmp_path: Path, program: str) -> dict[str, object]:
    """`assay answer` for T-1 in `folder`'s cgroup with a command agent running `program`; its cell.json."""
    config = tmp_path / "answer.json"
    config.write_text(
        json.dumps(
            {
                "suite": str(suite),
                "brain": str(brain),
                "tickets": ["T-1"],
                "mlflow": {"enabled": False},
                "answersDir": str(tmp_path / "answers"),
                "agent": {
                    "kind": "command",
                    "model": "m",
                    "timeoutSeconds": 60,
                    "command": [sys.executable, "-c", program],
                },
            }
        )
    )

    def join() -> None:
        (folder / "cgroup.procs").write_text(str(os.getpid()))

    subprocess.run(
        [*ASSAY, "answer", "--config", str(config), "-q"], check=True, timeout=120, preexec_fn=join
    )
    return json.loads((tmp_path / "answers" / "T-1" / "1" / "cell.json").read_text())


def test_an_agent_past_the_memory_limit_is_named_out_of_memory(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    with memory_limited(LIMIT) as folder:
        record = answer_in(folder, suite, brain, tmp_path, GREEDY)
        kills = (folder / "memory.oom_control").read_text()
    assert "oom_kill 1" in kills, kills  # the test's premise: the kernel ended exactly the agent
    assert record["exitCode"] == 137, record
    assert "out-of-memory killer" in str(record["error"]), record
    assert "spec.resources.memory" in str(record["error"])


def test_an_agent_killed_otherwise_is_not_called_out_of_memory(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    with memory_limited(LIMIT) as folder:
        record = answer_in(folder, suite, brain, tmp_path, SELF_KILLED)
        kills = (folder / "memory.oom_control").read_text()
    assert "oom_kill 0" in kills, kills
    assert record["exitCode"] == 137, record
    assert record["error"] == "the agent left no answer (exit code 137)", record
