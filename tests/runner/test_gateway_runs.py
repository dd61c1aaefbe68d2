"""The chat agent and the model judge through a real chat-completions server; replay of the example."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.cli import main
from assay_runner.contract import Result

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"

MODEL_JUDGE = """\
  - name: quality
    type: model
    weight: 0.2
    threshold: 4
    samples: 3
    maxSpread: 2
    rubric: "5: correct and cites the KB."
"""


def gateway_script(grades: list[int]) -> Any:
    """The agent's call gets a good answer; each judge call gets the next grade of the list, in turn."""
    calls = {"judge": 0}

    def reply(body: dict[str, Any]) -> Reply:
        system = body["messages"][0]["content"]
        if system.startswith("You grade"):
            grade = grades[calls["judge"] % len(grades)]
            calls["judge"] += 1
            return Reply(content=json.dumps({"score": grade, "reason": f"graded {grade}"}), prompt_tokens=50)
        assert "cite: KB-1" in system  # the brain is the chat agent's system prompt
        assert '<article id="KB-1">' in body["messages"][1]["content"]  # the KB reaches it as context
        return Reply(
            content="## Summary\nSee [KB-1].\n## Steps\n1. Open Settings > Export.\n## Next\nDone.\n",
            prompt_tokens=200,
            completion_tokens=40,
        )

    return reply


def with_model_judge(suite: Path) -> Path:
    text = (suite / "suite.yaml").read_text().replace("gate:", MODEL_JUDGE + "gate:")
    (suite / "suite.yaml").write_text(text)
    return suite


def run_chat(suite: Path, brain: Path, out: Path, url: str, *extra: str) -> tuple[int, Result]:
    code = main(
        [
            "run",
            "--no-mlflow",
            str(suite),
            "--brain",
            str(brain),
            "--agent",
            "chat",
            "--model",
            "agent-m",
            "--judge-model",
            "judge-m",
            "--gateway",
            url,
            "--out",
            str(out),
            "-q",
            *extra,
        ]
    )
    return code, Result.model_validate_json((out / "result.json").read_text())


def test_chat_agent_and_model_judge_pass(suite: Path, brain: Path, tmp_path: Path) -> None:
    with ChatServer(gateway_script([5, 4, 5])) as server:
        code, result = run_chat(
            with_model_judge(suite), brain, tmp_path / "out", server.url, "--tickets", "T-1,T-2"
        )
    assert code == 0, result.reasons
    quality = result.tickets[0].repetitions[0].judges["quality"]
    assert quality.samples is not None and len(quality.samples) == 3 and quality.raw is not None
    assert result.judges["quality"].raw_mean is not None and result.judges["quality"].raw_mean >= 4
    judge_calls = [r for r in server.requests if r["messages"][0]["content"].startswith("You grade")]
    assert len(judge_calls) == 6 and {r["model"] for r in judge_calls} == {"judge-m"}
    assert sorted({r["seed"] for r in judge_calls}) == [0, 3, 6]  # three distinct samples per answer
    assert result.usage.input_tokens == 2 * 200 + 6 * 50


def test_judge_prompt_never_carries_the_transcript(suite: Path, brain: Path, tmp_path: Path) -> None:
    with ChatServer(gateway_script([5])) as server:
        run_chat(with_model_judge(suite), brain, tmp_path / "out", server.url, "--tickets", "T-1")
    judge_user = [
        r["messages"][1]["content"]
        for r in server.requests
        if r["messages"][0]["content"].startswith("You grade")
    ]
    assert judge_user and all("model agent-m" not in text for text in judge_user)
    assert all(re.search(r"<answer>\n## Summary", text) for text in judge_user)


def test_low_grades_block_on_the_judge_threshold(suite: Path, brain: Path, tmp_path: Path) -> None:
    with ChatServer(gateway_script([3, 3, 3])) as server:
        code, result = run_chat(
            with_model_judge(suite), brain, tmp_path / "out", server.url, "--tickets", "T-1"
        )
    assert code == 1 and result.rules[1].offenders == ["quality"]


def test_inconclusive_spread_blocks(suite: Path, brain: Path, tmp_path: Path) -> None:
    with ChatServer(gateway_script([5, 1, 5])) as server:
        code, result = run_chat(
            with_model_judge(suite), brain, tmp_path / "out", server.url, "--tickets", "T-1"
        )
    verdict = result.tickets[0].repetitions[0].judges["quality"]
    assert code == 1 and verdict.error is not None and verdict.error.startswith("inconclusive")


def test_gateway_outage_fails_closed(suite: Path, brain: Path, tmp_path: Path) -> None:
    with ChatServer(lambda body: Reply(status=503)) as server:
        code, result = run_chat(
            with_model_judge(suite), brain, tmp_path / "out", server.url, "--tickets", "T-1"
        )
    cell = result.tickets[0].repetitions[0]
    assert code == 1 and result.verdict == "Blocked"
    assert cell.exit_code == 1 and cell.error == "the agent left no answer (exit code 1)"
    assert "gave up after 5 attempts" in (cell.transcript or "")


def test_record_then_replay_offline_gives_the_same_result(suite: Path, brain: Path, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    with ChatServer(gateway_script([5, 4, 5])) as server:
        _, recorded = run_chat(
            with_model_judge(suite),
            brain,
            tmp_path / "a",
            server.url,
            "--tickets",
            "T-1",
            "--cassettes",
            str(cassettes),
            "--cassette-mode",
            "record",
        )
    code = main(
        [
            "run",
            "--no-mlflow",
            str(suite),
            "--brain",
            str(brain),
            "--agent",
            "chat",
            "--model",
            "agent-m",
            "--judge-model",
            "judge-m",
            "--cassettes",
            str(cassettes),
            "--out",
            str(tmp_path / "b"),
            "-q",
            "--tickets",
            "T-1",
        ]
    )
    replayed = Result.model_validate_json((tmp_path / "b" / "result.json").read_text())
    assert code == 0 and replayed.score == recorded.score
    assert replayed.tickets[0].repetitions[0].judges == recorded.tickets[0].repetitions[0].judges


def test_replay_miss_is_a_clear_error(suite: Path, brain: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code = main(
        [
            "run",
            "--no-mlflow",
            str(with_model_judge(suite)),
            "--brain",
            str(brain),
            "--agent",
            "chat",
            "--model",
            "m",
            "--judge-model",
            "j",
            "--cassettes",
            str(tmp_path / "empty"),
            "--out",
            str(tmp_path / "o"),
            "-q",
            "--tickets",
            "T-1",
        ]
    )
    result = Result.model_validate_json((tmp_path / "o" / "result.json").read_text())
    assert code == 1 and "no recording" in (result.tickets[0].repetitions[0].transcript or "")


@pytest.mark.parametrize(("brain", "verdict", "code"), [("v1", "Pass", 0), ("v0", "Blocked", 1)])
def test_example_replay_agent_with_cassettes(brain: str, verdict: str, code: int, tmp_path: Path) -> None:
    out = tmp_path / brain
    assert (
        main(
            [
                "run",
                "--no-mlflow",
                str(EXAMPLE),
                "--brain",
                str(EXAMPLE / "brains" / brain),
                "--agent",
                "replay",
                "--answers",
                str(EXAMPLE / "answers" / brain),
                "--judge-model",
                "example-judge",
                "--cassettes",
                str(EXAMPLE / "cassettes"),
                "--out",
                str(out),
                "-q",
            ]
        )
        == code
    )
    result = Result.model_validate_json((out / "result.json").read_text())
    assert result.verdict == verdict
    assert all(r.error is None for t in result.tickets for r in t.repetitions)
