"""Cost and budget: usage priced from the suite's and the run's price tables, and `maxCostUsd` stopping new
cells, through the chat agent and a real chat-completions server on loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main
from assay_runner.contract import Result
from assay_runner.errors import InputError
from assay_runner.io.runconfig import read_run_config
from assay_runner.run.preparation import prepare
from assay_runner.run.spending import check_run_prices

ANSWER = "## Summary\nSee [KB-1].\n## Steps\n1. Open Settings > Export.\n## Next\nDone.\n"


def run_chat(suite: Path, brain: Path, out: Path, *extra: str) -> tuple[int, Result, int]:
    with ChatServer(lambda _body: Reply(ANSWER, prompt_tokens=100, completion_tokens=10)) as server:
        code = main(
            [
                "run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "chat",
                "--model", "m", "--gateway", server.url, "--out", str(out), *extra,
            ]
        )  # fmt: skip
        calls = len(server.requests)
    return code, Result.model_validate_json((out / "result.json").read_text()), calls


def test_the_suites_prices_turn_usage_into_cost_per_cell_and_per_run(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    text = (suite / "suite.yaml").read_text()
    prices = "prices:\n  m: {inputPerMillion: 1000, outputPerMillion: 5000}\n"
    (suite / "suite.yaml").write_text(text.replace("tickets:\n", prices + "tickets:\n"))
    code, result, calls = run_chat(suite, brain, tmp_path / "out")
    assert code == 0 and calls == 6
    cells = [rep for ticket in result.tickets for rep in ticket.repetitions]
    # 100 input tokens at $1000/M + 10 output tokens at $5000/M = $0.15 per call.
    assert all(c.usage is not None and c.usage.cost_usd == pytest.approx(0.15) for c in cells)
    assert result.usage.cost_usd == pytest.approx(0.9)
    # The run's price table wins over the suite's, model by model.
    _, overridden, _ = run_chat(suite, brain, tmp_path / "again", "--price", "m=2000,0")
    assert overridden.usage.cost_usd == pytest.approx(1.2)


def test_a_spent_budget_starts_no_new_cell_and_blocks_saying_so(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    code, result, calls = run_chat(
        suite, brain, tmp_path / "out", "--price", "m=1000,0", "--max-cost-usd", "0.25", "-j", "1"
    )
    # $0.10 per cell: after the third the run has spent $0.30 >= $0.25, and the other three never start.
    assert calls == 3
    assert code == 1 and result.verdict == "Blocked"
    cells = [rep for ticket in result.tickets for rep in ticket.repetitions]
    not_started = [c for c in cells if c.error and "budget was spent" in c.error]
    assert len(not_started) == 3 and all(c.answer is None and c.judges == {} for c in not_started)
    assert "maxCostUsd 0.25" in (not_started[0].error or "")
    assert result.usage.cost_usd == pytest.approx(0.3)
    complete = next(r for r in result.rules if r.name == "complete")
    assert not complete.passed and "budget was spent" in complete.detail
    assert any("budget was spent" in reason for reason in result.reasons)


def test_a_bad_price_is_bad_input(suite: Path, brain: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(suite), "--price", "m=1"])
    assert exit_info.value.code == 2


def test_the_judge_phase_prices_the_recorded_usage_with_the_suites_prices(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """The answer phase records each cell's tokens; the judge phase prices them with the same table the
    answer phase used (the suite's, then the RunConfig's). (A cell file edited to claim another cost breaks
    its seal: test_sealed_cells.py.)"""
    import json

    text = (suite / "suite.yaml").read_text()
    prices = "prices:\n  m: {inputPerMillion: 1000, outputPerMillion: 5000}\n"
    (suite / "suite.yaml").write_text(text.replace("tickets:\n", prices + "tickets:\n"))
    answers = tmp_path / "answers"
    with ChatServer(lambda _body: Reply(ANSWER, prompt_tokens=100, completion_tokens=10)) as server:
        common = {
            "suite": str(suite),
            "brain": str(brain),
            "mlflow": {"enabled": False},
            "gateway": server.url,
        }
        agent = {"kind": "chat", "model": "m"}
        (tmp_path / "answer.json").write_text(
            json.dumps({**common, "agent": agent, "answersDir": str(answers)})
        )
        assert main(["answer", "--config", str(tmp_path / "answer.json"), "-q"]) == 0
    judge = {**common, "agent": agent, "answersDir": str(answers), "output": {"dir": str(tmp_path / "out")}}
    (tmp_path / "judge.json").write_text(json.dumps(judge))
    assert main(["score", "--config", str(tmp_path / "judge.json"), "-q"]) == 0
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    assert result.usage.input_tokens == 600 and result.usage.output_tokens == 60
    assert result.usage.cost_usd == pytest.approx(0.9)  # 6 cells x $0.15, from the suite's prices


def test_a_model_judge_without_a_price_is_refused_before_the_first_cell(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (suite / "suite.yaml").read_text()
    judge = "  - {name: quality, type: model, weight: 0, threshold: 3, model: grader, rubric: '5: good'}\n"
    (suite / "suite.yaml").write_text(text.replace("gate:", judge + "gate:"))
    with ChatServer(lambda _body: Reply(ANSWER)) as server:
        code = main(
            [
                "run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "chat",
                "--model", "m", "--gateway", server.url, "--out", str(tmp_path / "out"), "--price", "m=1,1",
            ]
        )  # fmt: skip
        calls = len(server.requests)
    assert code == 2 and calls == 0
    assert "model judge quality's model 'grader' has no price" in capsys.readouterr().err


def test_the_answer_phase_alone_prices_its_agent_not_the_judges_it_never_calls(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An answer pod runs no judge: an unpriced judge model is the judge phase's to refuse, not a reason for
    every answer pod to exit 2 (it did, on the local control plane, for all three CLI presets)."""
    text = (suite / "suite.yaml").read_text()
    judge = "  - {name: quality, type: model, weight: 0, threshold: 3, model: grader, rubric: '5: good'}\n"
    (suite / "suite.yaml").write_text(text.replace("gate:", judge + "gate:"))
    with ChatServer(lambda _body: Reply(ANSWER)) as server:
        answer = [
            "answer", "-q", str(suite), "--brain", str(brain), "--agent", "chat", "--model", "m",
            "--gateway", server.url, "--price", "m=1,1",
        ]  # fmt: skip
        assert main([*answer, "--answers-out", str(tmp_path / "answers")]) == 0
        assert main([*answer[:-2], "--price", "x=1,1", "--answers-out", str(tmp_path / "other")]) == 2
    assert "the agent's model 'm' has no price" in capsys.readouterr().err  # the agent's own still is


def test_the_judge_phase_prices_its_model_judges_before_the_first_judge_call(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The answer phase priced only its agent's model; the judge phase (`assay score`, the judge pod) refuses
    an unpriced model judge before any judge calls the gateway: exit 2, no call, no result."""
    import json

    text = (suite / "suite.yaml").read_text()
    judge = "  - {name: quality, type: model, weight: 0, threshold: 3, model: grader, rubric: '5: good'}\n"
    (suite / "suite.yaml").write_text(text.replace("gate:", judge + "gate:"))
    answers = tmp_path / "answers"
    with ChatServer(lambda _body: Reply(ANSWER)) as server:
        common = {
            "suite": str(suite),
            "brain": str(brain),
            "mlflow": {"enabled": False},
            "gateway": server.url,
            "agent": {"kind": "chat", "model": "m"},
            "prices": {"m": {"inputPerMillion": 1, "outputPerMillion": 1}},
            "answersDir": str(answers),
        }
        (tmp_path / "answer.json").write_text(json.dumps(common))
        assert main(["answer", "--config", str(tmp_path / "answer.json"), "-q"]) == 0
        answered = len(server.requests)
        judge_config = {**common, "output": {"dir": str(tmp_path / "out")}}
        (tmp_path / "judge.json").write_text(json.dumps(judge_config))
        code = main(["score", "--config", str(tmp_path / "judge.json"), "-q"])
        judged = len(server.requests) - answered
    assert code == 2 and judged == 0
    assert "model judge quality's model 'grader' has no price" in capsys.readouterr().err
    assert not (tmp_path / "out" / "result.json").exists()


def test_a_replayed_model_judge_needs_no_price(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cassettes in `replay` mode make no call: nothing to bill, so an unpriced replayed judge is no reason to
    refuse (the operator's replayed example judges run so)."""
    import json

    text = (suite / "suite.yaml").read_text()
    judge = "  - {name: quality, type: model, weight: 0, threshold: 3, model: grader, rubric: '5: good'}\n"
    (suite / "suite.yaml").write_text(text.replace("gate:", judge + "gate:"))
    config: dict[str, object] = {
        "suite": str(suite),
        "brain": str(brain),
        "agent": {"kind": "chat", "model": "m"},
        "prices": {"m": {"inputPerMillion": 1, "outputPerMillion": 1}},
        "cassettes": {"dir": str(tmp_path / "cassettes"), "mode": "replay"},
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    check_run_prices(prepare(read_run_config(tmp_path / "config.json")), agent=False)  # no refusal
    config["cassettes"] = {"dir": str(tmp_path / "cassettes"), "mode": "replay-or-record"}
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(InputError, match="model judge quality's model 'grader' has no price"):
        check_run_prices(prepare(read_run_config(tmp_path / "config.json")), agent=False)


def test_an_unpriced_preset_model_is_refused_before_its_preflight_call(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ChatServer(lambda _body: Reply(ANSWER)) as server:
        code = main(
            [
                "run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "opencode",
                "--model", "m", "--gateway", server.url, "--out", str(tmp_path / "out"),
                "--max-cost-usd", "1",
            ]
        )  # fmt: skip
        calls = len(server.requests)
    assert code == 2 and calls == 0  # not even the preflight's one call
    assert "the agent's model 'm' has no price, and a budget (maxCostUsd) is set" in capsys.readouterr().err
