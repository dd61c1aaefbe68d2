"""Bounded memory when reading answers (issues 29 and 42): an answer or side file over its limit, or a cell
whose side files are too many or too large in all, is a clear per-cell error that blocks, never read (so a
sparse file of gigabytes costs nothing), side files are read one at a time when a judge asks for them
(a code judge's worker included), and the transcript only up to its limit."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
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


# ------------------------------------------------------- side files bounded per cell (issue 42)

READS_EVERY_FILE = {
    "name": "files",
    "type": "code",
    "weight": 0,
    "threshold": 0,
    "timeoutSeconds": 120,
    "code": (
        "import sys\n"
        "names = [n for n in outputs['files'] if n.startswith('out-')]\n"
        "wrong = [n for n in names if outputs['files'][n] != n * 3]\n"
        "try:\n"
        "    outputs['files']['not-in-the-cell']\n"
        "    return (0.0, 'an unknown name was read')\n"
        "except KeyError:\n"
        "    pass\n"
        "if sys.stdin.read():\n"
        "    return (0.0, 'the protocol reached the judge on stdin')\n"
        "return (0.0, f'wrong: {wrong}') if wrong else (1.0, f'{len(names)} files read')\n"
    ),
}


def _code_suite(tmp_path: Path, judge: dict[str, object]) -> Path:
    suite = _suite(tmp_path)
    (suite / "suite.yaml").write_text(yaml.safe_dump({**SUITE, "judges": [*SUITE["judges"], judge]}))
    return suite


def _cell_with(tmp_path: Path, files: dict[str, bytes]) -> Path:
    answers = tmp_path / "answers"
    (answers / "T-1").mkdir(parents=True)
    (answers / "T-1" / "answer.md").write_text("Clear the cache.")
    for name, data in files.items():
        (answers / "T-1" / name).write_bytes(data)
    return answers


def test_a_code_judge_reads_each_side_file_when_it_asks_for_it(tmp_path: Path) -> None:
    answers = _cell_with(tmp_path, {f"out-{i}": f"out-{i}".encode() * 3 for i in range(30)})
    out = tmp_path / "out"
    suite = _code_suite(tmp_path, READS_EVERY_FILE)
    assert main(["score", str(suite), "--answers", str(answers), "--out", str(out), "-q"]) == 0
    result = json.loads((out / "result.json").read_text())
    assert result["tickets"][0]["repetitions"][0]["judges"]["files"]["reason"] == "30 files read"


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        pytest.param(
            ["--max-side-files-bytes", "100"],
            "side files are more than 120 bytes in all, over the limit of 100 (limits.maxSideFilesBytes)",
            id="total",
        ),
        pytest.param(
            ["--max-side-files", "1"], "holds more than 1 side files (limits.maxSideFiles)", id="count"
        ),
    ],
)
def test_a_cell_over_its_side_files_limit_blocks_naming_the_cell(
    tmp_path: Path, flags: list[str], expected: str
) -> None:
    answers = _cell_with(tmp_path, {"a.log": b"x" * 60, "b.log": b"y" * 60})
    out = tmp_path / "out"
    suite = _code_suite(tmp_path, READS_EVERY_FILE)
    assert main(["score", str(suite), "--answers", str(answers), "--out", str(out), "-q", *flags]) == 1
    error = _error(out)
    assert error.startswith(f"{answers / 'T-1'}") and expected in error and "none was read" in error, error


def test_the_side_file_limits_are_configurable_in_the_run_config() -> None:
    from assay_runner.contract import LimitsConfig

    limits = Limits.of(LimitsConfig.model_validate({"maxSideFilesBytes": 10, "maxSideFiles": 2}))
    assert (limits.max_side_files_bytes, limits.max_side_files) == (10, 2)
    assert Limits() == Limits.of(LimitsConfig())  # one source for the defaults


PEAK = """
import contextlib, io, resource, sys, tempfile
from assay_runner.cli import main
with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
    code = main(["score", sys.argv[1], "--answers", sys.argv[2], "--out", out, "-q"])
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def _peak(suite: Path, answers: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-c", PEAK, str(suite), str(answers)], capture_output=True, text=True, check=True
    )
    code, peak = done.stdout.split()
    assert code == "0", done.stderr
    return int(peak)


def test_judging_memory_does_not_grow_with_the_number_of_side_files(tmp_path: Path) -> None:
    # 40 side files of 1 MiB of bytes that are not UTF-8, each read by the judge: they took ~11 MB of the
    # runner's memory each (450 MB here) when every file went to the judge's worker at once.
    judge = {**READS_EVERY_FILE, "code": "return (1.0, str(sum(len(t) for t in outputs['files'].values())))"}
    suite = _code_suite(tmp_path, judge)
    rng = random.Random(42)
    many = _cell_with(tmp_path / "many", {f"out-{i}": rng.randbytes((1 << 20) - 1) for i in range(40)})
    none = _cell_with(tmp_path / "none", {})
    growth = _peak(suite, many) - _peak(suite, none)
    print(f"peak RSS growth judging 40 side files of 1 MiB: {growth / 2**20:.0f} MiB")
    assert growth < 100 << 20


def test_a_side_file_swapped_for_a_fifo_after_the_cell_was_read_fails_the_judge_closed(
    tmp_path: Path,
) -> None:
    # Listed as a plain file, then replaced by a FIFO before the judge reads it: the read is refused
    # (io.plain), the worker is ended and the judge errs (which blocks) instead of waiting on the pipe.
    from assay_runner.judges.base import Case
    from assay_runner.judges.code import Code
    from assay_runner.suite.models import CodeJudge
    from tests.unit.builders import ticket

    answers = _cell_with(tmp_path, {"out.log": b"fine"})
    recorded = read_cell(answers, "T-1", 1, 1)
    (answers / "T-1" / "out.log").unlink()
    os.mkfifo(answers / "T-1" / "out.log")
    spec = CodeJudge(
        name="c", type="code", weight=0, threshold=0, code="return (1.0, outputs['files']['out.log'])"
    )
    judge = Code(spec, tmp_path)
    try:
        verdict = judge.judge(Case(ticket(), 1, "An answer.", files=recorded.files))
    finally:
        judge.close()
    assert verdict.error is not None and "side file 'out.log' could not be read" in verdict.error, verdict
