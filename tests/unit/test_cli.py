"""The `assay` command end to end on small suites: exit codes 0 / 1 / 2, outputs, re-gating."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import Result, RunSummary

SUITE = """\
name: mini
judges:
  - {name: kb, type: kb_citation, weight: 0.5, threshold: 0.9}
  - {name: facts, type: must_mention, weight: 0.5, threshold: 0.9}
  - {name: exit_code, type: exit_code, weight: 0, threshold: 1.0}
  - name: nonempty
    type: code
    weight: 0
    threshold: 1.0
    code: |
      return (1.0, "ok") if outputs["answer"].strip() else (0.0, "empty answer")
gate: {minScore: 0.9, ticketFloor: 0.7}
tickets:
  - {id: T-1, split: validation, question: "Export?", key: {kb: [KB-1], mustMention: ["Settings > Export"]}}
  - {id: T-2, split: training, question: "Refund?", key: {kb: [KB-2], mustMention: ["14 days"]}}
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    (root / "kb").mkdir(parents=True)
    for article in ("KB-1", "KB-2"):
        (root / "kb" / f"{article}.md").write_text(f"# {article}\n")
    (root / "suite.yaml").write_text(SUITE)
    return root


def answers(tmp_path: Path, texts: dict[str, str], exit_codes: dict[str, int] | None = None) -> Path:
    root = tmp_path / "answers"
    for tid, text in texts.items():
        (root / tid).mkdir(parents=True, exist_ok=True)
        (root / tid / "answer.md").write_text(text)
        if exit_codes and tid in exit_codes:
            (root / tid / "exit_code").write_text(f"{exit_codes[tid]}\n")
    return root


GOOD = {"T-1": "Open Settings > Export [KB-1].", "T-2": "Refunds within 14 days, see KB-2."}


def test_score_pass_exits_0_and_writes_result(tmp_path: Path, suite: Path) -> None:
    out = tmp_path / "out"
    code = main(["score", str(suite), "--answers", str(answers(tmp_path, GOOD)), "--out", str(out), "-q"])
    assert code == 0
    result = Result.model_validate_json((out / "result.json").read_text())
    assert result.verdict == "Pass" and result.score == pytest.approx(1.0)
    assert result.inputs.suite_digest.startswith("sha256:") and result.run_name == "answers"
    data = json.loads((out / "result.json").read_text())
    assert {
        "schemaVersion",
        "verdict",
        "score",
        "judges",
        "rules",
        "tickets",
        "repetitions",
        "usage",
        "inputs",
        "mlflow",
        "startedAt",
        "finishedAt",
    } <= set(data)
    assert data["judges"]["kb"]["applicableTickets"] == 2
    summary = (out / "summary.json").read_bytes()
    assert len(summary) <= 4096 and RunSummary.model_validate_json(summary).verdict == "Pass"


def test_score_blocked_exits_1(tmp_path: Path, suite: Path) -> None:
    bad = {**GOOD, "T-2": "Refunds are possible."}
    assert main(["score", str(suite), "--answers", str(answers(tmp_path, bad)), "-q"]) == 1


def test_crashed_agent_blocks_through_exit_code_judge(tmp_path: Path, suite: Path) -> None:
    out = tmp_path / "out"
    root = answers(tmp_path, GOOD, exit_codes={"T-1": 137})
    assert main(["score", str(suite), "--answers", str(root), "--out", str(out), "-q"]) == 1
    result = Result.model_validate_json((out / "result.json").read_text())
    assert result.judges["exit_code"].passed is False
    assert result.score == pytest.approx(1.0)  # weight 0: the mean cannot see the crash, the gate can


def test_missing_answer_blocks(tmp_path: Path, suite: Path) -> None:
    out = tmp_path / "out"
    assert (
        main(
            [
                "score",
                str(suite),
                "--answers",
                str(answers(tmp_path, {"T-1": GOOD["T-1"]})),
                "--out",
                str(out),
                "-q",
            ]
        )
        == 1
    )
    result = Result.model_validate_json((out / "result.json").read_text())
    assert "no answer file" in (result.tickets[1].repetitions[0].error or "")
    assert any(r.startswith("complete:") for r in result.reasons)


def test_repetitions_layout(tmp_path: Path, suite: Path) -> None:
    root = tmp_path / "answers"
    for tid, text in GOOD.items():
        for rep in (1, 2):
            (root / tid / str(rep)).mkdir(parents=True)
            (root / tid / str(rep) / "answer.md").write_text(text if rep == 1 or tid == "T-1" else "nothing")
    out = tmp_path / "out"
    assert main(["score", str(suite), "--answers", str(root), "-k", "2", "--out", str(out), "-q"]) == 1
    figures = Result.model_validate_json((out / "result.json").read_text()).repetitions
    assert (figures.k, figures.pass_rate, figures.pass_at_k, figures.pass_hat_k) == (2, 0.75, 1.0, 0.5)


def test_bad_input_exits_2(tmp_path: Path, suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (suite / "suite.yaml").write_text(SUITE.replace("weight: 0.5, threshold", "weight: 0.5, treshold", 1))
    assert main(["score", str(suite), "--answers", str(answers(tmp_path, GOOD))]) == 2
    err = capsys.readouterr().err
    assert "suite.yaml:3: judges[0].treshold: unknown key" in err


def test_bad_exit_code_file_exits_2(tmp_path: Path, suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = answers(tmp_path, GOOD)
    (root / "T-1" / "exit_code").write_text("crashed\n")
    assert main(["score", str(suite), "--answers", str(root), "-q"]) == 2
    assert "exit code must be an integer, got 'crashed'" in capsys.readouterr().err


def test_gate_reapplies_new_thresholds_without_rerunning(tmp_path: Path, suite: Path) -> None:
    out = tmp_path / "out"
    half = {**GOOD, "T-2": "Refunds within 14 days."}  # no citation: kb 0.5 mean, ticket 0.5
    assert (
        main(["score", str(suite), "--answers", str(answers(tmp_path, half)), "--out", str(out), "-q"]) == 1
    )
    result_path = str(out / "result.json")
    assert main(["gate", result_path, "-q"]) == 1
    assert (
        main(
            [
                "gate",
                result_path,
                "--min-score",
                "0.7",
                "--ticket-floor",
                "0.5",
                "--threshold",
                "kb=0.5",
                "-q",
                "--out",
                str(tmp_path / "regated"),
            ]
        )
        == 0
    )
    regated = Result.model_validate_json((tmp_path / "regated" / "result.json").read_text())
    assert regated.verdict == "Pass" and regated.config.gate.min_score == 0.7
    assert main(["gate", result_path, "--threshold", "nope=0.5", "-q"]) == 2
    assert main(["gate", result_path, "--threshold", "kb=1.5", "-q"]) == 2
    assert main(["gate", str(tmp_path / "missing.json")]) == 2


def test_validate(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(suite)]) == 0
    assert "suite 'mini' is valid: 2 tickets" in capsys.readouterr().out


def test_console_script_runs_as_a_process(suite: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", "validate", str(suite / "nowhere")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "suite directory not found" in done.stderr


@pytest.mark.parametrize("command", ["run", "answer"])
def test_run_and_answer_take_the_same_agent_options(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    # One definition for both: a bound on repetitions cannot hold for one command and not the other.
    with pytest.raises(SystemExit) as exited:
        main([command, "suite", "-k", "101"])
    assert exited.value.code == 2 and "-k" in capsys.readouterr().err
