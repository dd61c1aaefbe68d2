"""Sealed cells: what an agent did cannot be rewritten after its cell ended, and a tree that is not this run's
sealed tree blocks, naming the cell.

The attack (tests/support/agents/daemon.py): T-1's agent answers, then leaves a daemon (setsid, double
fork) that waits for T-2 to be killed at its timeout, then writes a good answer into T-2's cell, removes
`exit_code` and rewrites `cell.json` as `{"exitCode": 0}`. Before this round, `assay score` then passed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result
from assay_runner.sandbox import landlock

DAEMON = Path(__file__).resolve().parents[1] / "support" / "agents" / "daemon.py"
ASSAY = [sys.executable, "-m", "assay_runner.cli"]


def configs(suite: Path, brain: Path, tmp_path: Path, mode: str = "setsid") -> tuple[Path, Path, Path]:
    """The answer and judge phases' configs for the daemon agent (daemon.py's MODE), and its state folder."""
    state = tmp_path / "state"
    state.mkdir()
    answers = tmp_path / "answers"
    common = {
        "suite": str(suite),
        "brain": str(brain),
        "tickets": ["T-1", "T-2"],
        "concurrency": 2,
        "mlflow": {"enabled": False},
        "answersDir": str(answers),
        "agent": {
            "kind": "command",
            "model": "m",
            "timeoutSeconds": 3,
            "command": [sys.executable, str(DAEMON), str(state), mode],
        },
    }
    answer, judge = tmp_path / "answer.json", tmp_path / "judge.json"
    answer.write_text(json.dumps(common))
    judge.write_text(json.dumps({**common, "output": {"dir": str(tmp_path / "out")}}))
    return answer, judge, state


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"


def cells(tmp_path: Path) -> dict[str, str | None]:
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    return {t.id: t.repetitions[0].error for t in result.tickets}


def test_the_assay_command_kills_the_daemon_before_it_can_act(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    answer, judge, state = configs(suite, brain, tmp_path)
    # As a user (and the answer container) runs it: the `assay` command, which owns its process.
    subprocess.run([*ASSAY, "answer", "--config", str(answer), "-q"], check=True, timeout=120)
    if (state / "daemon.pid").exists():  # it may be swept before it even wrote its pid
        assert not alive(int((state / "daemon.pid").read_text()))
    assert not (state / "rewrote").exists()
    code = subprocess.run(
        [*ASSAY, "score", "--config", str(judge), "-q"], check=False, timeout=120
    ).returncode
    assert code == 1
    errors = cells(tmp_path)
    assert errors["T-1"] is None
    assert "exit code 124" in (errors["T-2"] or "")  # the truth: it timed out


def test_a_cell_rewritten_after_it_ended_breaks_its_seal_and_blocks(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """Here the daemon lives: `main()` called from a program of its own does not own its process, so nothing
    sweeps it (as on a runtime where it escaped), and no sandbox holds it (as on a kernel without Landlock:
    ASSAY_LANDLOCK_ABI_MAX=0; in its sandbox it could reach no other cell, tests/runner/test_sandbox.py).
    The seal still catches what it did."""
    answer, judge, state = configs(suite, brain, tmp_path)
    not_the_command = "import sys; from assay_runner.cli import main; sys.exit(main(sys.argv[1:]))"
    try:
        answered = [sys.executable, "-c", not_the_command, "answer", "--config", str(answer), "-q"]
        subprocess.run(answered, check=True, timeout=120, env={**os.environ, landlock.ABI_CAP_ENV: "0"})
        deadline = time.monotonic() + 60
        while not (state / "rewrote").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (state / "rewrote").exists(), "the daemon did not get to rewrite T-2 (test set-up)"
        victim = tmp_path / "answers" / "T-2" / "1"
        assert json.loads((victim / "cell.json").read_text()) == {"exitCode": 0}
        assert main(["score", "--config", str(judge), "-q"]) == 1
        errors = cells(tmp_path)
        assert errors["T-1"] is None
        assert "do not match their seal" in (errors["T-2"] or "")
        for name in ("answer.md", "cell.json", "exit_code"):
            assert name in (errors["T-2"] or "")
    finally:
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((state / "daemon.pid").read_text()), signal.SIGKILL)


@pytest.fixture
def sealed(suite: Path, brain: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A good run's sealed tree and the judge's config: nothing wrong with it until a test breaks it."""
    answers = tmp_path / "answers"
    common = {
        "suite": str(suite),
        "brain": str(brain),
        "tickets": ["T-1", "T-2"],
        "repetitions": 2,
        "mlflow": {"enabled": False},
        "answersDir": str(answers),
        "agent": {"kind": "command", "model": "m", "command": [sys.executable, "-c", GOOD_AGENT]},
    }
    (tmp_path / "answer.json").write_text(json.dumps(common))
    (tmp_path / "judge.json").write_text(json.dumps({**common, "output": {"dir": str(tmp_path / "out")}}))
    assert main(["answer", "--config", str(tmp_path / "answer.json"), "-q"]) == 0
    code = main(["score", "--config", str(tmp_path / "judge.json"), "-q"])
    assert code == 0, (tmp_path / "out" / "result.json").read_text()[:3000]  # untouched: Pass
    return answers, tmp_path / "judge.json"


GOOD_AGENT = (
    "open('answer.md','w').write('## Summary\\nSee [KB-1].\\n\\n## Steps\\n1. Open Settings > Export.\\n\\n"
    "## Next\\nReply if unclear.\\n')"
)


def edit_manifest(answers: Path, **changes: object) -> None:
    path = answers / "answers.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"suite": "another-suite"}, "does not verify under this run's evidence key"),
        ({"tickets": ["T-1"]}, "does not verify under this run's evidence key"),
        ({"repetitions": 7}, "does not verify under this run's evidence key"),
        ({"cells": {}}, "its seal does not verify under this run's evidence key"),
        ({"treeDigest": None}, "was not sealed"),
    ],
    ids=["suite", "tickets", "repetitions", "cells", "unsealed"],
)
def test_an_edited_manifest_blocks_every_cell(
    sealed: tuple[Path, Path], tmp_path: Path, changes: dict[str, object], expected: str
) -> None:
    """Any edit of the manifest breaks its MAC (`treeDigest`) under the run's evidence key."""
    answers, judge = sealed
    edit_manifest(answers, **changes)
    assert main(["score", "--config", str(judge), "-q"]) == 1
    assert all(expected in (error or "") for error in cells(tmp_path).values())


def test_a_genuine_tree_of_another_run_blocks_every_cell(suite: Path, brain: Path, tmp_path: Path) -> None:
    """Authentic under the same (named) key, but answered for other tickets: made for another run."""
    key = tmp_path / "evidence.key"
    key.write_bytes(os.urandom(32))
    answers = tmp_path / "answers"
    common = {
        "suite": str(suite),
        "brain": str(brain),
        "mlflow": {"enabled": False},
        "answersDir": str(answers),
        "agent": {"kind": "command", "model": "m", "command": [sys.executable, "-c", GOOD_AGENT]},
        "evidence": {"keyFile": str(key)},
    }
    (tmp_path / "answer.json").write_text(json.dumps({**common, "tickets": ["T-1"]}))
    judge = {**common, "tickets": ["T-1", "T-2"], "output": {"dir": str(tmp_path / "out")}}
    (tmp_path / "judge.json").write_text(json.dumps(judge))
    assert main(["answer", "--config", str(tmp_path / "answer.json"), "-q"]) == 0
    assert main(["score", "--config", str(tmp_path / "judge.json"), "-q"]) == 1
    assert all("made for another run" in (error or "") for error in cells(tmp_path).values())


def test_a_manifest_resealed_by_hand_names_the_cells_it_forged(
    sealed: tuple[Path, Path], tmp_path: Path
) -> None:
    """What anyone with write access to the tree can compute: new files' sha256 digests as T-2/1's seal and a
    sha256 over the cells as `treeDigest`. Without the run's evidence key neither verifies: T-2/1 is named,
    and the other cells (their seals genuine) still block, since the manifest that lists them does not
    verify."""
    answers, judge = sealed
    victim = answers / "T-2" / "1"
    (victim / "answer.md").write_text("## Summary\nReinstall the app [KB-1].\n")
    manifest = json.loads((answers / "answers.json").read_text())
    manifest["cells"]["T-2/1"] = {
        path.name: "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest() for path in victim.iterdir()
    }
    canonical = json.dumps(manifest["cells"], sort_keys=True, separators=(",", ":")).encode()
    manifest["treeDigest"] = "sha256:" + hashlib.sha256(canonical).hexdigest()
    (answers / "answers.json").write_text(json.dumps(manifest))
    assert main(["score", "--config", str(judge), "-q"]) == 1
    errors = cells(tmp_path)
    assert errors["T-2"] == "cell T-2/1: its seal does not verify under this run's evidence key: blocked"
    assert "answers manifest does not verify" in (errors["T-1"] or "")


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("cell.json", {"exitCode": 124}, "but cell.json says 124"),
        ("cell.json", {"exitCode": 2**70}, "is not a cell record"),
        ("cell.json", {"wallSeconds": -5}, "is not a cell record"),
        ("cell.json", {"usage": {"inputTokens": -1000}}, "is not a cell record"),
        ("exit_code", "99999999999\n", "not an exit code"),
    ],
    ids=["exit-code-disagrees", "huge-exit-code", "negative-time", "negative-usage", "exit-code-file"],
)
def test_an_invalid_cell_record_is_refused(
    sealed: tuple[Path, Path], tmp_path: Path, name: str, content: object, expected: str
) -> None:
    answers, judge = sealed
    path = answers / "T-1" / "1" / name
    if isinstance(content, dict):
        record = {**json.loads(path.read_text()), **content}
        path.write_text(json.dumps(record))
    else:
        path.write_text(str(content))
    assert main(["score", "--config", str(judge), "-q"]) == 1
    assert expected in (cells(tmp_path)["T-1"] or "")


def test_a_hard_link_to_the_keys_is_refused_like_a_symlink(
    sealed: tuple[Path, Path], suite: Path, tmp_path: Path
) -> None:
    answers, judge = sealed
    answer = answers / "T-1" / "1" / "answer.md"
    answer.unlink()
    os.link(suite / "suite.yaml", answer)  # the suite holds the answer keys
    assert main(["score", "--config", str(judge), "-q"]) == 1
    assert "a hard link" in (cells(tmp_path)["T-1"] or "")
