"""`assay` as a container's first process (the init of its PID namespace, as in every runner pod): the
kernel drops a signal init has no handler for, so without one a pod deleted while the runner starts would
wait out its whole grace period, then be killed. Here `assay` runs as PID 1 of a new PID namespace
(`unshare --pid --fork`), blocked in its start-up (in the command, before it reads its suite) on opening a
FIFO nobody writes: a suite file that is a FIFO is refused up front, so the wait is put in front of the
`validate` command's handler."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay_runner.cli import TERMINATED

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare (a PID namespace)"
)


def test_sigterm_ends_assay_as_pid_1_while_it_starts(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it blocks: assay is still starting when SIGTERM comes
    started = tmp_path / "started"
    code = (
        "import os, sys; from assay_runner.cli import console; from assay_runner.commands import validate; "
        f"open({str(started)!r}, 'w').write(str(os.getpid())); "
        f"real = validate.run; validate.run = lambda args: (open({str(fifo)!r}).close(), real(args))[1]; "
        f"sys.argv = ['assay', 'validate', {str(suite)!r}]; console()"
    )
    process = subprocess.Popen(
        ["unshare", "--pid", "--fork", "--kill-child", sys.executable, "-c", code],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists() or not started.read_text():
            assert process.poll() is None and time.monotonic() < deadline, "assay never started"
            time.sleep(0.05)
        assert started.read_text() == "1"  # it is its namespace's init
        inits = [
            int(entry.name)
            for entry in Path("/proc").iterdir()
            if entry.name.isdigit() and _ns_pid(entry) == 1 and _parent(entry) == process.pid
        ]
        assert len(inits) == 1, inits
        # Blocked opening the FIFO (the kernel's wait for a writer): past console()'s first line, whatever
        # the machine's load, and not yet reading the suite.
        while _wchan(inits[0]) != "wait_for_partner":
            assert process.poll() is None and time.monotonic() < deadline, "assay never reached the suite"
            time.sleep(0.05)
        os.kill(inits[0], signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)  # without a handler it would never end
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == TERMINATED, stderr
    assert "terminated (SIGTERM)" in stderr


def _wchan(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return ""


def _ns_pid(entry: Path) -> int | None:
    """The process's PID in its own (innermost) PID namespace."""
    try:
        for line in (entry / "status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return int(line.split()[-1])
    except OSError:
        return None
    return None


def _parent(entry: Path) -> int | None:
    try:
        return int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None
