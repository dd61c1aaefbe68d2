"""Running an agent's process: its own process group, a timeout, and a clean kill on cancel.

Once the agent has exited (or timed out, or its cell was cancelled) everything it started is killed before
its outputs are read: its process group, whatever is still below it in the process tree, and the strays
agents left behind (`assay_runner.processes`). CLIs such as Node-based agents start helpers that would
otherwise outlive their ticket, and a hostile agent's daemon would rewrite other cells.

On request (`stamp_lines`), each line of standard output is stamped with when the runner read it: CLIs that
print one JSON event per step (tool started, tool done, model replied) do not all say when, and the stamps
are the one clock a trajectory can use for all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from assay_runner.agents.base import EXIT_TIMEOUT
from assay_runner.cgroup import CELL_GROUPS, CellGroup, oom_kills
from assay_runner.processes import CONTAINMENT, OWN, kill_tree, sweep
from assay_runner.sandbox.launcher import Launch, launching
from assay_runner.vocabulary import Containment

KILL_GRACE_SECONDS = 2.0
TRANSCRIPT_LIMIT = 1 << 20  # keep at most 1 MiB of each stream
MAX_STAMPS = 100_000  # stdout lines stamped; later lines have none (a trajectory keeps far fewer steps)


@dataclass(frozen=True)
class ProcessResult:
    exit_code: int
    stdout: str
    stderr: str
    wall_seconds: float
    timed_out: bool
    line_times: tuple[float | None, ...] = ()
    """With `stamp_lines`: seconds from the start to when each line of `stdout` was read, line for line
    (`stdout.splitlines()`); None for a line with no stamp (the marker of dropped output, an unfinished
    last line, lines past MAX_STAMPS)."""
    containment: Containment = "process-group"
    """What ended everything the agent started (`vocabulary.Containment`)."""
    out_of_memory: bool = False
    """The agent died of SIGKILL, not sent by the runner, while the kernel's out-of-memory killer ended a
    process in the runner's cgroup: the pod's (or the host's) memory limit, not the agent, ended it."""


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


DROPPED = "[... earlier output dropped ...]\n"


def _tail(stream: BinaryIO) -> str:
    """The last TRANSCRIPT_LIMIT bytes of a captured stream, decoded."""
    size = stream.seek(0, os.SEEK_END)
    stream.seek(max(0, size - TRANSCRIPT_LIMIT))
    text = stream.read().decode("utf-8", errors="replace")
    return text if size <= TRANSCRIPT_LIMIT else DROPPED + text


@dataclass
class _Stamps:
    """Where each line of a stream ended (byte offset) and when it was read."""

    ends: list[tuple[int, float]]
    size: int = 0


async def _pump(reader: asyncio.StreamReader, sink: BinaryIO, stamps: _Stamps, started: float) -> None:
    """Copy the stream into `sink` as it comes (memory stays bounded), stamping each line's end."""
    while chunk := await reader.read(1 << 16):
        now = round(time.monotonic() - started, 3)  # milliseconds are all a trajectory shows
        sink.write(chunk)
        start = 0
        while len(stamps.ends) < MAX_STAMPS and (found := chunk.find(b"\n", start)) >= 0:
            stamps.ends.append((stamps.size + found, now))
            start = found + 1
        stamps.size += len(chunk)


def _line_times(stamps: _Stamps, stdout: str) -> tuple[float | None, ...]:
    """The stamps of the lines `_tail` kept, aligned with `stdout.splitlines()`."""
    kept_from = max(0, stamps.size - TRANSCRIPT_LIMIT)
    # The first kept line may have begun before the cut: it is still the line that ends at its newline.
    times: list[float | None] = [when for end, when in stamps.ends if end >= kept_from]
    if stdout.startswith(DROPPED):
        times.insert(0, None)
    lines = len(stdout.splitlines())
    return tuple(times[:lines] + [None] * (lines - len(times)))


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    stamp_lines: bool = False,
    confine: Callable[[], None] | None = None,
) -> ProcessResult:
    """Run to exit or timeout. stdout and stderr go to unnamed temporary files, not pipes: memory stays
    bounded however much an agent prints, and its exit is one event for the loop instead of three. With
    `stamp_lines`, stdout goes through a pipe the loop copies into its file, stamping each line.
    `confine` confines the agent before it executes (the cell's sandbox: `assay_runner.sandbox`): done by
    the sandbox's launcher, started with vfork, when `confine` is a cell's `Confinement` and the launcher
    is there (`sandbox.launcher`), else run in the child between fork and exec; if it fails, the agent
    does not start."""
    started = time.monotonic()
    group = CELL_GROUPS.cell()
    kills_before = oom_kills()
    with (
        launching(confine, argv, env) as launch,
        tempfile.TemporaryFile() as stdout,
        tempfile.TemporaryFile() as stderr,
    ):
        try:
            process = await _start(
                argv, launch, confine, cwd=cwd, env=env, stdout=None if stamp_lines else stdout, stderr=stderr
            )
        except subprocess.SubprocessError as exc:  # what a failed preexec_fn raises
            if group is not None:
                group.kill()  # empty: removed
            return ProcessResult(
                127,
                "",
                f"cannot confine {argv[0]!r} to its sandbox: {exc}",
                time.monotonic() - started,
                False,
            )
        except OSError as exc:
            if group is not None:
                group.kill()  # empty: removed
            # A missing executable is the agent failing to start: exit 127, like a shell would report.
            return ProcessResult(
                127, "", f"cannot start {argv[0]!r}: {exc}", time.monotonic() - started, False
            )
        # Into the cell's group on the mover's thread: the write waits for the kernel (milliseconds), and the
        # loop has other agents to start meanwhile. Awaited before anything ends the cell (`_joined`).
        moving = asyncio.wrap_future(group.add_soon(process.pid)) if group is not None else None
        stamps = _Stamps([])
        pump = None
        if stamp_lines:
            assert process.stdout is not None
            pump = asyncio.ensure_future(_pump(process.stdout, stdout, stamps, started))
        timed_out = False
        try:
            async with asyncio.timeout(timeout):  # no extra task, unlike wait_for
                await process.wait()
        except TimeoutError:
            timed_out = True
            group = await _joined(group, moving)
            await _terminate(process)
        except asyncio.CancelledError:
            group = await _joined(group, moving)
            await _terminate(process)
            _end_everything_it_started(process, group)
            if pump is not None:
                pump.cancel()
            raise
        wall_seconds = time.monotonic() - started
        group = await _joined(group, moving)
        containment = _end_everything_it_started(process, group)
        if pump is not None:
            await _drain(pump)  # after the kill: nothing is left to hold the pipe open
        exit_code = EXIT_TIMEOUT if timed_out else _exit_code(process.returncode)
        refused = launch.failure() if launch is not None else None
        if refused is not None:  # the launcher did not start the agent: as a failed preexec_fn
            return ProcessResult(127, "", refused, wall_seconds, False, (), containment)
        out = _tail(stdout)
        times = _line_times(stamps, out) if stamp_lines else ()
        killed = process.returncode == -signal.SIGKILL and not timed_out
        out_of_memory = killed and kills_before is not None and (oom_kills() or 0) > kills_before
        return ProcessResult(
            exit_code, out, _tail(stderr), wall_seconds, timed_out, times, containment, out_of_memory
        )


async def _start(
    argv: Sequence[str],
    launch: Launch | None,
    confine: Callable[[], None] | None,
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdout: BinaryIO | None,
    stderr: BinaryIO,
) -> asyncio.subprocess.Process:
    """Start the agent in its own session, through the sandbox's launcher if there is one (`launch`), else
    with `confine` as preexec_fn. stdout None: a pipe."""
    with OWN.spawning() as spawned:
        process = await asyncio.create_subprocess_exec(
            *(launch.argv if launch is not None else argv),
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE if stdout is None else stdout,
            stderr=stderr,
            # None with the launcher: subprocess then starts it with vfork, not by forking the runner.
            preexec_fn=confine if launch is None else None,
            pass_fds=launch.pass_fds if launch is not None else (),
        )
        spawned.add(process.pid)
    if launch is not None:
        launch.started()
    return process


async def _joined(group: CellGroup | None, moving: asyncio.Future[bool] | None) -> CellGroup | None:
    """The cell's group once the agent's move into it is over, so that ending the group ends what is in
    it; None when the agent could not be moved (it exited first, say): the group, empty, is removed, and
    the cell is ended the other ways (`_end_everything_it_started`)."""
    if group is None or moving is None:
        return group
    if await moving:
        return group
    group.kill()
    return None


async def _drain(pump: asyncio.Future[None]) -> None:
    """The rest of the pipe, once the group is killed: a grandchild that kept it open is gone, so the end of
    the stream comes at once; should one have escaped the group, the output stops after a grace period."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(pump, KILL_GRACE_SECONDS)


def _end_everything_it_started(process: asyncio.subprocess.Process, group: CellGroup | None) -> Containment:
    """The cell is over: whatever the agent started dies now, and is gone, before its outputs are read —
    its process group, its cgroup (`cgroup.kill`, where the runtime delegates one) and (where this process
    owns its children) every process some agent left behind (`processes.sweep`, through pidfds): what an
    agent starts is orphaned when it exits, and orphans come to this process. Returns what ended it."""
    _kill_group(process, signal.SIGKILL)
    ended_by_group = group is not None and group.kill()
    OWN.forget(process.pid)
    sweep()
    if ended_by_group:
        return "cgroup"
    return "pidfd-tree" if CONTAINMENT.active else "process-group"


def _exit_code(returncode: int | None) -> int:
    if returncode is None:
        return 1
    # Killed by a signal: report 128 + N as a shell (and the kubelet) would, so 137 means SIGKILL.
    return 128 - returncode if returncode < 0 else returncode
