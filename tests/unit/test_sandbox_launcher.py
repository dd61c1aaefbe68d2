"""Which launcher the sandbox uses (assay_runner.sandbox.launcher): only a file the runner can trust, the
fallback when the default is absent, an error when the one named for a test cannot be used; the paths it
tries for the agent's program, as subprocess would; and how a failed step is reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay_runner.sandbox import launcher


@pytest.fixture(autouse=True)
def fresh() -> None:
    launcher._find.cache_clear()


def executable(path: Path, mode: int = 0o755) -> Path:
    path.write_text("#!/bin/sh\n")
    path.chmod(mode)
    return path


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        (0o755, None),
        (0o700, None),
        (0o644, "is not an executable file"),
        (0o775, "is writable by others than its owner"),
        (0o757, "is writable by others than its owner"),
    ],
)
def test_only_a_file_the_runner_can_trust_is_used(tmp_path: Path, mode: int, problem: str | None) -> None:
    assert launcher._untrusted(str(executable(tmp_path / "assay-confine", mode))) == problem


def test_a_folder_or_nothing_is_not_a_launcher(tmp_path: Path) -> None:
    assert launcher._untrusted(str(tmp_path)) == "is not an executable file"
    assert launcher._untrusted(str(tmp_path / "absent")) == "cannot be used: No such file or directory"


def test_without_the_default_launcher_the_forked_child_confines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(launcher.LAUNCHER_ENV, raising=False)
    monkeypatch.setattr(launcher, "LAUNCHER", tmp_path / "assay-confine")
    assert launcher.find() is None
    launcher._find.cache_clear()
    executable(tmp_path / "assay-confine")
    assert launcher.find() == str(tmp_path / "assay-confine")
    monkeypatch.setenv(launcher.LAUNCHER_ENV, "none")
    assert launcher.find() is None


def test_a_named_launcher_must_be_usable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(launcher.LAUNCHER_ENV, str(tmp_path / "absent"))
    with pytest.raises(launcher.LauncherError, match=r"ASSAY_SANDBOX_LAUNCHER=.*absent: cannot be used"):
        launcher.find()
    monkeypatch.setenv(launcher.LAUNCHER_ENV, str(executable(tmp_path / "shared", 0o777)))
    with pytest.raises(launcher.LauncherError, match="writable by others"):
        launcher.find()


def test_the_program_is_looked_for_as_subprocess_does() -> None:
    env = {"PATH": "/opt/a:/usr/bin"}
    assert launcher.candidates("agent", env) == ["/opt/a/agent", "/usr/bin/agent"]
    assert launcher.candidates("./agent", env) == ["./agent"]
    assert launcher.candidates("/bin/agent", env) == ["/bin/agent"]
    assert launcher.candidates("agent", {}) == [os.path.join(d, "agent") for d in os.defpath.split(":")]


@pytest.mark.parametrize(
    ("report", "message"),
    [
        (b"", None),
        (b"exec 13\n", "cannot start 'agent': [Errno 13] Permission denied: 'agent'"),
        (
            b"confine landlock_restrict_self 1\n",
            "cannot confine 'agent' to its sandbox: landlock_restrict_self: Operation not permitted",
        ),
        (
            b"confine prctl-PR_SET_SECCOMP 22\n",
            "cannot confine 'agent' to its sandbox: prctl PR_SET_SECCOMP: Invalid argument",
        ),
    ],
)
def test_a_failed_step_is_named(report: bytes, message: str | None) -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    os.write(write_end, report)
    launch = launcher.Launch([], (), "agent", read_end, write_end)
    try:
        assert launch.failure() == message
    finally:
        launch.close()
