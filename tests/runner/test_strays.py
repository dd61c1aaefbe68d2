"""The sweep's two ways of finding strays agree: the children the kernel lists (/proc/<pid>/task/*/children)
and the full process table (every process's stat, where the kernel lists no children).

Each check runs in a process of its own: becoming a child subreaper is for the rest of a process's life,
and the test session must not adopt (or sweep) anything.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from assay_runner.processes import lists_children

CHECK = """
import subprocess, sys, time
from assay_runner import processes

assert processes.become_subreaper()
own = subprocess.Popen(["sleep", "30"])
# An agent that leaves a daemon (its own session, so no group kill reaches it) with a child of its own.
subprocess.run(["sh", "-c", "setsid sh -c 'sleep 31 & sleep 32' >/dev/null 2>&1 &"], check=True)
deadline = time.monotonic() + 10
found = {}
while time.monotonic() < deadline:
    found = {}
    for way in (True, False):
        processes.lists_children = lambda way=way: way
        found[way] = processes.strays(frozenset({own.pid}))
    if len(found[True]) == 3 and found[True] == found[False]:
        break
    time.sleep(0.05)
print(sorted(found[True]), sorted(found[False]))
assert len(found[True]) == 3 and found[True] == found[False], found
processes.CONTAINMENT.owner = True
processes.CONTAINMENT.active = True
processes.OWN._pids.add(own.pid)
killed = processes.sweep()
assert killed == found[True], (killed, found)
own.kill()
own.wait()
time.sleep(0.2)
processes.reap_orphans()
assert processes.strays(frozenset()) == set()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the child subreaper are Linux's")
def test_both_ways_find_the_same_strays_and_the_sweep_kills_them() -> None:
    if not lists_children():
        pytest.skip("this kernel lists no children: only the process table is used")
    done = subprocess.run(
        [sys.executable, "-c", CHECK], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


ZOMBIE_LEADER = """
import subprocess, sys, time
from pathlib import Path
from assay_runner import processes

assert processes.become_subreaper()
# A stray whose main thread ends with the raw exit syscall while a second thread runs: /proc says zombie.
stray = (
    "import ctypes, platform, threading, time\\n"
    "threading.Thread(target=time.sleep, args=(60,)).start()\\n"
    "time.sleep(0.05)\\n"
    "ctypes.CDLL(None).syscall({'x86_64': 60, 'aarch64': 93}[platform.machine()], 0)\\n"
)
leave = "import subprocess as s, sys; s.Popen([sys.executable, '-c', sys.argv[1]], start_new_session=True)"
subprocess.run([sys.executable, "-c", leave, stray], check=True)


def state(pid):
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]


deadline = time.monotonic() + 10
found = {}
while time.monotonic() < deadline:
    found = {}
    for way in (True, False):
        processes.lists_children = lambda way=way: way
        found[way] = processes.strays(frozenset())
    pids = found[True]
    if len(pids) == 1 and state(next(iter(pids))) == "Z" and found[True] == found[False]:
        break
    time.sleep(0.02)
(pid,) = found[True]
assert state(pid) == "Z" and found[True] == found[False], (found, state(pid))
processes.CONTAINMENT.owner = processes.CONTAINMENT.active = True
assert processes.sweep() == {pid}
# Gone when the sweep returns: no thread of it left (its zombie reaped, or a zombie with no thread).
assert processes._live(str(pid)) is None
assert processes.strays(frozenset()) == set()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the child subreaper are Linux's")
def test_a_zombie_leader_with_a_live_thread_is_a_stray_and_is_gone_when_the_sweep_returns() -> None:
    if not lists_children():
        pytest.skip("this kernel lists no children: only the process table is used")
    done = subprocess.run(
        [sys.executable, "-c", ZOMBIE_LEADER], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_pidfd_is_for_the_process_seen_and_not_one_that_took_its_pid() -> None:
    from assay_runner.processes import Seen, _pidfd, _stat

    child = subprocess.Popen(["sleep", "30"])
    try:
        found = _stat(str(child.pid))
        assert found is not None
        seen = found[1]
        pidfd = _pidfd(child.pid, seen)
        assert pidfd is not None
        os.close(pidfd)
        # The same pid with another start time is another process: never signalled.
        assert _pidfd(child.pid, Seen(seen.parent, seen.started + 1)) is None
    finally:
        child.kill()
        child.wait()
