"""A command agent in a conversation (issue 40): `assay run --agent command` with a continue template plays
a conversational ticket turn by turn in its one workspace — the session id Assay made at the opening turn
carried to the next ({session}: the agent fails a turn whose session its HOME does not hold), the customer's
words given as {message} — and passes when it asks first;
without a continue template it is refused before the first cell, saying why (exit 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.agents.conversing_agent import ANSWER, ASKING
from tests.support.conversations import (
    asked_then_answered,
    brain,
    conversation_of,
    conversation_suite,
    exchange,
    run_conversation,
)

AGENT = Path(__file__).resolve().parents[1] / "support" / "agents" / "conversing_agent.py"
OPEN = f"{sys.executable} {AGENT} open {{session}}"
CONTINUE = f"{sys.executable} {AGENT} continue {{session}} {{message}}"


def test_a_command_with_a_continue_template_converses(tmp_path: Path) -> None:
    suite = conversation_suite(tmp_path / "suite")
    extra = ["--command", OPEN, "--continue-command", CONTINUE]
    code, result = run_conversation(
        suite, brain(tmp_path / "brain"), tmp_path / "out", *extra, agent="command"
    )
    assert code == 0, result.reasons
    talk = conversation_of(result)
    assert exchange(talk) == asked_then_answered(ASKING, ANSWER)
    assert talk.ended == "answered" and result.verdict == "Pass"


def test_a_command_without_a_continue_template_is_refused_before_the_first_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay_runner.cli import main

    suite = conversation_suite(tmp_path / "suite")
    argv = ["run", "--no-mlflow", str(suite), "--agent", "command", "--model", "m", "--command", OPEN]
    assert main([*argv, "--out", str(tmp_path / "out"), "-q"]) == 2
    error = capsys.readouterr().err
    assert "ASK-1 are conversations, and the command agent cannot continue one from turn to turn" in error
    assert "(it has no continue template" in error
    assert "--continue-command" in error
    assert not (tmp_path / "out" / "result.json").exists()
