"""Inputs checked in one pass and before any work (issue 29): a RunConfig strict in type and range,
outputs that cannot be written refused up front with the setting and the path, file names that are not
UTF-8 carried without a traceback, and `assay judge` naming only the judges that need a key."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_runner.cli import main

SUITE = {
    "name": "inputs",
    "judges": [
        {"name": "policy", "type": "policy", "weight": 1, "threshold": 1, "forbidden": ["reinstall"]},
        {"name": "exit_code", "type": "exit_code"},
        {
            "name": "files",
            "type": "code",
            "weight": 0,
            "threshold": 0,
            "code": 'return (1.0, "files: " + ", ".join(sorted(outputs["files"])) + chr(0xDCFF))',
        },
    ],
    "tickets": [{"id": "T-1", "split": "validation", "question": "Sync?"}],
}


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    suite = tmp_path / "suite"
    (suite / "kb").mkdir(parents=True)
    (suite / "suite.yaml").write_text(yaml.safe_dump(SUITE))
    answers = tmp_path / "answers"
    (answers / "T-1").mkdir(parents=True)
    (answers / "T-1" / "answer.md").write_text("Clear the cache.")
    return suite, answers


def _config(tmp_path: Path, suite: Path, answers: Path, **changes: Any) -> Path:
    document: dict[str, Any] = {
        "suite": str(suite),
        "agent": {"kind": "replay", "answers": str(answers)},
        "mlflow": {"enabled": False},
        "output": {"dir": str(tmp_path / "out")},
    }
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        target = document
        for part in parents:
            target = target.setdefault(part, {})
        target[last] = value
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


REFUSED = [
    pytest.param({"concurrency": "4"}, "concurrency", id="concurrency-string"),
    pytest.param({"concurrency": True}, "concurrency", id="concurrency-true"),
    pytest.param({"schemaVersion": 99}, "schemaVersion", id="schema-version-99"),
    pytest.param({"answerDeadlineSeconds": float("inf")}, "answerDeadlineSeconds", id="deadline-inf"),
    pytest.param(
        {"prices": {"m": {"inputPerMillion": float("inf"), "outputPerMillion": 1}}},
        "inputPerMillion",
        id="price-inf",
    ),
    pytest.param({"tickets": ["T-1", "T-1"]}, "selected more than once", id="ticket-twice"),
    pytest.param({"output.dir": ""}, "output.dir", id="output-dir-empty"),
    pytest.param({"mlflow.enabled": "yes"}, "mlflow.enabled", id="mlflow-enabled-yes"),
]


@pytest.mark.parametrize(("changes", "named"), REFUSED)
def test_a_run_config_is_strict(
    tmp_path: Path,
    setup: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    changes: dict[str, Any],
    named: str,
) -> None:
    config = _config(tmp_path, *setup, **changes)
    assert main(["run", "--config", str(config), "-q"]) == 2
    err = capsys.readouterr().err
    assert named in err and "config.yaml" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_every_problem_of_a_run_config_at_once(
    tmp_path: Path, setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, *setup, concurrency="4", schemaVersion=99, **{"mlflow.enabled": "yes"})
    assert main(["run", "--config", str(config), "-q"]) == 2
    err = capsys.readouterr().err
    assert all(name in err for name in ("concurrency", "schemaVersion", "mlflow.enabled")), err


DESTINATIONS = [
    pytest.param({"output.summaryPath": "/dev/full"}, "/dev/full: output.summaryPath", id="dev-full"),
    pytest.param({"output.summaryPath": "{tmp}"}, "output.summaryPath: is a folder", id="a-folder"),
    pytest.param({"output.summaryPath": "{tmp}/missing/summary.json"}, "does not exist", id="missing-folder"),
    pytest.param(
        {"output.dir": "/dev/null/x"}, "/dev/null/x: output.dir: cannot be created", id="dev-null-x"
    ),
]


@pytest.mark.parametrize(("changes", "expected"), DESTINATIONS)
def test_outputs_that_cannot_be_written_are_refused_before_any_work(
    tmp_path: Path,
    setup: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    changes: dict[str, str],
    expected: str,
) -> None:
    changes = {k: v.format(tmp=tmp_path) for k, v in changes.items()}
    config = _config(tmp_path, *setup, **changes)
    assert main(["run", "--config", str(config), "-q"]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()  # nothing ran: the result folder was never made


def test_a_file_name_that_is_not_utf8_reaches_a_code_judge_without_a_traceback(
    tmp_path: Path, setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    suite, answers = setup
    (answers / "T-1" / os.fsdecode(b"bad\xff.txt")).write_text("x")
    out = tmp_path / "out"
    code = main(["score", str(suite), "--answers", str(answers), "--out", str(out), "-q"])
    assert code == 0, capsys.readouterr().err
    result = json.loads((out / "result.json").read_text())
    reason = result["tickets"][0]["repetitions"][0]["judges"]["files"]["reason"]
    assert reason == "files: answer.md, bad\\xff.txt\\xff"  # the judge's own lone surrogate shown too


def test_assay_judge_does_not_say_the_exit_code_judge_needs_a_key(
    tmp_path: Path, setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    suite, answers = setup
    assert (
        main(["judge", str(suite), "--question", "Sync?", "--answer", str(answers / "T-1" / "answer.md")])
        == 3
    )
    out = capsys.readouterr().out
    assert "not run without an answer key: files" in out
    assert "exit_code" not in out.split("not run without an answer key:")[1]
