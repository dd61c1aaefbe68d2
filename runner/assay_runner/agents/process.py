"""Running an agent's process: its own process group, a timeout, and a clean kill on cancel.

The whole process group is killed, not just the direct child: CLIs such as Node-based agents start helpers
that would otherwise outlive a timed-out ticket and keep using CPU and the gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay_runner.agents.base import EXIT_TIMEOUT

KILL_GRACE_SECONDS = 2.0
TRANSCRIPT_LIMIT = 1 << 20  # keep at most 1 MiB of each stream


@dataclass(frozen=True)
class ProcessResult:
    exit_code: int
    stdout: str
    stderr: str
    wall_seconds: float
    timed_out: bool


@contextlib.contextmanager
def pidfd_child_watcher() -> Iterator[None]:
    """Notice agents' exits through pidfds instead of Python 3.11's default of one waiting thread per
    process: about a millisecond sooner per agent, and no thread to start. Python 3.12+ does this itself;
    a kernel without pidfd_open (before 5.3) keeps the default. Call inside the running loop."""
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open"):
        yield
        return
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        yield
        return
    previous = asyncio.get_child_watcher()
    watcher = asyncio.PidfdChildWatcher()
    watcher.attach_loop(asyncio.get_running_loop())
    asyncio.set_child_watcher(watcher)
    try:
        yield
    finally:
        watcher.close()
        asyncio.set_child_watcher(previous)


def _kill_group(process: asyncio.subprocess.Process, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


async def _terminate(process: asyncio.subprocess.Process) -> None:
    _kill_group(process, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
    except TimeoutError:
        _kill_group(process, signal.SIGKILL)
        await process.wait()


def _decode(data: bytes) -> str:
    text = data[-TRANSCRIPT_LIMIT:].decode("utf-8", errors="replace")
    return text if len(data) <= TRANSCRIPT_LIMIT else "[... earlier output dropped ...]\n" + text


async def run_process(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float, stdin: bytes | None = None
) -> ProcessResult:
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        # A missing executable is the agent failing to start: exit 127, like a shell would report.
        return ProcessResult(127, "", f"cannot start {argv[0]!r}: {exc}", time.monotonic() - started, False)
    communicate = asyncio.ensure_future(process.communicate(stdin))
    timed_out = False
    try:
        stdout, stderr = await asyncio.wait_for(asyncio.shield(communicate), timeout)
    except TimeoutError:
        timed_out = True
        await _terminate(process)
        stdout, stderr = await communicate
    except asyncio.CancelledError:
        await _terminate(process)
        communicate.cancel()
        raise
    exit_code = EXIT_TIMEOUT if timed_out else _exit_code(process.returncode)
    return ProcessResult(exit_code, _decode(stdout), _decode(stderr), time.monotonic() - started, timed_out)


def _exit_code(returncode: int | None) -> int:
    if returncode is None:
        return 1
    # Killed by a signal: report 128 + N as a shell (and the kubelet) would, so 137 means SIGKILL.
    return 128 - returncode if returncode < 0 else returncode
