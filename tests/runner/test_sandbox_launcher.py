"""The sandbox's launcher (assay-confine, runner/assay_runner/sandbox/launcher.c) against the forked child
it replaces: on the real kernel, the same attacks are refused either way, the agent ends up in the same
state (no new privileges, the seccomp filter, only its three standard descriptors), a failed step starts no
agent, and a missing program is reported as before. The launcher is the one `make launcher` built, or one
compiled here by the project's script."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_runner.agents.process import ProcessResult, run_process
from assay_runner.sandbox import landlock, launcher, seccomp
from assay_runner.sandbox.policy import Sandbox
from tests.runner.test_sandbox import INTRUDER, expected_refusals, listeners  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parents[2]
KERNEL_ABI = landlock.kernel_abi()
pytestmark = pytest.mark.skipif(KERNEL_ABI < 1, reason="this kernel has no Landlock: nothing to show")
MODES = ["launcher", "forked"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> str:
    if launcher._untrusted(str(launcher.LAUNCHER)) is None:
        return str(launcher.LAUNCHER)
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no launcher built (make launcher) and no C compiler to build one")
    target = tmp_path_factory.mktemp("launcher") / "assay-confine"
    subprocess.run(["bash", str(REPO / "scripts" / "build-launcher.sh"), str(target), "any"], check=True)
    return str(target)


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest, built: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv(launcher.LAUNCHER_ENV, built if request.param == "launcher" else "none")
    yield request.param


def run_confined(
    workspace: Path, argv: list[str], protected: list[str], gateway: int = 4000
) -> tuple[ProcessResult, Sandbox]:
    env = {"PATH": os.environ["PATH"], "HOME": str(workspace / ".home"), "LANG": "C.UTF-8"}
    sandbox = Sandbox(KERNEL_ABI, protected)
    confined = sandbox.for_cell(workspace, argv, env, f"http://127.0.0.1:{gateway}/v1")
    try:
        launch_used = launcher.find() is not None
        assert launch_used == (os.environ[launcher.LAUNCHER_ENV] != "none")
        done = asyncio.run(run_process(argv, cwd=workspace, env=env, timeout=60, confine=confined.preexec))
    finally:
        confined.close()
    return done, sandbox


def cell(tmp_path: Path) -> Path:
    workspace = tmp_path / "assay-run-x" / "cell-a"
    (workspace / ".home").mkdir(parents=True)
    return workspace


def test_every_way_out_is_refused_alike(mode: str, tmp_path: Path, listeners: dict[str, int | str]) -> None:  # noqa: F811
    suite, run = tmp_path / "suite", tmp_path / "out"
    suite.mkdir()
    run.mkdir()
    (suite / "tickets.yaml").write_text("keys: {T-1: {mustMention: [canary-key-1f3e]}}\n")
    workspace = cell(tmp_path)
    (tmp_path / "assay-run-x" / "cell-b").mkdir()
    (workspace / "brain").mkdir()
    (workspace / "prompt.md").write_text("# Support ticket T-1\n")
    targets = {**listeners, "keys": str(suite / "tickets.yaml"), "run": str(run)}
    (workspace / "brain" / "targets.json").write_text(json.dumps(targets))
    argv = [sys.executable, str(INTRUDER), "probe"]
    done, _ = run_confined(workspace, argv, [str(suite), str(run)], int(listeners["gateway"]))
    assert done.exit_code == 0, done.stderr
    results = json.loads((workspace / "answer.md").read_text())
    refused = {attack for attack, outcome in results.items() if outcome.startswith("refused")}
    assert refused == expected_refusals(KERNEL_ABI), results
    assert results["own /proc"].startswith("done"), results  # the rule names the agent's own pid
    assert not (tmp_path / "assay-run-x" / "planted.txt").exists()


def test_the_agent_starts_in_the_same_state(mode: str, tmp_path: Path) -> None:
    """No new privileges, the seccomp filter, the same session and process group as its pid, and no
    descriptor but its three standard ones (not the ruleset's, not the launcher's report pipe)."""
    workspace = cell(tmp_path)
    script = (
        "ls /proc/$$/fd; grep -E '^(NoNewPrivs|Seccomp):' /proc/$$/status; cut -d' ' -f1,5,6 /proc/$$/stat"
    )
    done, _ = run_confined(workspace, ["sh", "-c", script], [])
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.split()
    assert lines[:3] == ["0", "1", "2"] and "3" not in lines, done.stdout
    assert "NoNewPrivs:" in lines and lines[lines.index("NoNewPrivs:") + 1] == "1", done.stdout
    expected_seccomp = "2" if seccomp.PROGRAM is not None else "0"
    assert lines[lines.index("Seccomp:") + 1] == expected_seccomp, done.stdout
    pid, pgid, sid = lines[-3:]
    assert pid == pgid == sid, done.stdout  # its own session (start_new_session), as the agent's pid


def test_the_agent_holds_no_capability_even_when_the_runner_is_root(mode: str, tmp_path: Path) -> None:
    """Landlock confines files, TCP, signals and abstract sockets, not what capabilities allow: an agent
    started by a root runner kept them all and, in its sandbox, sniffed the loopback with a packet socket
    (the other cells' proxy credentials, a local gateway's token), could open raw sockets and netlink's
    firewall, load BPF programs or kernel modules. It starts with none, and cannot get them back."""
    workspace = cell(tmp_path)
    script = (
        "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/$$/status; "
        f"{sys.executable} -c 'import socket; socket.socket(17, socket.SOCK_RAW)' 2>/dev/null "
        "&& echo packet-socket || echo no-packet-socket"
    )
    done, _ = run_confined(workspace, ["sh", "-c", script], [])
    assert done.exit_code == 0, done.stderr
    caps = dict(line.split(":\t") for line in done.stdout.splitlines() if line.startswith("Cap"))
    for name in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert int(caps[name], 16) == 0, done.stdout
    if os.geteuid() == 0:  # a root runner may drop the bounding set too (it holds CAP_SETPCAP)
        assert int(caps["CapBnd"], 16) == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "no-packet-socket", done.stdout


def test_a_missing_program_is_reported_as_before(mode: str, tmp_path: Path) -> None:
    done, _ = run_confined(cell(tmp_path), ["assay-no-such-program"], [])
    assert done.exit_code == 127
    assert done.stderr == (
        "cannot start 'assay-no-such-program': [Errno 2] No such file or directory: 'assay-no-such-program'"
    )


def test_a_step_that_fails_starts_no_agent(
    built: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A descriptor that is not a Landlock ruleset where the ruleset should be: the launcher's first
    Landlock call fails, it says which, and the agent (which would write a file) never runs."""
    monkeypatch.setenv(launcher.LAUNCHER_ENV, built)
    workspace = cell(tmp_path)
    argv = ["sh", "-c", "echo started > started.txt"]
    env = {"PATH": os.environ["PATH"], "HOME": str(workspace / ".home")}
    ruleset = landlock.Ruleset(KERNEL_ABI, network=True, scoped=True)
    confinement = ruleset.confine(seccomp.PROGRAM)
    with open(os.devnull) as not_a_ruleset:
        confinement.ruleset_fd = not_a_ruleset.fileno()
        try:
            done = asyncio.run(run_process(argv, cwd=workspace, env=env, timeout=60, confine=confinement))
        finally:
            ruleset.close()
    assert done.exit_code == 127 and not (workspace / "started.txt").exists()
    assert done.stderr.startswith("cannot confine 'sh' to its sandbox: landlock_add_rule /proc/<pid>: "), (
        done.stderr
    )


def test_a_named_launcher_that_cannot_be_used_stops_the_run(suite: Path, brain: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, launcher.LAUNCHER_ENV: str(tmp_path / "absent")}
    done = subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", "run", str(suite), "--brain", str(brain), "--agent",
         "command", "--model", "m", "--command", "true", "--no-mlflow", "--out", str(out), "-q"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and not (out / "result.json").exists(), done.stderr
    assert f"{launcher.LAUNCHER_ENV}={tmp_path / 'absent'}: cannot be used" in done.stderr
