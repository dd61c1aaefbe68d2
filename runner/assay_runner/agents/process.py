"""Running an agent's process: its own process group, a timeout, and a clean kill on cancel.

Once the agent has exited (or timed out, or its cell was cancelled) everything it started is killed before
its outputs are read: its process group, whatever is still below it in the process tree, and the strays
agents left behind (`assay_runner.processes`). CLIs such as Node-based agents start helpers that would
otherwise outlive their ticket, and a hostile agent's daemon would rewrite other cells.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from assay_runner.agents.base import EXIT_TIMEOUT
from assay_runner.processes import OWN, kill_tree, sweep

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
    """A timed-out or cancelled agent: whatever it started (its tree, while it is alive to hold it
    together, setsid() daemons included) dies at once; the agent itself gets SIGTERM, then SIGKILL."""
    kill_tree(process.pid, spare_root=True)
    _kill_group(process, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
    except TimeoutError:
        _kill_group(process, signal.SIGKILL)
        await process.wait()


def _tail(stream: BinaryIO) -> str:
    """The last TRANSCRIPT_LIMIT bytes of a captured stream, decoded."""
    size = stream.seek(0, os.SEEK_END)
    stream.seek(max(0, size - TRANSCRIPT_LIMIT))
    text = stream.read().decode("utf-8", errors="replace")
    return text if size <= TRANSCRIPT_LIMIT else "[... earlier output dropped ...]\n" + text


async def run_process(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float
) -> ProcessResult:
    """Run to exit or timeout. stdout and stderr go to unnamed temporary files, not pipes: memory stays
    bounded however much an agent prints, and its exit is one event for the loop instead of three."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        try:
            with OWN.spawning() as spawned:
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    cwd=cwd,
                    env=dict(env),
                    start_new_session=True,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=stdout,
                    stderr=stderr,
                )
                spawned.add(process.pid)
        except OSError as exc:
            # A missing executable is the agent failing to start: exit 127, like a shell would report.
            return ProcessResult(
                127, "", f"cannot start {argv[0]!r}: {exc}", time.monotonic() - started, False
            )
        timed_out = False
        try:
            async with asyncio.timeout(timeout):  # no extra task, unlike wait_for
                await process.wait()
        except TimeoutError:
            timed_out = True
            await _terminate(process)
        except asyncio.CancelledError:
            await _terminate(process)
            _end_everything_it_started(process)
            raise
        wall_seconds = time.monotonic() - started
        _end_everything_it_started(process)
        exit_code = EXIT_TIMEOUT if timed_out else _exit_code(process.returncode)
        return ProcessResult(exit_code, _tail(stdout), _tail(stderr), wall_seconds, timed_out)


def _end_everything_it_started(process: asyncio.subprocess.Process) -> None:
    """The cell is over: whatever the agent started dies now, before its outputs are read — its process
    group and (where this process owns its children) every process some agent left behind
    (`processes.sweep`): what an agent starts is orphaned when it exits, and orphans come to this process."""
    _kill_group(process, signal.SIGKILL)
    OWN.forget(process.pid)
    sweep()


def _exit_code(returncode: int | None) -> int:
    if returncode is None:
        return 1
    # Killed by a signal: report 128 + N as a shell (and the kubelet) would, so 137 means SIGKILL.
    return 128 - returncode if returncode < 0 else returncode
