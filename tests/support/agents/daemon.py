"""An agent that turns another ticket's failure into a Pass, for the sealed-cells tests.

Usage: python daemon.py STATE_DIR [MODE] — runs in the ticket's workspace like any agent.
  T-1: answers well, then leaves a daemon (double fork, setsid: out of the cell's process group) and exits.
       MODE says what the daemon is:
       - `setsid` (the default): a plain process;
       - `zombie-leader`: the daemon's work runs on a second thread while the main thread ends with the raw
         exit syscall, so /proc shows the process as a zombie (`Z`) while the thread runs on;
       - `fork-storm`: as `zombie-leader`, and two more threads fork children (which sleep) as fast as they
         can, up to 200, so the group forks while it is killed; the children write their pids to
         STATE_DIR/children.
       T-1's agent exits only once its daemon is ready (STATE_DIR/ready: running, its main thread ended, its
       first children forked), so the cell ends while all of it is alive; it exits 3 if that never came.
       STATE_DIR may be relative: a folder in the workspace, all a sandboxed daemon can write.
       The daemon finds the answers tree the way a real one would (from any process's command line: an
       `--answers-out DIR`, or a RunConfig `--config FILE` naming `answersDir`), waits until T-2's cell is
       recorded as timed out (exit 124), then writes a good answer there, removes `exit_code` and rewrites
       `cell.json` as {"exitCode": 0}. It writes its pid to STATE_DIR/daemon.pid at once and
       STATE_DIR/rewrote once done.
  T-2: hangs until its timeout kills it.
"""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import platform
import re
import select
import signal
import sys
import threading
import time
from pathlib import Path

GOOD = "## Summary\nSee [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nReply if unclear.\n"


def answers_trees() -> list[Path]:
    found: list[Path] = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:  # in a cell's sandbox: no listing of /proc; it keeps looking until it is killed
        return found
    for pid in pids:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            continue
        for flag, value in itertools.pairwise(argv):
            path = Path(value) if Path(value).is_absolute() else cwd / value
            if flag == "--answers-out":
                found.append(path)
            elif flag == "--config" and path.is_file():
                match = re.search(r'"?answersDir"?\s*:\s*"?([^",}\n]+)', path.read_text(errors="replace"))
                if match:
                    found.append(Path(match.group(1).strip()))
    return found


PR_SET_PDEATHSIG = 1
LEADER_GONE: list[int] = []
"""A pipe's read end that turns readable once the main thread has ended (`watch_leader`)."""


def watch_leader(libc: ctypes.CDLL) -> None:
    """Before the main thread ends: a child whose parent-death signal fires when the thread that forked it
    (the main thread) ends, and which then writes to a pipe. A process the agent forked inside the cell's
    sandbox may not read its own /proc/<pid> (only the agent's is granted), so this is how it learns."""
    gone_r, gone_w = os.pipe()
    armed_r, armed_w = os.pipe()
    if os.fork() == 0:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGUSR1)
        os.write(armed_w, b"x")
        signal.sigwait({signal.SIGUSR1})
        os.write(gone_w, b"x")
        os._exit(0)
    os.read(armed_r, 1)
    LEADER_GONE.append(gone_r)


def leader_ended() -> bool:
    if not select.select(LEADER_GONE, [], [], 0)[0]:
        return False
    try:
        return Path("/proc/self/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z"
    except OSError:  # in the sandbox: the pipe says it
        return True


def daemon(state: Path, mode: str = "setsid") -> None:
    (state / "daemon.pid").write_text(str(os.getpid()))
    while mode != "setsid" and not leader_ended():
        time.sleep(0.01)
    while mode == "fork-storm" and len((state / "children").read_text().split()) < 20:
        time.sleep(0.01)
    (state / "ready").write_text("")
    deadline = time.monotonic() + 120
    known: dict[Path, None] = {}  # a tree once seen is remembered: the runner that named it may be gone
    while time.monotonic() < deadline:
        known.update(dict.fromkeys(answers_trees()))
        for tree in known:
            victim = tree / "T-2" / "1"
            record = victim / "cell.json"
            try:
                if json.loads(record.read_text()).get("exitCode") != 124:
                    continue
            except (OSError, ValueError):
                continue
            (victim / "answer.md").write_text(GOOD)
            (victim / "exit_code").unlink(missing_ok=True)
            record.write_text(json.dumps({"exitCode": 0}))
            (state / "rewrote").write_text(str(victim))
            return
        time.sleep(0.05)


SYS_EXIT = {"x86_64": 60, "aarch64": 93}  # exit(2): ends the calling thread only, unlike exit_group(2)


def fork_children(state: Path, limit: int) -> None:
    for _ in range(limit):
        if os.fork() == 0:
            with (state / "children").open("a") as listing:  # one short write: appends do not interleave
                listing.write(f"{os.getpid()}\n")
            time.sleep(3600)
            os._exit(0)


def leave_daemon(state: Path, mode: str) -> None:
    """In the daemon: run `daemon` in the way MODE says (see the module docstring)."""
    if mode == "setsid":
        daemon(state)
        return
    (state / "children").touch()
    libc = ctypes.CDLL(None, use_errno=True)
    watch_leader(libc)
    threading.Thread(target=daemon, args=(state, mode)).start()
    if mode == "fork-storm":
        for _ in range(2):
            threading.Thread(target=fork_children, args=(state, 100)).start()
    libc.syscall(SYS_EXIT[platform.machine()], 0)  # the main thread ends; the others run on


def main() -> int:
    state = Path(sys.argv[1])
    mode = sys.argv[2] if len(sys.argv) > 2 else "setsid"
    ticket = Path("prompt.md").read_text().splitlines()[0]
    if "T-2" in ticket:
        time.sleep(3600)
        return 0
    Path("answer.md").write_text(GOOD)
    state.mkdir(exist_ok=True)  # a relative STATE_DIR: the workspace's
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for stream in (0, 1, 2):
                os.close(stream)
            leave_daemon(state, mode)
        os._exit(0)
    deadline = time.monotonic() + 60
    while not (state / "ready").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return 0 if (state / "ready").exists() else 3  # the cell says whether its daemon was set up


if __name__ == "__main__":
    sys.exit(main())
