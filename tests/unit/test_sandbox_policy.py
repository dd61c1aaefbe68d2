"""The cell's grants before the kernel sees them: which ports, which program paths, what is never granted,
and what the ABI's rights are (assay_runner.sandbox). The kernel's refusals: tests/runner/test_sandbox.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from assay_runner.sandbox import landlock
from assay_runner.sandbox.policy import CellPolicy, confine, gateway_port, program_paths, shortfall


@pytest.mark.parametrize(
    ("url", "port"),
    [
        ("http://127.0.0.1:8123/cell/k/v1", 8123),
        ("https://gateway.example/v1", 443),
        ("http://gateway/v1", 80),
        ("", None),
        ("unix:///run/gw.sock", None),
        ("http://[::1", None),
    ],
)
def test_the_gateway_port(url: str, port: int | None) -> None:
    assert gateway_port(url) == port


def test_program_paths_are_the_named_files_the_path_and_node_modules_behind_a_bin(tmp_path: Path) -> None:
    modules = tmp_path / "agents" / "node_modules"
    (modules / ".bin").mkdir(parents=True)
    (modules / "cli").mkdir()
    (modules / "cli" / "main.js").write_text("")
    (modules / ".bin" / "cli").symlink_to("../cli/main.js")
    script = tmp_path / "agent.py"
    script.write_text("")
    found = program_paths(
        ["cli", str(script), "--flag", str(tmp_path / "missing.py"), str(tmp_path)], str(modules / ".bin")
    )
    assert str(modules) in found and str(modules / ".bin") in found
    assert str(modules / "cli" / "main.js") in found  # the executable, resolved on PATH and through its link
    assert str(script) in found
    assert str(tmp_path / "missing.py") not in found and str(tmp_path) not in found  # files only, existing


@pytest.mark.skipif(landlock.kernel_abi() < 1, reason="this kernel has no Landlock")
def test_a_grant_that_would_cover_a_protected_path_is_dropped(tmp_path: Path) -> None:
    suite = tmp_path / "tools" / "suite"
    suite.mkdir(parents=True)
    inside = suite / "run.py"
    inside.write_text("")
    workspace = tmp_path / "base" / "cell-x"
    workspace.mkdir(parents=True)
    policy = CellPolicy(
        writable=[str(workspace)],
        readable=[str(tmp_path / "tools"), str(inside), "/usr/bin"],
        protected=[str(suite)],
    )
    confined = confine(policy, landlock.kernel_abi())
    try:
        assert confined.dropped == [str(tmp_path / "tools"), str(inside)]  # above it, and in it
        assert confined.isolation.filesystem  # no system folder was dropped
    finally:
        confined.close()


@pytest.mark.skipif(landlock.kernel_abi() < 1, reason="this kernel has no Landlock")
def test_a_system_folder_holding_a_protected_path_is_granted_around_it(tmp_path: Path) -> None:
    """As in an answer pod, where the suite is /etc/assay/suite: /etc is granted entry by entry, without
    the protected path (Landlock cannot take a folder out of a granted one)."""
    (tmp_path / "cell").mkdir()
    confined = confine(CellPolicy(writable=[str(tmp_path / "cell")], protected=["/etc/hostname"]), 1)
    try:
        assert confined.dropped == ["/etc"] and confined.isolation.filesystem
        script = "cat /etc/passwd >/dev/null && echo passwd; cat /etc/hostname 2>/dev/null || echo refused"
        done = subprocess.run(
            ["/bin/sh", "-c", script],
            preexec_fn=confined.preexec,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.stdout.split() == ["passwd", "refused"], done.stderr
    finally:
        confined.close()


def test_no_landlock_is_recorded_with_its_reason(tmp_path: Path) -> None:
    confined = confine(CellPolicy(writable=[str(tmp_path)]), 0)
    assert confined.preexec is None and confined.isolation.landlock_abi == 0
    assert not (confined.isolation.filesystem or confined.isolation.network or confined.isolation.scoped)
    assert "no Landlock" in (confined.isolation.reason or "")


@pytest.mark.parametrize(
    ("abi", "fs_bits", "net", "scope"),
    [(1, 13, 0, 0), (2, 14, 0, 0), (3, 15, 0, 0), (4, 15, 3, 0), (5, 16, 3, 0), (6, 16, 3, 3), (7, 16, 3, 3)],
)
def test_a_ruleset_names_only_the_rights_its_abi_knows(abi: int, fs_bits: int, net: int, scope: int) -> None:
    assert landlock.handled_fs(abi) == (1 << fs_bits) - 1
    assert landlock.handled_net(abi) == net and landlock.handled_scope(abi) == scope


def test_required_names_what_the_kernel_lacks() -> None:
    assert shortfall(landlock.SCOPE_ABI) is None and shortfall(7) is None
    assert "no Landlock" in (shortfall(0) or "") and "Landlock ABI 5" in (shortfall(5) or "")


def test_the_abi_cap_is_a_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(landlock.ABI_CAP_ENV, "many")
    with pytest.raises(ValueError, match=landlock.ABI_CAP_ENV):
        landlock.abi()
    assert os.environ[landlock.ABI_CAP_ENV] == "many"


def test_the_runners_own_files_are_protected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from assay_runner.contract import GATEWAY_LEDGER_ENV, GATEWAY_SOCKET_ENV, RunConfig
    from assay_runner.run.isolation import protect, protected_paths
    from assay_runner.run.preparation import prepare

    suite = tmp_path / "suite"
    (suite / "kb").mkdir(parents=True)
    (suite / "kb" / "KB-1.md").write_text("# KB-1\n")
    (suite / "suite.yaml").write_text(
        "name: mini\njudges:\n  - {name: exit_code, type: exit_code, weight: 1, threshold: 1.0}\n"
        "tickets:\n  - {id: T-1, split: validation, question: 'Q?', key: {kb: [KB-1]}}\n"
    )
    config = RunConfig.model_validate(
        {
            "suite": str(suite),
            "agent": {"kind": "command", "model": "m", "command": ["agent"]},
            "answersDir": str(tmp_path / "answers"),
            "output": {"dir": str(tmp_path / "out")},
        }
    )
    monkeypatch.setenv("ASSAY_GATEWAY_TOKEN_FILE", "/etc/assay/secrets/gateway/token")
    monkeypatch.setenv(GATEWAY_SOCKET_ENV, "/var/run/assay/gateway/gateway.sock")
    monkeypatch.setenv(GATEWAY_LEDGER_ENV, "/var/run/assay/ledger")
    monkeypatch.setattr("assay_runner.run.isolation.RUNNER_FILES", set())  # this test's own
    protect(tmp_path / "answer.json")
    paths = protected_paths(prepare(config))
    assert {
        str(suite),
        str(tmp_path / "answers"),
        str(tmp_path / "out"),
        "/etc/assay/secrets/gateway",  # the Secret volume's folder: its file is a link into it
        "/var/run/assay/gateway/gateway.sock",
        "/var/run/assay/ledger",
        str(tmp_path / "answer.json"),
    } <= set(paths)


@pytest.mark.skipif(landlock.kernel_abi() < 1, reason="this kernel has no Landlock")
def test_the_runs_grants_are_opened_once_and_follow_a_path_replaced_between_cells(tmp_path: Path) -> None:
    """The grants every cell shares stay open from cell to cell (`Sandbox.opened`), but each cell's rule is
    on what the path names when the cell starts: a script replaced (renamed over) during the run is the new
    file for the next cell, readable, as if it were opened for that cell alone."""
    from assay_runner.sandbox.policy import READ, Sandbox

    script = tmp_path / "tools" / "agent.txt"
    script.parent.mkdir()
    script.write_text("one\n")
    workspaces = tmp_path / "run" / "workspaces"
    sandbox = Sandbox(landlock.kernel_abi(), [str(tmp_path / "run")])
    argv = ["/bin/cat", str(script)]

    def cell(name: str) -> tuple[str, int, int]:
        """What the cell's agent read, and the descriptor and inode its rule on the script is on."""
        workspace = workspaces / name
        workspace.mkdir(parents=True)
        confined = sandbox.for_cell(workspace, argv, {"PATH": "/usr/bin:/bin"}, "")
        try:
            done = subprocess.run(
                argv, preexec_fn=confined.preexec, capture_output=True, text=True, check=False
            )
        finally:
            confined.close()
        rule = sandbox.opened.rule(str(script), READ)
        assert rule is not None
        return done.stdout + done.stderr, rule.parent_fd, os.fstat(rule.parent_fd).st_ino

    def open_descriptors() -> int:
        return len(os.listdir("/proc/self/fd"))

    try:
        first, kept, inode = cell("a")
        held = open_descriptors()
        again, same, same_inode = cell("b")
        assert first == again == "one\n"
        assert (same, same_inode) == (kept, inode)  # opened once: the same descriptor for both cells
        replacement = script.with_name("agent.new")
        replacement.write_text("two\n")
        replacement.replace(script)
        replaced, _, new_inode = cell("c")
        assert replaced == "two\n"  # the new file, granted to this cell
        assert new_inode == os.stat(script).st_ino != inode
        assert open_descriptors() == held  # the old file's descriptor closed when the new one was opened
    finally:
        sandbox.close()
