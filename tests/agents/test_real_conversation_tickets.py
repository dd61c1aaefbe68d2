"""Issue 40's must-show with each real, pinned CLI: `assay run --agent opencode|claude-code|codex` on a
conversational ticket, the model scripted (the scripted model server, tests/support/agents/conversations.py's
`customer`) and the customer scripted too (tests/support/conversations.py's suite), each run in a network
namespace of its own (tests/support/agents/isolated_run.py).

The ticket can only be solved by asking which router the customer has. The agent that asks passes: its CLI
continued its session with the customer's reply (the model's next request holds the question, its own
asking and the reply) and answered with the firmware for that router. The agent that guesses is Blocked:
the customer says the fix did not work, turn after turn, until the turn limit, named as the reason. An agent
that asks only on its last turn reaches the turn limit before it can answer: Blocked with that reason.
Cost: 21 CLI runs, 2.5 minutes on 2 shared cores (OpenCode: 30-40 s a conversation).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay_runner.contract import ConversationRecord, Result
from tests.agents.test_real_agents import PRESETS, isolated_run
from tests.support.agents.conversations import CLARIFY
from tests.support.conversations import (
    ANSWER,
    ASKING,
    FIX,
    GUESS,
    QUESTION,
    ROUTER_SAYS,
    asked_then_answered,
    brain,
    conversation_of,
    conversation_suite,
    exchange,
)

pytestmark = pytest.mark.agents


def agent_requests(record: dict[str, Any]) -> list[str]:
    """The agent's conversation requests (those offering tools), each as the text of its history."""
    found = []
    for request in record["requests"]:
        body = request["body"]
        if body.get("tools"):
            found.append(json.dumps(body.get("messages") or body.get("input")))
    return found


def converse(
    tmp_path: Path, agent: str, behaviour: str, turn_limit: int, verdict: str
) -> tuple[dict[str, Any], Result, ConversationRecord]:
    """The isolated run of the conversational suite with the model scripted to `behaviour`: it ran without
    a problem or a retry to `verdict` (exit 0 for Pass, 1 for Blocked). Its record, result and exchange."""
    suite = conversation_suite(tmp_path / "suite", turn_limit=turn_limit)
    script = {"name": "customer", "behaviour": behaviour}
    record, result = isolated_run(tmp_path, agent, suite, brain(tmp_path / "brain"), script)
    assert record["problems"] == [] and record["attempts"] == []
    assert record["exit_code"] == (0 if verdict == "Pass" else 1), record["stderr"]
    assert result.verdict == verdict
    return record, result, conversation_of(result)


def blocked_at_the_turn_limit(result: Result, talk: ConversationRecord, limit: int) -> None:
    reason = f"the turn limit ({limit} agent turns) was reached with router still unsaid"
    assert talk.ended == "turnLimit" and talk.reason == reason
    assert result.tickets[0].repetitions[0].error == reason


@pytest.mark.parametrize("agent", PRESETS)
def test_the_agent_that_asks_passes(agent: str, tmp_path: Path) -> None:
    record, result, talk = converse(tmp_path, agent, "asks", turn_limit=3, verdict="Pass")
    assert exchange(talk) == asked_then_answered()
    assert talk.ended == "answered"
    assert talk.turns[1].asked == ["router"] and talk.turns[2].revealed == ["router"]
    cell = result.tickets[0].repetitions[0]
    assert cell.answer == ANSWER and cell.exit_code == 0 and cell.error is None
    # The second turn continued the CLI's session: its requests hold the ticket, the agent's own question
    # and the customer's reply (a restarted CLI would have only the reply, and asked again).
    second = [text for text in agent_requests(record) if ROUTER_SAYS in text]
    assert len(second) == 2
    assert all(QUESTION in text and "Which router model do you have?" in text for text in second)
    # The cell's trajectory is both turns' steps (each CLI's own write of answer.md, one per turn), and it
    # agrees with what the metering proxy relayed over the whole conversation.
    trajectory = cell.trajectory
    assert trajectory is not None
    assert [call.action for call in trajectory.tool_calls()] == ["write", "write"]
    assert trajectory.model_calls == 4  # two per turn, as the proxy relayed them
    # Codex's JSON has no per-call model turns, only its message per turn (as for a single run).
    calls = "the CLI's transcript shows 2 model turn(s); the proxy relayed 4 model call(s)"
    assert trajectory.differences == ([calls] if agent == "codex" else [])
    # Each agent turn's usage is the CLI's own for that turn; the conversation's, the cell's.
    turns = [t for t in talk.turns if t.speaker == "agent"]
    assert all(t.usage is not None and t.usage.input_tokens > 0 for t in turns)
    assert talk.agent_usage.input_tokens == sum(t.usage.input_tokens for t in turns if t.usage)


@pytest.mark.parametrize("agent", PRESETS)
def test_the_agent_that_guesses_is_blocked_at_the_turn_limit(agent: str, tmp_path: Path) -> None:
    record, result, talk = converse(tmp_path, agent, "guesses", turn_limit=3, verdict="Blocked")
    assert exchange(talk) == [
        ("customer", QUESTION),
        ("agent", GUESS),
        ("customer", FIX),
        ("agent", GUESS),
        ("customer", FIX),
        ("agent", GUESS),
    ]
    blocked_at_the_turn_limit(result, talk, 3)
    # Every later turn continued the same session: the last request holds all three of its guesses.
    assert agent_requests(record)[-1].count("Unplug it for ten seconds") == 3


@pytest.mark.parametrize("agent", PRESETS)
def test_a_turn_limit_reached_before_the_answer_blocks_with_its_reason(agent: str, tmp_path: Path) -> None:
    _, result, talk = converse(tmp_path, agent, "asksLate", turn_limit=2, verdict="Blocked")
    assert exchange(talk) == [
        ("customer", QUESTION),
        ("agent", CLARIFY),
        ("customer", FIX),
        ("agent", ASKING),
    ]
    assert talk.turns[3].asked == ["router"]  # it asked, on the last turn it had
    blocked_at_the_turn_limit(result, talk, 2)
