"""A cgroup per cell, where the runtime delegates one: the cell ends with `cgroup.kill`, which the kernel
applies to every process and thread in the group at once, whatever they forked, re-parented or renamed.

Where it applies: cgroup v2 (a `0::` line in /proc/self/cgroup and a `cgroup2` mount) and the runner's own
cgroup writable by it (a delegated subtree: systemd's `Delegate=yes`, a container runtime that mounts the
cgroup file system writable, a root process on a host), on Linux 5.14+ (`cgroup.kill`). The run gets a
group of its own below the runner's (`assay-run-<pid>-<random>`) and each cell one below that. Anything
missing, and the cells are ended as before (`processes`: their process tree and the strays, through
pidfds); each cell's record says which (`containment`).

The runner moves the agent into its group right after starting it (on a thread of its own, `MOVER`: the
write waits for the kernel's migration, milliseconds the event loop spends starting other agents meanwhile;
the cell awaits the move before it is ended): an agent that exits first is not moved
(its cell says `pidfd-tree`), and a process it forked before the move is outside the group — still below
the agent or a stray of the runner's, which the pidfd sweep that follows `cgroup.kill` kills. Only the
`assay` command uses cgroups (`processes.CONTAINMENT`): a program that calls `main()` in-process may not
want its children's cgroups changed.

`ASSAY_CELL_CGROUPS=off` in the runner's environment turns them off (the tests use it to run both ways).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import functools
import os
import queue
import secrets
import select
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from functools import partial
from pathlib import Path

from assay_runner.processes import CONTAINMENT, KILL_WAIT_SECONDS

CGROUP_SWITCH = "ASSAY_CELL_CGROUPS"
RUN_PREFIX = "assay-run-"


def _own_path() -> str | None:
    """The runner's cgroup v2 path (`0::<path>`), None on a v1-only host."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            return line[3:]
    return None


def _mount() -> tuple[Path, str] | None:
    """Where the cgroup2 file system is mounted, and which of its folders the mount shows at its root."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        before, _, after = line.partition(" - ")
        if after.split(" ", 1)[0] == "cgroup2":
            fields = before.split()
            return Path(fields[4]), fields[3]
    return None


def _own_folder() -> Path | None:
    """The folder of the runner's own cgroup, when it is a cgroup v2 folder this mount namespace shows."""
    path, mount = _own_path(), _mount()
    if path is None or mount is None:
        return None
    where, shown = mount
    relative = os.path.relpath(path, shown)
    if relative.startswith(".."):
        return None  # the runner's group is outside what the mount shows (another namespace)
    folder = (where / relative).resolve()
    if not (folder / "cgroup.procs").is_file():
        return None
    return folder


def own_group() -> Path | None:
    """The folder of the runner's own cgroup, when it is a cgroup v2 folder the runner may write in."""
    folder = _own_folder()
    if folder is None:
        return None
    if not (os.access(folder, os.W_OK) and os.access(folder / "cgroup.procs", os.W_OK)):
        return None
    return folder


def oom_kills() -> int | None:
    """How many processes the kernel's out-of-memory killer has ended in the runner's memory cgroup and
    below it; None where no count can be read. cgroup v2: `oom_kill` in `memory.events` (which counts the
    subtree); v1: `oom_kill` in `memory.oom_control` (Linux 4.13+). Read-only: a container that may not
    write its cgroup still shows the count. Read before and after every agent, so where the count is kept is
    found once (`_counters`) and each call reads only the count."""
    for counts in _counters():
        try:
            lines = counts.read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            name, _, count = line.partition(" ")
            if name == "oom_kill" and count.strip().isdigit():
                return int(count)
    return None


@functools.cache
def _counters() -> tuple[Path, ...]:
    """The files that may hold the runner's OOM-kill count, in the order `oom_kills` reads them: those of
    the cgroups the runner is in, which do not change while it runs (its pod's container, its service).
    Finding them reads /proc/self/cgroup, which waits for the kernel's cgroup lock (behind any migration
    under way on the host, milliseconds), and /proc/self/mountinfo: it was done before every agent's start."""
    found = [(_memory_v2(), "memory.events"), (memory_v1_folder(), "memory.oom_control")]
    return tuple(folder / counts for folder, counts in found if folder is not None)


def _memory_v2() -> Path | None:
    folder = _own_folder()
    return folder if folder is not None and (folder / "memory.events").is_file() else None


def memory_v1_folder() -> Path | None:
    """The runner's folder in a cgroup v1 memory hierarchy (`N:memory:<path>` in /proc/self/cgroup)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    path = next(
        (line.split(":", 2)[2] for line in lines if "memory" in line.split(":", 2)[1].split(",")), None
    )
    if path is None:
        return None
    for line in mounts:
        before, _, after = line.partition(" - ")
        kind = after.split(" ")
        if kind[0] == "cgroup" and len(kind) > 2 and "memory" in kind[2].split(","):
            fields = before.split()
            relative = os.path.relpath(path, fields[3])
            if relative.startswith(".."):
                return None
            return (Path(fields[4]) / relative).resolve()
    return None


class CellGroup:
    """One cell's cgroup."""

    def __init__(self, folder: Path, then: Callable[[], bool] | None = None) -> None:
        """`then`: the mover's next job after this group's move (the next cell's group, made ahead)."""
        self.folder = folder
        self._then = then

    def add_soon(self, pid: int) -> Future[bool]:
        """`add` for a child of this process not yet reaped, on the mover's thread (`MOVER`): the caller goes
        on at once and awaits the outcome before it ends the cell. The child may be reaped meanwhile and its
        pid taken by another process: a pidfd opened now holds the child itself, and the pid is written
        only while the pidfd shows it not reaped."""
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:  # gone already
            done: Future[bool] = Future()
            done.set_result(False)
            return done
        moved = MOVER.submit(partial(self._add_held, pidfd, pid))
        if self._then is not None:
            MOVER.submit(self._then)
        return moved

    def _add_held(self, pidfd: int, pid: int) -> bool:
        try:
            signal.pidfd_send_signal(pidfd, 0)  # ESRCH once reaped; a zombie not yet reaped still counts
        except OSError:
            return False
        finally:
            os.close(pidfd)
        return self.add(pid)

    def add(self, pid: int) -> bool:
        """Move `pid` into the group; False when it cannot be (then the pidfd sweep ends it). The write
        waits for the kernel's cgroup migration, 5-16 ms measured here (it waits out an RCU grace period),
        so `run_process` has it done on a thread (`add_soon`) instead of blocking the event loop."""
        try:
            (self.folder / "cgroup.procs").write_text(f"{pid}\n")
        except OSError:
            return False
        return True

    def kill(self, timeout: float = KILL_WAIT_SECONDS) -> bool:
        """SIGKILL every process in the group, then wait until none is left (`cgroup.events` says
        `populated 0` once each has exited: no thread of it left); False when some were left after
        `timeout`. The group is removed once empty.

        `cgroup.kill` alone is not enough: it passes over a thread group whose leader has ended (the raw
        exit syscall) while its other threads run (measured on Linux 6.18: the threads live on). Such a
        group is still listed in `cgroup.procs`, and each process listed gets SIGKILL through a pidfd too."""
        deadline = time.monotonic() + timeout
        try:
            events = os.open(self.folder / "cgroup.events", os.O_RDONLY)
        except OSError:
            return False
        try:
            changes = select.poll()
            changes.register(events, select.POLLPRI | select.POLLERR)  # the kernel's notice of a change
            while b"populated 0" not in os.pread(events, 4096, 0):
                (self.folder / "cgroup.kill").write_text("1\n")
                self._kill_listed()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                changes.poll(min(remaining, 0.1) * 1000)  # and again: a notice may come before a read
        except OSError:
            return False
        finally:
            os.close(events)
        # Empty: the cell is over. Removing the folder waits for any migration under way (another cell's
        # agent being moved into its group holds the kernel's cgroup lock for milliseconds), so the mover
        # removes it, after the moves asked before; what is left at exit, `_remove` removes.
        MOVER.submit(self._removed)
        return True

    def _removed(self) -> bool:
        try:
            self.folder.rmdir()
        except OSError:
            return False
        return True

    def _kill_listed(self) -> None:
        """SIGKILL each process `cgroup.procs` lists, through a pidfd opened first and checked to be in this
        group after (the pid cannot name another process by then)."""
        listed = (self.folder / "cgroup.procs").read_text().split()
        for pid in map(int, listed):
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                continue
            try:
                if self._holds(pid):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                pass
            finally:
                os.close(pidfd)

    def _holds(self, pid: int) -> bool:
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            return False
        return any(line.startswith("0::") and line.rsplit("/", 1)[-1] == self.folder.name for line in lines)


class CellGroups:
    """The run's cgroup, below the runner's, and its cells' groups below it (made by `prepare`, else on
    first use)."""

    def __init__(self) -> None:
        self._run: Path | None = None
        self._tried = False
        self._ahead: collections.deque[Path] = collections.deque()
        self._deciding = threading.Lock()  # the mover may make the run's group (`prepare`) as a cell asks

    def reset(self) -> None:
        """Decide again on first use, as a fresh process does (tests): an earlier run group is left to its
        exit handler."""
        with self._deciding:
            self._run = None
            self._tried = False
            self._ahead.clear()

    def prepare(self, cells: int) -> None:
        """Make the run's group and the first `cells` cells' groups (one per agent slot) now, on the mover's
        thread, while the runner still starts up. Made when the first agents start instead, each mkdir
        waited for the move of the agent started just before (the kernel's cgroup lock, 5-16 ms): the
        second agent started ~10 ms after the first, and the last agents of its slot as late. Only in the
        `assay` command (`CONTAINMENT.owner`); the cells use them once their phase contains its agents."""
        if not CONTAINMENT.owner or _switched_off():
            return
        MOVER.submit(partial(self._make_first, cells))

    def _make_first(self, cells: int) -> bool:
        _counters()  # found now too: reading /proc/self/cgroup waits for a migration under way
        run = self._run_group(owned=True)
        if run is None:
            return False
        for _ in range(cells):
            self._make_ahead(run)
        return True

    def _run_group(self, owned: bool = False) -> Path | None:
        """The run's group (None: cells get none). `owned`: asked ahead by `prepare`, before the phase
        contains its agents (`CONTAINMENT.active`): a cell asks only once they are contained."""
        if not owned and not CONTAINMENT.active:
            return None
        with self._deciding:
            if not self._tried:
                self._tried = True
                self._run = _run_made()
            return self._run

    def cell(self) -> CellGroup | None:
        """A new, empty group for one cell, or None where cells get none. Made ahead by the mover (one per
        slot by `prepare`, then one for each taken): making a folder waits for any migration under way
        (`CellGroup.kill`), and this is called right before an agent starts."""
        run = self._run_group()
        if run is None:
            return None
        folder = self._ahead.popleft() if self._ahead else _made(run)
        # The next cell's is made after this one's agent is moved: the mover (and its thread's start, for
        # the first cell) waits until the agent has started.
        return CellGroup(folder, partial(self._make_ahead, run)) if folder is not None else None

    def _make_ahead(self, run: Path) -> bool:
        if self._run != run:  # reset meanwhile (tests): the folder would belong to no run
            return False
        folder = _made(run)
        if folder is not None:
            self._ahead.append(folder)
        return folder is not None


def _switched_off() -> bool:
    return os.environ.get(CGROUP_SWITCH, "").lower() in ("off", "0", "false")


def _run_made() -> Path | None:
    """A new group for the run, below the runner's own (None: there is none to use)."""
    if _switched_off():
        return None
    parent = own_group()
    if parent is None:
        return None
    _remove_stale(parent)
    folder = parent / f"{RUN_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        folder.mkdir()
    except OSError:
        return None
    if not (folder / "cgroup.kill").is_file():  # before Linux 5.14
        with contextlib.suppress(OSError):
            folder.rmdir()
        return None
    atexit.register(_remove, folder)
    return folder


def _made(run: Path) -> Path | None:
    """A new, empty cell group in the run's group (None: it cannot be made)."""
    folder = run / f"cell-{secrets.token_hex(6)}"
    try:
        folder.mkdir()
    except OSError:
        return None
    return folder


def _remove_stale(parent: Path) -> None:
    """The groups of earlier runs whose runner is gone without removing them (killed, or ended by a signal
    before its exit handlers ran), each once empty."""
    with contextlib.suppress(OSError):
        for run in parent.glob(f"{RUN_PREFIX}*-*"):
            pid = run.name.removeprefix(RUN_PREFIX).split("-", 1)[0]
            if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                _remove_groups(run)  # not `_remove`: the mover, which makes the run's group, calls this


def _remove(run: Path) -> None:
    """At exit: the run's group and any cell group left in it (each empty by then, or it stays), once the
    mover has done what it was asked (a group it is making would keep the run's)."""
    MOVER.wait_idle(KILL_WAIT_SECONDS)
    _remove_groups(run)


def _remove_groups(run: Path) -> None:
    with contextlib.suppress(OSError):
        for cell in run.iterdir():
            if cell.is_dir():
                with contextlib.suppress(OSError):
                    cell.rmdir()
        run.rmdir()


class Mover:
    """One daemon thread that moves agents into their cells' groups, in the order asked. A daemon: it
    holds no state a process exit must wait for (each move is awaited by its cell before the cell ends),
    and `assay` may end without joining it."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], bool], Future[bool]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, move: Callable[[], bool]) -> Future[bool]:
        moved: Future[bool] = Future()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="assay-cgroup-mover", daemon=True)
                self._thread.start()
        self._jobs.put((move, moved))
        return moved

    def reset(self) -> None:
        """As a fresh process has it (tests): what was asked is done first, the thread stays for the next."""
        self.wait_idle(KILL_WAIT_SECONDS)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every job asked so far is done (False: not within `timeout`)."""
        if self._thread is None or not self._thread.is_alive():
            return True
        try:
            self.submit(lambda: True).result(timeout)
        except FutureTimeout:
            return False
        return True

    def _work(self) -> None:
        while True:
            move, moved = self._jobs.get()
            if not moved.set_running_or_notify_cancel():
                continue
            try:
                moved.set_result(move())
            except BaseException as error:  # reported to the cell that waits for it
                moved.set_exception(error)


MOVER = Mover()
CELL_GROUPS = CellGroups()
