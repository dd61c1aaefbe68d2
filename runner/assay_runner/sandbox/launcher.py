"""Starting a confined agent without forking the runner: the launcher, `assay-confine` (launcher.c).

A child that confines itself in Python must run between fork and exec (subprocess's preexec_fn), and any
preexec_fn makes subprocess fork() the runner instead of vfork(): its page tables copied, Python's
after-fork work in the child, and every page the runner writes afterwards faulting once, about 2-5 ms of
each agent's start (bench/sandbox_spawn.py). The launcher is a small static program started with vfork in
the agent's place; it takes the cell's ruleset (made in the runner, as before) on a descriptor, does the
same last steps in the same order (`landlock.Ruleset.confine`) and executes the agent in the same process.
The agent keeps the pid the runner started, so its process group, pidfd and cgroup move are unchanged and
the rule on /proc/<pid> names the agent.

Where it is: `assay-confine` beside this module (`make launcher` builds it there; the runner image copies
it there). Not there (a wheel installed without it, a machine with no C compiler): the forked child does
the same steps in Python, equally confined and slower. A launcher the runner could not trust (not a
regular executable file, not owned by root or by the runner's user, writable by others) is not used.
ASSAY_SANDBOX_LAUNCHER, for tests and benchmarks only, names another launcher, or `none` for the forked
child; a launcher it names must be usable (else the run stops, exit 2).

A step that fails is reported on a pipe (close-on-exec, so it stays empty once the agent started) and the
agent is not started (`Launch.failure`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay_runner.sandbox.landlock import Confinement
from assay_runner.sandbox.seccomp import as_hex

LAUNCHER = Path(__file__).with_name("assay-confine")
LAUNCHER_ENV = "ASSAY_SANDBOX_LAUNCHER"
"""For tests and benchmarks only: the launcher to use instead of LAUNCHER, or `none` for the forked child."""
REPORT_LIMIT = 512


class LauncherError(ValueError):
    """ASSAY_SANDBOX_LAUNCHER names a launcher that cannot be used."""


def find() -> str | None:
    """The launcher to start confined agents with (None: the forked child confines them)."""
    return _find(os.environ.get(LAUNCHER_ENV, "").strip())


@functools.lru_cache(maxsize=8)
def _find(chosen: str) -> str | None:
    if chosen == "none":
        return None
    path = chosen or str(LAUNCHER)
    problem = _untrusted(path)
    if problem is None:
        return path
    if chosen:
        raise LauncherError(f"{LAUNCHER_ENV}={chosen}: {problem}")
    return None


def _untrusted(path: str) -> str | None:
    """Why the runner may not start its agents through this file (None: it may)."""
    try:
        found = os.stat(path)
    except OSError as exc:
        return f"cannot be used: {exc.strerror}"
    if not stat.S_ISREG(found.st_mode) or not found.st_mode & stat.S_IXUSR:
        return "is not an executable file"
    if found.st_uid not in (0, os.geteuid()):
        return f"is owned by uid {found.st_uid}, neither root nor the runner's user"
    if found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "is writable by others than its owner"
    return None


def candidates(program: str, env: Mapping[str, str]) -> list[str]:
    """The paths to try for `program`, in order, as subprocess tries them: itself when it names a folder,
    else each folder of the agent's PATH."""
    if os.path.dirname(program):
        return [program]
    return [os.path.join(folder, program) for folder in os.get_exec_path(dict(env))]


@dataclass
class Launch:
    """How to start one confined agent through the launcher: `argv` and `pass_fds` for subprocess; after
    the start `started`, after the agent's exit `failure`; `close` in any case."""

    argv: list[str]
    pass_fds: tuple[int, ...]
    program: str
    _report: int
    _report_end: int

    def started(self) -> None:
        """The launcher holds its end of the report pipe now: the runner's copy goes."""
        if self._report_end >= 0:
            os.close(self._report_end)
            self._report_end = -1

    def failure(self) -> str | None:
        """Why the agent was not started (None: it was, and what ran was the agent). Read once the process
        has exited; the pipe is never waited on."""
        self.started()
        if self._report < 0:
            return None
        try:
            text = os.read(self._report, REPORT_LIMIT).decode("ascii", errors="replace").split()
        except BlockingIOError:
            text = []
        if not text:
            return None
        error = int(text[-1]) if text[-1].isdigit() else 0
        reason = os.strerror(error) if error else "failed"
        if text[0] == "exec":
            return f"cannot start {self.program!r}: {OSError(error, reason, self.program)}"
        step = " ".join(text[1:-1]).replace("-", " ")
        return f"cannot confine {self.program!r} to its sandbox: {step}: {reason}"

    def close(self) -> None:
        self.started()
        if self._report >= 0:
            os.close(self._report)
            self._report = -1


def launch_for(confine: object, argv: Sequence[str], env: Mapping[str, str]) -> Launch | None:
    """The launch of a confined agent through the launcher, or None: nothing to confine (`confine` is not
    a cell's `Confinement`) or no launcher (the caller gives `confine` to subprocess as preexec_fn). The
    caller closes it (`launching` does)."""
    if not isinstance(confine, Confinement) or not argv:
        return None
    launcher = find()
    if launcher is None:
        return None
    read_end, write_end = os.pipe()  # both close-on-exec; pass_fds hands the launcher its end
    os.set_blocking(read_end, False)
    program = argv[0]
    found = candidates(program, env)
    seccomp = as_hex(confine.seccomp) if confine.seccomp is not None else "-"
    command = [
        launcher,
        str(confine.ruleset_fd),
        str(write_end),
        str(confine.proc_rights),
        seccomp,
        str(len(found)),
        *found,
        "--",
        *argv,
    ]
    return Launch(command, (confine.ruleset_fd, write_end), program, read_end, write_end)


@contextlib.contextmanager
def launching(confine: object, argv: Sequence[str], env: Mapping[str, str]) -> Iterator[Launch | None]:
    """`launch_for`, closed at the end."""
    launch = launch_for(confine, argv, env)
    try:
        yield launch
    finally:
        if launch is not None:
            launch.close()
