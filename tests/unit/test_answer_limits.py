"""Bounded memory when reading answers (issue 29): an answer or side file over its limit is a clear
per-cell error that blocks, never read (so a sparse file of gigabytes costs nothing), side files are
read when a judge asks for them, and the transcript only up to its limit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

from assay_runner.cli import main
from assay_runner.io.answers import Limits, SideFiles, read_cell

SUITE = {
    "name": "limits",
    "judges": [{"name": "policy", "type": "policy", "weight": 1, "threshold": 1, "forbidden": ["reinstall"]}],
    "tickets": [{"id": "T-1", "split": "validation", "question": "Sync?"}],
}


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    (suite / "kb").mkdir(parents=True)
    (suite / "suite.yaml").write_text(yaml.safe_dump(SUITE))
    return suite


def _sparse(path: Path, size: int) -> None:
    with path.open("wb") as handle:
        handle.truncate(size)  # no data written: reading it would allocate `size` bytes


def _error(out: Path) -> str:
    result = json.loads((out / "result.json").read_text())
    return result["tickets"][0]["repetitions"][0]["error"]


def test_an_answer_over_the_limit_is_a_cell_error_that_blocks(tmp_path: Path) -> None:
    answers = tmp_path / "answers"
    (answers / "T-1").mkdir(parents=True)
    _sparse(answers / "T-1" / "answer.md", 200 << 20)  # 200 MB, as the review tried
    out = tmp_path / "out"
    assert main(["score", str(_suite(tmp_path)), "--answers", str(answers), "--out", str(out), "-q"]) == 1
    error = _error(out)
    assert "answer.md is 209,715,200 bytes, over the limit of 8,388,608 (limits.maxAnswerBytes)" in error


def test_a_side_file_over_the_limit_is_a_cell_error_that_blocks(tmp_path: Path) -> None:
    answers = tmp_path / "answers"
    (answers / "T-1").mkdir(parents=True)
    (answers / "T-1" / "answer.md").write_text("Clear the cache.")
    _sparse(answers / "T-1" / "core.dump", 4 << 30)  # a sparse side file of 4 GiB
    out = tmp_path / "out"
    assert main(["score", str(_suite(tmp_path)), "--answers", str(answers), "--out", str(out), "-q"]) == 1
    assert (
        "core.dump is 4,294,967,296 bytes, over the limit of 1,048,576 (limits.maxSideFileBytes)"
        in _error(out)
    )


def test_the_limits_are_configurable_in_the_run_config(tmp_path: Path) -> None:
    # The split run: the answer phase writes (and seals) the tree, the judge phase reads it with the
    # RunConfig's limits.
    brain = tmp_path / "brain"
    brain.mkdir()
    (brain / "AGENTS.md").write_text("Answer briefly.")
    writer = "import sys; open(sys.argv[1], 'w').write('Clear the cache and sign in again. ' * 3)"
    document = {
        "suite": str(_suite(tmp_path)),
        "brain": str(brain),
        "agent": {
            "kind": "command",
            "model": "m",
            "command": [sys.executable, "-c", writer, "{answer_file}"],
        },
        "answersDir": str(tmp_path / "answers"),
        "mlflow": {"enabled": False},
        "output": {"dir": str(tmp_path / "out")},
    }
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(document))
    assert main(["answer", "--config", str(config), "-q"]) == 0
    config.write_text(yaml.safe_dump({**document, "limits": {"maxAnswerBytes": 10}}))
    assert main(["score", "--config", str(config), "-q"]) == 1
    assert "answer.md is 105 bytes, over the limit of 10 (limits.maxAnswerBytes)" in _error(tmp_path / "out")


def test_side_files_are_read_when_asked_for_not_when_the_cell_is_read(tmp_path: Path) -> None:
    cell = tmp_path / "answers" / "T-1"
    cell.mkdir(parents=True)
    (cell / "answer.md").write_text("An answer.")
    (cell / "notes.txt").write_text("before")
    recorded = read_cell(tmp_path / "answers", "T-1", 1, 1)
    assert isinstance(recorded.files, SideFiles) and sorted(recorded.files) == ["answer.md", "notes.txt"]
    (cell / "notes.txt").write_text("after")  # changed after the cell was read: the judge sees this
    assert recorded.files["notes.txt"] == "after"


def test_only_the_tail_of_a_long_transcript_is_read(tmp_path: Path) -> None:
    cell = tmp_path / "answers" / "T-1"
    cell.mkdir(parents=True)
    (cell / "answer.md").write_text("An answer.")
    (cell / "transcript").write_text("x" * 5000 + "the end")
    recorded = read_cell(tmp_path / "answers", "T-1", 1, 1, Limits(max_side_file_bytes=100))
    assert recorded.transcript.endswith("the end") and len(recorded.transcript) < 200
    assert recorded.transcript.startswith("[first 4,907 bytes not read]")
