"""The cell's sandbox on the real kernel: what a hostile agent (tests/support/agents/intruder.py) can and
cannot do, for every Landlock ABI this kernel has (a ruleset made for ABI n names only ABI n's rights, as on
a kernel of that ABI), and through `assay run`: the neighbour found through /proc, the keys through a path,
a symlink and a hard link. ABI 0 is the control: the same attacks succeed without a sandbox.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_runner.agents.process import run_process
from assay_runner.contract import Result
from assay_runner.sandbox import landlock
from assay_runner.sandbox.policy import Sandbox
from tests.runner.conftest import SUITE

INTRUDER = Path(__file__).resolve().parents[1] / "support" / "agents" / "intruder.py"
KERNEL_ABI = landlock.kernel_abi()
pytestmark = pytest.mark.skipif(KERNEL_ABI < 1, reason="this kernel has no Landlock: nothing to show")

ALWAYS = ("own files", "write own workspace", "write HOME", "own /proc", "connect gateway port")
FILES = (
    "read keys",
    "symlink to keys",
    "list run folder",
    "list workspaces",
    "write beside workspace",
    "write /tmp",
    "other environ",
)
NETWORK = ("connect other port", "bind")
SCOPED = ("abstract socket", "signal outside")


def expected_refusals(abi: int) -> set[str]:
    refused = set()
    if abi >= 1:  # with Landlock, the seccomp filter that refuses Unix sockets, abstract ones too (so
        # Landlock's abstract-socket scope, ABI 6, stands behind it here; its signal scope is shown alone)
        refused |= {*FILES, "hard link to keys", "pathname socket", "abstract socket"}
        refused.add("pathname socket by io_uring")  # io_uring makes sockets without socket(2): refused too
        refused.add("datagram by socket pair")  # and so does socketpair(2): no datagram pair
    if abi >= landlock.NETWORK_ABI:
        refused |= set(NETWORK)
    if abi >= landlock.SCOPE_ABI:
        refused |= set(SCOPED)
    return refused


@pytest.fixture
def listeners(tmp_path: Path) -> Iterator[dict[str, int | str]]:
    """Two loopback TCP listeners (the cell's gateway, and another), an abstract Unix socket and a pathname
    one (as the gateway sidecar's: Landlock checks no right to connect to it, the seccomp filter does)."""
    name = f"assay-test-{os.getpid()}"
    with (
        socket.create_server(("127.0.0.1", 0)) as gateway,
        socket.create_server(("127.0.0.1", 0)) as other,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as pathname,
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as datagrams,
    ):
        unix.bind("\0" + name)
        unix.listen()
        pathname.bind(str(tmp_path / "gateway.sock"))
        pathname.listen()
        datagrams.bind(str(tmp_path / "log.sock"))  # as /dev/log: a datagram socket at a path
        yield {
            "gateway": gateway.getsockname()[1],
            "port": other.getsockname()[1],
            "abstract": name,
            "unix": str(tmp_path / "gateway.sock"),
            "unix_dgram": str(tmp_path / "log.sock"),
            "pid": os.getpid(),
        }


@pytest.mark.parametrize("abi", range(KERNEL_ABI + 1))
def test_the_kernel_refuses_each_way_out_of_the_cell(
    abi: int, tmp_path: Path, listeners: dict[str, int | str]
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "tickets.yaml").write_text("keys: {T-1: {mustMention: [canary-key-1f3e]}}\n")
    run = tmp_path / "out"
    run.mkdir()
    (run / "result.json").write_text("{}")
    base = tmp_path / "assay-run-x"
    workspace, neighbour = base / "cell-a", base / "cell-b"
    for folder in (workspace / "brain", workspace / ".home", neighbour):
        folder.mkdir(parents=True)
    (workspace / "prompt.md").write_text("# Support ticket T-1\n")
    targets = {**listeners, "keys": str(suite / "tickets.yaml"), "run": str(run)}
    (workspace / "brain" / "targets.json").write_text(json.dumps(targets))
    argv = [sys.executable, str(INTRUDER), "probe"]
    env = {"PATH": os.environ["PATH"], "HOME": str(workspace / ".home"), "LANG": "C.UTF-8"}
    sandbox = Sandbox(abi, [str(suite), str(run)])
    confined = sandbox.for_cell(workspace, argv, env, f"http://127.0.0.1:{listeners['gateway']}/v1")
    try:
        done = asyncio.run(run_process(argv, cwd=workspace, env=env, timeout=60, confine=confined.preexec))
    finally:
        confined.close()
    assert done.exit_code == 0, done.stderr
    results = json.loads((workspace / "answer.md").read_text())
    refused = {attack for attack, outcome in results.items() if outcome.startswith("refused")}
    assert refused == expected_refusals(abi), results
    assert not (base / "planted.txt").exists() or abi == 0
    isolation = confined.isolation
    assert (isolation.landlock_abi, isolation.filesystem) == (abi, abi >= 1)
    assert isolation.network == (abi >= landlock.NETWORK_ABI)
    assert isolation.scoped == (abi >= landlock.SCOPE_ABI)
    assert (isolation.reason is None) == (abi >= landlock.SCOPE_ABI)
    assert isolation.unix_sockets_refused == (abi >= 1)


def test_the_test_cap_only_lowers_the_abi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(landlock.ABI_CAP_ENV, "99")
    assert landlock.abi() == KERNEL_ABI
    monkeypatch.setenv(landlock.ABI_CAP_ENV, "0")
    assert landlock.abi() == 0


def assay(*args: str, abi_cap: int | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if abi_cap is not None:
        env[landlock.ABI_CAP_ENV] = str(abi_cap)
    return subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def two_tickets(tmp_path: Path) -> tuple[Path, Path]:
    suite = tmp_path / "suite"
    (suite / "kb").mkdir(parents=True)
    (suite / "kb" / "KB-1.md").write_text("# KB-1: Export\nOpen Settings > Export.\n")
    tickets = "".join(
        f"  - {{id: T-{i}, split: validation, question: 'Export {i}?', "
        f"key: {{kb: [KB-1], mustMention: ['Settings > Export'], notes: 'canary-notes-77c1'}}}}\n"
        for i in (1, 2)
    )
    (suite / "suite.yaml").write_text(SUITE + tickets)
    brain = tmp_path / "brain"
    brain.mkdir()
    (brain / "AGENTS.md").write_text("cite: KB-1\n")
    return suite, brain


def run_intruder(
    suite: Path, brain: Path, out: Path, mode: str, *extra: str, abi_cap: int | None = None
) -> tuple[subprocess.CompletedProcess[str], Result | None]:
    done = assay(
        "run", str(suite), "--brain", str(brain), "--agent", "command", "--model", "m",
        "--command", f"{sys.executable} {INTRUDER} {mode}", "--timeout", "120", "--no-mlflow",
        "--out", str(out), "-q", *extra, abi_cap=abi_cap,
    )  # fmt: skip
    result_file = out / "result.json"
    result = Result.model_validate_json(result_file.read_text()) if result_file.exists() else None
    return done, result


@pytest.mark.parametrize("abi_cap", [None, 0], ids=["sandboxed", "control-no-landlock"])
def test_a_cell_cannot_rewrite_its_neighbour_found_through_proc(
    two_tickets: tuple[Path, Path], tmp_path: Path, abi_cap: int | None
) -> None:
    suite, brain = two_tickets
    done, result = run_intruder(suite, brain, tmp_path / "out", "neighbour", "-j", "2", abi_cap=abi_cap)
    assert result is not None, done.stderr
    intruder, victim = (ticket.repetitions[0] for ticket in result.tickets)
    if abi_cap == 0:  # the attack is real: without the sandbox the bad answer is replaced, and passes
        assert "neighbour: " in (intruder.answer or "") and "done" in (intruder.answer or "")
        assert done.returncode == 0 and result.verdict == "Pass", intruder.answer
        return
    # Sandboxed, the intruder cannot read any other process's environment: it finds no neighbour, and the
    # victim's own (bad) answer is judged: Blocked, on the victim's cell.
    assert "neighbour: no neighbour found" in (intruder.answer or ""), intruder.answer
    assert victim.answer == "I do not know.\n"
    assert done.returncode == 1 and result.verdict == "Blocked"
    assert not victim.passed and result.tickets[1].id == "T-2" and not result.tickets[1].passed
    assert intruder.isolation is not None and intruder.isolation.scoped and intruder.isolation.network


def test_the_keys_are_out_of_reach_by_path_symlink_and_hard_link(
    two_tickets: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, brain = two_tickets
    (brain / "targets.json").write_text(json.dumps({"keys": str(suite / "suite.yaml")}))
    done, result = run_intruder(suite, brain, tmp_path / "out", "keys", "--tickets", "T-1")
    assert result is not None, done.stderr
    cell = result.tickets[0].repetitions[0]
    answer = cell.answer or ""
    assert "canary-notes-77c1" not in answer, answer
    for how in ("path", "symlink", "hard link"):
        assert f"{how}: refused" in answer, answer
    assert cell.isolation is not None
    assert (cell.isolation.landlock_abi, cell.isolation.filesystem) == (KERNEL_ABI, True)
    assert result.to_wire()["tickets"][0]["repetitions"][0]["isolation"]["landlockAbi"] == KERNEL_ABI


def test_the_answer_phase_records_the_sandbox_in_cell_json(
    two_tickets: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, brain = two_tickets
    answers = tmp_path / "answers"
    done = assay(
        "answer", str(suite), "--brain", str(brain), "--agent", "command", "--model", "m",
        "--command", f"{sys.executable} {INTRUDER} keys", "--tickets", "T-1", "--answers-out",
        str(answers), "-q",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    record = json.loads((answers / "T-1" / "1" / "cell.json").read_text())
    assert record["isolation"]["landlockAbi"] == KERNEL_ABI and record["isolation"]["filesystem"] is True


@pytest.mark.parametrize("where", ["flag", "suite"])
@pytest.mark.parametrize("abi_cap", [0, landlock.SCOPE_ABI - 1])
def test_isolation_required_refuses_a_kernel_short_of_it(
    two_tickets: tuple[Path, Path], tmp_path: Path, where: str, abi_cap: int
) -> None:
    suite, brain = two_tickets
    extra = ["--isolation", "required"] if where == "flag" else []
    if where == "suite":
        text = (suite / "suite.yaml").read_text()
        (suite / "suite.yaml").write_text(text.replace("name: mini\n", "name: mini\nisolation: required\n"))
    done, result = run_intruder(suite, brain, tmp_path / "out", "keys", *extra, abi_cap=abi_cap)
    assert done.returncode == 2 and result is None, done.stderr
    assert "isolation: required" in done.stderr and "Landlock" in done.stderr
    if where == "flag":  # best-effort (the default) on the same kernel runs, and says what it lacks
        done, result = run_intruder(suite, brain, tmp_path / "out2", "keys", abi_cap=abi_cap)
        assert result is not None, done.stderr
        isolation = result.tickets[0].repetitions[0].isolation
        assert isolation is not None and not isolation.scoped and isolation.reason
        assert isolation.landlock_abi == abi_cap and isolation.filesystem == (abi_cap >= 1)


def test_an_agent_reaches_its_metering_proxy_and_nothing_behind_it(
    two_tickets: tuple[Path, Path], tmp_path: Path
) -> None:
    """Behind the metering proxy the agent's gateway URL is the proxy's port: the gateway itself (another
    port on loopback) is out of reach, so every model call is metered; so are the keys, the run folder,
    other processes and the runner's signals."""
    if KERNEL_ABI < landlock.SCOPE_ABI:
        pytest.skip(f"this kernel has Landlock ABI {KERNEL_ABI}: no TCP rules or scopes to show")
    suite, brain = two_tickets
    out = tmp_path / "out"
    with socket.create_server(("127.0.0.1", 0)) as gateway:
        upstream = gateway.getsockname()[1]
        targets = {
            "keys": str(suite / "suite.yaml"),
            "run": str(tmp_path),
            "port": upstream,
            "pid": os.getpid(),
        }
        (brain / "targets.json").write_text(json.dumps(targets))
        done, result = run_intruder(
            suite, brain, out, "probe", "--tickets", "T-1", "--gateway", f"http://127.0.0.1:{upstream}/v1"
        )
    assert result is not None, done.stderr
    cell = result.tickets[0].repetitions[0]
    probed = json.loads(cell.answer or "{}")
    assert probed["connect gateway port"].startswith("done"), probed  # its own: the metering proxy's
    for attack in ("connect other port", "read keys", "list run folder", "other environ", "signal outside"):
        assert probed[attack].startswith("refused"), (attack, probed)
    assert cell.isolation is not None and cell.isolation.network and cell.isolation.scoped
