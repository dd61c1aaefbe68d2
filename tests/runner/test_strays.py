"""The sweep's two ways of finding strays agree: the children the kernel lists (/proc/<pid>/task/*/children)
and the full process table (every process's stat, where the kernel lists no children).

Each check runs in a process of its own: becoming a child subreaper is for the rest of a process's life,
and the test session must not adopt (or sweep) anything.
"""

from __future__ import annotations

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
