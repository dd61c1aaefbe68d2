"""A cell's end kills everything its agent started, threads included, and waits until it is gone: nothing of
it is left to rewrite a cell once the cell is read and sealed.

The daemon of tests/support/agents/daemon.py waits for T-2 to time out, then rewrites T-2's cell. Here it
hides the ways a sweep filtered by state misses: its main thread ends with the raw exit syscall, so /proc
shows a zombie while its other thread works on (`zombie-leader`); and two more threads fork children while
it is killed (`fork-storm`). Each runs with the cell in a cgroup of its own (`cgroup.kill`, where this
machine delegates one) and without (its process tree and strays, through pidfds).

The rewriting daemon runs as on a kernel without Landlock (ASSAY_LANDLOCK_ABI_MAX=0): its state lives beside
the run and it reads other processes' command lines and the answers tree, all of which a cell's sandbox
refuses (tests/runner/test_sandbox.py). The kill is the layer behind the sandbox, and is shown here both
without one and, for a daemon keeping its state in its workspace, inside one.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from assay_runner.cgroup import CGROUP_SWITCH, own_group
from assay_runner.contract import Result
from assay_runner.sandbox import landlock
from tests.runner.test_sealed_cells import ASSAY, cells, configs


def command_line(pid: str) -> str:
    """A process's command line, read from any of its threads: a zombie leader has none of its own (its
    memory went with its main thread), the threads left share theirs."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return ""
    for thread in threads:
        with contextlib.suppress(OSError):
            if line := Path(f"/proc/{pid}/task/{thread}/cmdline").read_bytes():
                return line.decode(errors="replace")
    return ""


def still_running(marker: str) -> list[int]:
    """Processes whose command line holds `marker` and of which a thread still runs (a zombie leader whose
    group has threads left counts: its `Threads:` is more than 1)."""
    found = []
    for pid in (name for name in os.listdir("/proc") if name.isdigit()):
        if marker not in command_line(pid):
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if not fields["State"].strip().startswith(("Z", "X")) or int(fields["Threads"]) > 1:
            found.append(int(pid))
    return found


@pytest.mark.parametrize("containment", ["cgroup", "pidfd-tree"])
@pytest.mark.parametrize("mode", ["setsid", "zombie-leader", "fork-storm"])
def test_nothing_a_cell_started_outlives_it(
    suite: Path, brain: Path, tmp_path: Path, mode: str, containment: str
) -> None:
    if containment == "cgroup" and own_group() is None:
        pytest.skip("this machine delegates no cgroup v2 folder to its processes")
    answer, judge, state = configs(suite, brain, tmp_path, mode)
    env = {
        **os.environ,
        CGROUP_SWITCH: "on" if containment == "cgroup" else "off",
        landlock.ABI_CAP_ENV: "0",  # no sandbox: the daemon reaches the answers tree (see the docstring)
    }
    subprocess.run([*ASSAY, "answer", "--config", str(answer), "-q"], check=True, timeout=120, env=env)
    assert (state / "ready").exists(), "the daemon was not set up before its cell ended (test set-up)"
    # At once: the phase waited until every killed process was gone before it sealed the tree.
    assert still_running(str(state)) == []
    assert not (state / "rewrote").exists()
    for cell in ("T-1", "T-2"):
        record = json.loads((tmp_path / "answers" / cell / "1" / "cell.json").read_text())
        assert record["containment"] == containment
    scored = subprocess.run([*ASSAY, "score", "--config", str(judge), "-q"], check=False, timeout=120)
    code = scored.returncode
    assert code == 1
    errors = cells(tmp_path)
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    assert {t.repetitions[0].containment for t in result.tickets} == {containment}  # the result says it
    assert errors["T-1"] is None
    assert "exit code 124" in (errors["T-2"] or "")  # the truth: it timed out


@pytest.mark.parametrize("containment", ["cgroup", "pidfd-tree"])
@pytest.mark.parametrize("mode", ["setsid", "zombie-leader", "fork-storm"])
def test_a_sandboxed_cells_daemon_is_ended_with_it(
    suite: Path, brain: Path, tmp_path: Path, mode: str, containment: str
) -> None:
    """The same daemons inside the cell's Landlock sandbox, their state in T-1's workspace (a folder with a
    name no other process's command line holds): the sandbox neither stops the kill nor hides a process
    from it, and nothing is left once the phase returns."""
    if containment == "cgroup" and own_group() is None:
        pytest.skip("this machine delegates no cgroup v2 folder to its processes")
    if landlock.abi() < 1:
        pytest.skip("this kernel has no Landlock")
    marker = f"daemon-state-{os.getpid()}-{tmp_path.name}"
    answer, _, _ = configs(suite, brain, tmp_path, mode)
    settings = json.loads(answer.read_text())
    settings["agent"]["command"][2] = marker  # relative: in the agent's workspace
    answer.write_text(json.dumps(settings))
    env = {**os.environ, CGROUP_SWITCH: "on" if containment == "cgroup" else "off"}
    subprocess.run([*ASSAY, "answer", "--config", str(answer), "-q"], check=True, timeout=120, env=env)
    assert still_running(marker) == []  # at once: the phase waited until each was gone
    record = json.loads((tmp_path / "answers" / "T-1" / "1" / "cell.json").read_text())
    assert record["exitCode"] == 0, record  # the daemon was ready before its cell ended (test set-up)
    assert record["containment"] == containment
    assert record["isolation"]["filesystem"] is True, record  # it ran in the sandbox


def test_an_agent_is_moved_into_its_cells_group_only_while_it_is_not_reaped() -> None:
    """The move runs on the mover's thread while the loop goes on, so the agent may be reaped first and its
    pid taken by another process: the pid is written only while a pidfd opened at the spawn shows the
    child not reaped. A live child is moved (its /proc/<pid>/cgroup names the cell's group); a reaped one
    is not, and its pid is never written."""
    from assay_runner.cgroup import CELL_GROUPS, MOVER
    from assay_runner.processes import CONTAINMENT

    if own_group() is None:
        pytest.skip("this machine delegates no cgroup v2 folder to its processes")
    CONTAINMENT.owner = True
    CONTAINMENT.contain()
    live = subprocess.Popen(["sleep", "30"])
    group = CELL_GROUPS.cell()
    assert group is not None
    try:
        assert group.add_soon(live.pid).result(timeout=30)
        assert Path(f"/proc/{live.pid}/cgroup").read_text().strip().endswith("/" + group.folder.name)
    finally:
        live.kill()
        live.wait()
    assert group.kill()
    other = CELL_GROUPS.cell()
    assert other is not None
    held = threading.Event()
    MOVER.submit(lambda: held.wait(30))  # the mover busy: the move waits behind it
    child = subprocess.Popen(["sleep", "30"])
    moving = other.add_soon(child.pid)
    child.kill()
    child.wait()  # reaped before its move runs
    held.set()
    assert moving.result(timeout=30) is False
    # Its pid taken by another process meanwhile (made so here: a pidfd of the reaped child, the pid of a
    # live one): that process is not moved, and ending the cell's group cannot kill it.
    bystander = subprocess.Popen(["sleep", "30"])
    gone = subprocess.Popen(["true"])
    pidfd = os.pidfd_open(gone.pid)
    gone.wait()
    try:
        assert other._add_held(pidfd, bystander.pid) is False
        assert (other.folder / "cgroup.procs").read_text() == ""
        assert other.kill()
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    return gone.pid


def test_the_first_cells_groups_are_made_while_the_runner_starts_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """`assay run` and `assay answer` ask for one group per slot before the suite is even loaded
    (`CellGroups.prepare`, on the mover's thread): the first agents take groups already made instead of
    each waiting for a mkdir behind the move of the agent started just before it. Asked by a program that
    does not own its process, or with ASSAY_CELL_CGROUPS=off, none is made; and a cell gets one only once
    its phase contains its agents."""
    from assay_runner.cgroup import CELL_GROUPS, MOVER, RUN_PREFIX
    from assay_runner.processes import CONTAINMENT

    parent = own_group()
    if parent is None:
        pytest.skip("this machine delegates no cgroup v2 folder to its processes")

    def run_groups() -> set[Path]:
        return set(parent.glob(f"{RUN_PREFIX}{os.getpid()}-*"))

    # A group left by a runner that is gone (killed before its exit handlers ran): removed on the way, by
    # the mover itself, which must not wait for its own queue to empty (10 s, then go on) to do so.
    stale = parent / f"{RUN_PREFIX}{dead_pid()}-0000abcd"
    stale.mkdir()
    (stale / "cell-000000000000").mkdir()
    before = run_groups()
    CELL_GROUPS.prepare(3)  # not the process's owner (a program calling main() in-process)
    monkeypatch.setenv(CGROUP_SWITCH, "off")
    CONTAINMENT.owner = True
    CELL_GROUPS.prepare(3)
    assert MOVER.wait_idle(30)
    assert run_groups() == before
    monkeypatch.delenv(CGROUP_SWITCH)
    CELL_GROUPS.prepare(3)
    assert MOVER.wait_idle(5)  # well within the 10 s a wait on itself would take
    assert not stale.exists()
    (run,) = run_groups() - before
    made = {folder for folder in run.iterdir() if folder.is_dir()}
    assert len(made) == 3
    assert all((folder / "cgroup.procs").read_text() == "" for folder in made)
    assert CELL_GROUPS.cell() is None  # the agents not contained yet
    CONTAINMENT.contain()
    group = CELL_GROUPS.cell()
    assert group is not None
    assert group.folder in made  # taken, not made now
    assert group.kill()  # empty: removed (by the mover)
    assert MOVER.wait_idle(30)
    assert not group.folder.exists()
