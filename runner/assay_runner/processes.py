"""The processes Assay starts, and the ones agents leave behind: found, and killed, before they can act.

An agent is a program, and a program can outlive its cell: a daemon that calls setsid() escapes the cell's
process-group kill, finds another cell's files and rewrites them. So the phases that run agents make the
runner a *child subreaper* (prctl PR_SET_CHILD_SUBREAPER, no privilege needed): a process whose parent
dies is re-parented to the runner instead of to init. Two facts follow, and they are what this module
uses:

- everything an agent started is, until it dies, either in the agent's process tree or a child of the
  runner;
- the runner knows every child it started itself (agents, code-judge workers: `OWN.spawning()`), so every
  other child of the runner is a process some agent left behind (a stray).

At a cell's end its whole tree is killed (not just its process group), then the strays are; the phase ends
with a last sweep. Only then is a cell sealed (`run.seal`) and, at the end, the answers tree's manifest
written: no agent process is alive to rewrite either.

What is killed is a thread group, and what counts as alive is any group with a thread left: /proc shows a
group whose main thread ended with the raw exit syscall as a zombie (`Z`) while its other threads run, and
its `Threads:` count says so. Each group is signalled through a pidfd opened on exactly the process seen
(its start time checked once the pidfd is open, so a reused pid is never signalled), and waited on until
the pidfd is readable: the kernel has torn the whole group down, and nothing of it writes a file after the
sweep returns. Where the runtime delegates a cgroup, each cell also has its own (`assay_runner.cgroup`).

Standard library only (`/proc`, `ctypes` for prctl): the judges' code workers register here too.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import select
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
KILL_ROUNDS = 20  # a fork bomb re-spawns while it is killed; each round kills what the last one missed
KILL_WAIT_SECONDS = 10.0  # how long a killed process may take to be torn down


class OwnChildren:
    """The children this process started itself. A child being started (forked, not yet registered: on a
    thread, or across an await) would look like a stray, so while any start is under way no sweep runs;
    the next one, or the phase's last, catches what it would have."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._pids: set[int] = set()
        self._starting = 0

    @contextlib.contextmanager
    def spawning(self) -> Iterator[set[int]]:
        """Around a fork: add the new child's pid to the yielded set before leaving the block."""
        with self.lock:
            self._starting += 1
        started: set[int] = set()
        try:
            yield started
        finally:
            with self.lock:
                self._pids |= started
                self._starting -= 1

    @property
    def starting(self) -> bool:
        return self._starting > 0

    def forget(self, pid: int) -> None:
        with self.lock:
            self._pids.discard(pid)

    def pids(self) -> frozenset[int]:
        with self.lock:
            return frozenset(self._pids)

    @property
    def held(self) -> set[int]:
        """The pids, for a caller that holds `lock`."""
        return self._pids

    def reset(self) -> None:
        """Forget every child recorded (tests reset the process's singletons between tests); a fork under way
        keeps its count, which its own `spawning` block restores."""
        with self.lock:
            self._pids.clear()


OWN = OwnChildren()


class Containment:
    """Whether this process owns every child it has, and so may treat a child it did not start as a stray.

    Only the `assay` command itself owns its process (its entry point says so: `owner`); a program that
    calls `main()` in-process — a test harness with servers or a kubelet of its own — has children Assay did
    not start and must never sweep them. The phases that run agents call `contain()`."""

    def __init__(self) -> None:
        self.owner = False
        self.active = False

    def contain(self) -> bool:
        """Become the subreaper of everything this process starts, if it owns its process; returns whether
        strays are swept from now on."""
        if self.owner and not self.active:
            self.active = become_subreaper()
        return self.active

    def reset(self) -> None:
        """Back to a process that owns nothing (a subreaper stays one: the kernel has no way back)."""
        self.owner = False
        self.active = False


CONTAINMENT = Containment()


def _libc() -> ctypes.CDLL | None:
    """The C library. First the process's own symbols (a Linux CPython links libc): asking
    `ctypes.util.find_library` runs `ldconfig -p` in a subprocess, ~9 ms before the first agent."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl  # noqa: B018 -- the lookup is the check
        return libc
    except (OSError, AttributeError):
        pass
    from ctypes.util import find_library

    name = find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None


def _prctl(option: int, value: int) -> bool:
    libc = _libc()
    if libc is None:
        return False
    try:
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except AttributeError:
        return False


def become_subreaper() -> bool:
    """Adopt the orphans of every descendant (Linux 3.4+). False where the call is not available."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def hide_from_agents() -> None:
    """Make this process's memory, environment and open files unreadable to the agents it starts.

    They run as the same user, which is enough to read `/proc/<runner>/environ`, `mem` and `fd/` — unless
    the runner is not "dumpable" (prctl PR_SET_DUMPABLE 0): its /proc entries then belong to root, and
    reading its memory or tracing it needs CAP_SYS_PTRACE, which no agent has. (An agent's own dumpable
    flag is set again when it execs its program.) The gateway sidecar's key lives in this process only.
    Raises when it cannot be done: the key must not be held where an agent can read it."""
    if not _prctl(PR_SET_DUMPABLE, 0):
        raise OSError("prctl(PR_SET_DUMPABLE, 0) failed: the runner cannot hide its memory from its agents")


@dataclass(frozen=True)
class Seen:
    """A process as /proc showed it: its parent, and its start time (clock ticks since boot), which with
    its pid names this one process — a pid is reused once its process is reaped."""

    parent: int
    started: int


def _stat(pid: str) -> tuple[str, Seen, int] | None:
    """(state, what was seen, how many threads its group has) of a process, None when it is gone."""
    try:
        stat = Path("/proc", pid, "stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields follow the last ")".
    fields = stat.rsplit(")", 1)[-1].split()
    if len(fields) < 20:
        return None
    return fields[0], Seen(parent=int(fields[1]), started=int(fields[19])), int(fields[17])


def _dead(state: str, threads: int) -> bool:
    """Whether nothing of a thread group runs. A zombie *leader* is not a dead process: its main thread may
    have ended (the raw exit syscall) while other threads of its group keep running — and they can still
    write files. /proc shows the group as `Z`; its thread count (the leader's counted) says what is left."""
    return state in ("Z", "X") and threads <= 1


def _live(pid: str) -> Seen | None:
    """What /proc shows of `pid` when any of its threads still runs, else None (gone, or dead)."""
    found = _stat(pid)
    if found is None or _dead(found[0], found[2]):
        return None
    return found[1]


def process_table() -> dict[int, Seen]:
    """pid -> what was seen, for every live process this one can see (thread groups with a zombie leader and
    a running thread included)."""
    table: dict[int, Seen] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (seen := _live(entry.name)) is not None:
            table[int(entry.name)] = seen
    return table


@functools.cache
def lists_children() -> bool:
    """Whether the kernel lists each thread's children (/proc/<pid>/task/<tid>/children, Linux 3.5+ with
    CONFIG_PROC_CHILDREN). Where it does, a sweep reads this process's children and what is below them
    (a few files) instead of every process on the machine (two reads per process, each sweep: ~5 ms per
    cell on a host running a hundred processes, between an agent's exit and the next agent's start)."""
    return os.path.exists(f"/proc/self/task/{threading.get_native_id()}/children")


def children(pid: int) -> list[int]:
    """The children of `pid` (zombies included): every thread's, as a child belongs to the thread that
    forked or adopted it. Empty when `pid` is gone. Only where `lists_children()`."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as listing:
                found.extend(int(child) for child in listing.read().split())
        except OSError:  # the thread ended meanwhile: its children went to another thread, listed too
            continue
    return found


def _candidates(me: int) -> Iterator[str]:
    """Pids that may be children of `me`: its listed children, else every process's."""
    if lists_children():
        return (str(pid) for pid in children(me))
    return (entry.name for entry in os.scandir("/proc") if entry.name.isdigit())


def reap_orphans() -> None:
    """Collect the exit status of dead children this process did not start: orphans re-parented to it
    and killed. Its own children are left alone (the event loop or a Popen waits for those) — and so is
    everything while one of its own is being started: that child may already be dead, and not registered
    yet; taking its exit status would leave its waiter with none (asyncio reports 255)."""
    me = os.getpid()
    with OWN.lock:
        if OWN.starting:
            return
        for pid in _candidates(me):
            if int(pid) in OWN.held:
                continue
            found = _stat(pid)
            if found is not None and _dead(found[0], found[2]) and found[1].parent == me:
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(int(pid), os.WNOHANG)


def tree(root: int, table: Mapping[int, Seen]) -> dict[int, Seen]:
    """`root` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, seen in table.items():
        children.setdefault(seen.parent, []).append(pid)
    found: dict[int, Seen] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in found or pid not in table:
            continue
        found[pid] = table[pid]
        todo.extend(children.get(pid, []))
    return found


def _pidfd(pid: int, seen: Seen) -> int | None:
    """A pidfd for exactly the process that was seen, None when it is gone (or its pid names another one by
    now). The pidfd is opened first, then the start time checked: whatever the pid named when the pidfd was
    opened is the process the pidfd signals, and it is the one seen only if the start times agree."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return None
    found = _stat(str(pid))
    if found is None or found[1].started != seen.started:
        os.close(fd)
        return None
    return fd


def pidfds_work() -> bool:
    """Whether this kernel and Python have pidfds (Linux 5.3+, Python 3.9+)."""
    return _pidfds_work()


@functools.cache
def _pidfds_work() -> bool:
    if not (hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal")):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        return False
    return True


def _kill(found: Mapping[int, Seen]) -> None:
    """SIGKILL each process found, then wait until each is gone (`_signal`, `wait_gone`)."""
    wait_gone(_signal(found))


def _signal(found: Mapping[int, Seen]) -> list[int]:
    """SIGKILL each process found — its whole thread group: its threads die with it, a zombie leader's
    too — through a pidfd of exactly the process seen; returns the pidfds to wait on. Without pidfds (a
    kernel before 5.3), by pid, and waits here until /proc shows none of them alive."""
    if not pidfds_work():
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        _wait_unseen(found)
        return []
    pidfds: list[int] = []
    for pid, seen in found.items():
        fd = _pidfd(pid, seen)
        if fd is None:
            continue
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        except OSError:  # gone meanwhile, or not ours to signal
            os.close(fd)
            continue
        pidfds.append(fd)
    return pidfds


def wait_gone(pidfds: list[int], timeout: float = KILL_WAIT_SECONDS) -> bool:
    """Wait until every pidfd is readable — its process has exited and no thread of it is left: the kernel
    has torn it down (its memory and files released), so it writes nothing more — then close them; False
    when some were still alive after `timeout` (a process stuck in the kernel, on a dead file system)."""
    deadline = time.monotonic() + timeout
    waiting = select.poll()
    for fd in pidfds:
        waiting.register(fd, select.POLLIN)
    left = set(pidfds)
    try:
        while left:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for fd, _event in waiting.poll(remaining * 1000):
                waiting.unregister(fd)
                left.discard(fd)
        return True
    finally:
        for fd in pidfds:
            os.close(fd)


def _wait_unseen(found: Mapping[int, Seen]) -> None:
    """Without pidfds: wait until /proc shows none of `found` alive (or KILL_WAIT_SECONDS passed)."""
    deadline = time.monotonic() + KILL_WAIT_SECONDS
    while time.monotonic() < deadline:
        alive = [pid for pid, seen in found.items() if _live(str(pid)) == seen]
        if not alive:
            return
        time.sleep(0.01)


def kill_tree(root: int, *, spare_root: bool = False) -> set[int]:
    """Kill everything below the live process `root` (and `root`, unless spared: its waiter may want to
    end it gently), again until nothing is left; returns what was killed. Only for a root known to be
    alive: a dead one's pid may already name another process."""
    killed: set[int] = set()
    spared = {os.getpid(), *([root] if spare_root else [])}
    for _ in range(KILL_ROUNDS):
        alive = {pid: seen for pid, seen in tree(root, process_table()).items() if pid not in spared}
        if not alive:
            break
        _kill(alive)
        killed |= set(alive)
    reap_orphans()
    return killed


def strays(own: frozenset[int]) -> set[int]:
    """Children of this process not among `own` (the children it started itself) — so orphans some agent
    left — and all below them (live ones: a zombie whose threads are all gone is dead already)."""
    return set(_strays(own))


def _strays(own: frozenset[int]) -> dict[int, Seen]:
    me = os.getpid()
    if not lists_children():
        table = process_table()
        left = [pid for pid, seen in table.items() if seen.parent == me and pid not in own]
        found: dict[int, Seen] = {}
        for pid in left:
            found.update(tree(pid, table))
        return found
    found = {}
    todo = [pid for pid in children(me) if pid not in own]
    while todo:
        pid = todo.pop()
        if pid in found or (seen := _live(str(pid))) is None:
            continue
        found[pid] = seen
        todo.extend(children(pid))
    return found


def sweep() -> set[int] | None:
    """Kill every stray (see `strays`) until none is left, and wait until each is gone; returns what was
    killed, or None when the sweep did not run (this process does not own its children, or one of its own
    is being started)."""
    if not CONTAINMENT.active:
        return None
    killed: set[int] = set()
    for _ in range(KILL_ROUNDS):
        with OWN.lock:
            if OWN.starting:
                return killed or None
            found = _strays(frozenset(OWN.held))
            pidfds = _signal(found)
        wait_gone(pidfds)  # outside the lock: an agent may be started meanwhile
        if not found:
            break
        killed |= set(found)
    reap_orphans()
    return killed
