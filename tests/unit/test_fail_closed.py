"""Every way out of a judge is a judge error that blocks, and the CLI never exits 0 without a Pass result."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, scored
from assay_runner.judges.judging import judge_cell
from assay_runner.suite.models import FormatJudge, Ticket

SUITE = """\
name: escape
judges:
  - {{name: facts, type: must_mention, weight: 1, threshold: 0.9}}
  - name: custom
    type: code
    weight: 0
    threshold: 1.0
    timeoutSeconds: 1
    memoryMb: 256
    code: |
      {code}
tickets:
  - {{id: T-1, split: validation, question: "Export?", key: {{mustMention: [export]}}}}
"""


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("import sys; sys.exit(0)", "sys.exit(0)"),
        ("raise SystemExit", "sys.exit(None)"),
        ("import os; os._exit(0)", "ended its worker process (exit code 0)"),
        ("while True: pass", "took longer than 1 s"),
        ("return len(bytearray(2 * 1024 ** 3))", "MemoryError"),
        ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "killed by signal 9"),
    ],
    ids=["sys-exit", "raise-system-exit", "os-exit", "endless-loop", "huge-allocation", "kill-self"],
)
def test_code_judge_escape_blocks_and_the_result_is_written(tmp_path: Path, code: str, error: str) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "suite.yaml").write_text(SUITE.format(code=code))
    answers = tmp_path / "answers" / "T-1"
    answers.mkdir(parents=True)
    (answers / "answer.md").write_text("Use Settings > Export.")
    out = tmp_path / "out"
    assert main(["score", str(suite), "--answers", str(answers.parent), "--out", str(out), "-q"]) == 1
    result = json.loads((out / "result.json").read_text())
    assert result["verdict"] == "Blocked"
    verdict = result["tickets"][0]["repetitions"][0]["judges"]["custom"]
    assert error in verdict["error"]


class Slow:
    """An in-process judge that overruns its budget."""

    def __init__(self, name: str, seconds: float) -> None:
        self.spec = FormatJudge(name=name, type="format", weight=1, threshold=0)
        self.name = name
        self.needs_key = False
        self.budget_seconds = 0.2
        self.seconds = seconds

    def judge(self, case: Case) -> JudgeVerdict:
        time.sleep(self.seconds)
        return scored(1.0, "done")


def test_a_judge_over_its_budget_is_a_judge_error_and_the_cell_moves_on() -> None:
    case = Case(ticket=Ticket(id="T-1", split="training", question="q"), repetition=1, answer="a")
    started = time.monotonic()
    verdicts = asyncio.run(judge_cell([Slow("quick", 0.0), Slow("stuck", 30.0), Slow("later", 0.0)], case))
    assert time.monotonic() - started < 10  # bounded by the budget, not by the stuck judge
    assert verdicts["quick"].score == 1.0
    assert "budget of 0.2 s" in (verdicts["stuck"].error or "")
    assert "not run" in (verdicts["later"].error or "")


def test_a_verdict_command_that_finished_no_result_cannot_exit_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay_runner.cli import build_parser

    parser = build_parser()
    monkeypatch.setattr("assay_runner.cli.build_parser", lambda command=None: parser)
    # A handler that returns 0 without finishing a result (what a judge ending the process early looked like).
    parser._subparsers._group_actions[0].choices["gate"].set_defaults(handler=lambda args: 0)  # type: ignore[union-attr]
    assert main(["gate", "whatever.json"]) == 2
    assert "no result with a Pass verdict" in capsys.readouterr().err


def test_system_exit_inside_a_command_is_could_not_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay_runner.cli import build_parser

    parser = build_parser()
    monkeypatch.setattr("assay_runner.cli.build_parser", lambda command=None: parser)

    def escape(args: object) -> int:
        raise SystemExit(0)

    parser._subparsers._group_actions[0].choices["score"].set_defaults(handler=escape)  # type: ignore[union-attr]
    assert main(["score", "suite", "--answers", "x"]) == 2
    assert "sys.exit(0)" in capsys.readouterr().err
