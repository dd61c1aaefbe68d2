"""A threshold override is checked against its judge's scale where it enters, in every phase, by the rule the
suite's own thresholds and `assay gate --threshold` use (`contract.threshold_problem`).

Before, `gate.thresholds.kb: 1.5` ran to a Blocked verdict (exit 1) and the result.json it wrote was then
refused by `assay gate` (exit 2): whatever a run writes, its own tools must read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay_runner.cli import main
from tests.runner.conftest import agent_command


def config(tmp_path: Path, suite: Path, brain: Path, thresholds: dict[str, float], **extra: object) -> Path:
    document = {
        "suite": str(suite),
        "brain": str(brain),
        "agent": {"kind": "command", "model": "agent-m", "command": agent_command("good").split()},
        "mlflow": {"enabled": False},
        "output": {"dir": str(tmp_path / "out")},
        "gate": {"thresholds": thresholds},
        **extra,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    "thresholds",
    [{"kb": 1.5}, {"facts": -0.1}, {"exit_code": 2.0}, {"kb": float("nan")}],
    ids=["above", "below", "exit-code", "nan"],
)
@pytest.mark.parametrize("command", ["run", "answer", "score"])
def test_an_override_off_the_scale_is_bad_input_in_every_phase(
    suite: Path,
    brain: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    thresholds: dict[str, float],
    command: str,
) -> None:
    extra = {"answersDir": str(tmp_path / "answers")} if command in ("answer", "score") else {}
    if command == "score":
        (tmp_path / "answers").mkdir()
    path = config(tmp_path, suite, brain, thresholds, **extra)
    assert main([command, "--config", str(path), "-q"]) == 2
    err = capsys.readouterr().err
    (name,) = thresholds
    assert f"gate.thresholds.{name}" in err and "outside the judge's scale [0, 1]" in err
    assert not (tmp_path / "out" / "result.json").exists()  # refused before anything ran
    assert not list((tmp_path / "answers").glob("*/*/cell.json")) if command == "answer" else True


def test_an_unknown_judge_is_named_with_the_judges_the_suite_has(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--config", str(config(tmp_path, suite, brain, {"kbb": 0.5, "kb": 7})), "-q"]) == 2
    err = capsys.readouterr().err
    assert "gate.thresholds.kbb: the suite has no judge 'kbb' (judges: kb, facts, format, exit_code)" in err
    assert "gate.thresholds.kb: threshold 7 is outside" in err  # every problem at once


@pytest.mark.parametrize("value", [0.0, 0.25, 1.0])
def test_whatever_a_run_writes_assay_gate_reads(
    suite: Path, brain: Path, tmp_path: Path, value: float
) -> None:
    path = config(tmp_path, suite, brain, {"kb": value, "facts": value, "format": value, "exit_code": value})
    code = main(["run", "--config", str(path), "-q"])
    assert code in (0, 1)
    result = tmp_path / "out" / "result.json"
    assert main(["gate", str(result), "-q"]) == code
    assert main(["gate", str(result), "--threshold", f"kb={value}", "-q"]) == code
    assert main(["gate", str(result), "--threshold", "kb=1.01", "-q"]) == 2  # the same rule, the same bounds
