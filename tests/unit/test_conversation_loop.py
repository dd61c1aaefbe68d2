"""The conversation loop with an in-memory agent (a unit test: the loop alone, every way a conversation
ends), and the joining of each turn's trajectory into the cell's."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from assay_runner.agents.base import AgentOutcome, Turn, Workspace
from assay_runner.contract import (
    TRAJECTORY_MAX_STEPS,
    ConversationTurn,
    ModelTurn,
    ToolCall,
    Trajectory,
    Usage,
)
from assay_runner.conversation.customer import CustomerFailed, CustomerReply, ScriptedCustomer, Step
from assay_runner.conversation.loop import Conversed, converse, joined
from assay_runner.suite import load_suite
from assay_runner.suite.models import Ticket
from tests.support.conversations import ANSWER, ASKING, GUESS, ROUTER_SAYS, conversation_suite


@dataclass
class Scripted:
    """Replies in order; records the turns it was given."""

    replies: list[AgentOutcome]
    kind: str = "scripted"
    given: list[Turn] = field(default_factory=list)

    async def run(self, ticket: Ticket, repetition: int, workspace: Workspace) -> AgentOutcome:
        raise AssertionError("a conversation goes through turn()")

    async def turn(self, ticket: Ticket, repetition: int, workspace: Workspace, turn: Turn) -> AgentOutcome:
        self.given.append(turn)
        assert not workspace.answer_file.exists() or turn.index == 0  # each turn starts without an answer
        reply = self.replies[turn.index]
        if reply.answer is not None:
            workspace.answer_file.write_text(reply.answer)
        return reply


class Mute:
    kind, model = "model", "customer-m"

    async def reply(
        self, ticket: Ticket, repetition: int, step: Step, turns: Sequence[ConversationTurn]
    ) -> CustomerReply:
        raise CustomerFailed("the model customer (customer-m) could not reply: 503")


def said(text: str, session: str | None = None, **more: object) -> AgentOutcome:
    return AgentOutcome(exit_code=0, answer=text, session=session, **more)  # type: ignore[arg-type]


def talk(tmp_path: Path, agent: Scripted, customer: object = None, **limits: object) -> Conversed:
    ticket = load_suite(conversation_suite(tmp_path / "suite")).tickets[0]
    root = tmp_path / "ws"
    root.mkdir()
    workspace = Workspace(root, root / "brain", root / "kb", root / "prompt.md", root / "answer.md")
    return asyncio.run(
        converse(
            agent,
            customer or ScriptedCustomer(),  # type: ignore[arg-type]
            ticket,
            1,
            workspace,
            seconds=limits.get("seconds"),  # type: ignore[arg-type]
            exhausted=lambda: limits.get("spent"),  # type: ignore[return-value]
        )
    )


def test_the_session_goes_from_turn_to_turn_and_the_answer_is_the_last(tmp_path: Path) -> None:
    usage = Usage(input_tokens=10, output_tokens=2, cost_usd=0.5)
    agent = Scripted([said(ASKING, "s-0", usage=usage), said(ANSWER, "s-1", usage=usage)])
    done = talk(tmp_path, agent)
    assert [(t.index, t.message, t.session) for t in agent.given][1:] == [(1, ROUTER_SAYS, "s-0")]
    assert done.error is None and done.record.ended == "answered" and done.outcome.answer == ANSWER
    assert (
        done.outcome.usage == done.record.agent_usage == Usage(input_tokens=20, output_tokens=4, cost_usd=1.0)
    )


@pytest.mark.parametrize(
    ("replies", "customer", "limits", "ended", "reason"),
    [
        (
            [said(GUESS)] * 3,
            None,
            {},
            "turnLimit",
            "the turn limit (3 agent turns) was reached with router still unsaid",
        ),
        (
            [said(ASKING)],
            Mute(),
            {},
            "customerFailed",
            "the model customer (customer-m) could not reply: 503",
        ),
        ([AgentOutcome(exit_code=3, answer=None)], None, {}, "agentFailed", "(exit code 3, no answer)"),
        (
            [said(GUESS)],
            None,
            {"spent": "the budget was spent"},
            "budget",
            "after 1 turn(s): the budget was spent",
        ),
        (
            [said(GUESS)],
            None,
            {"seconds": 0.0},
            "timeLimit",
            "the cell's time limit (0 s) was reached after 1 turn(s)",
        ),
    ],
)
def test_every_way_a_conversation_is_cut_short_blocks_with_its_reason(
    tmp_path: Path,
    replies: list[AgentOutcome],
    customer: object,
    limits: dict[str, object],
    ended: str,
    reason: str,
) -> None:
    done = talk(tmp_path, Scripted(replies), customer, **limits)
    assert done.record.ended == ended and done.error is not None and reason in done.error


def test_each_turns_trajectory_joins_the_cells(tmp_path: Path) -> None:
    first = Trajectory(
        agent="codex", steps=[ToolCall(tool="read", action="read", start=0.1, end=0.2)], input_tokens=5
    )
    second = Trajectory(agent="codex", steps=[ModelTurn(text="done", start=0.3, end=0.4)], input_tokens=7)
    whole = joined([(0.0, first), (10.0, second)])
    assert whole is not None and whole.input_tokens == 12 and whole.output_tokens is None
    assert [(s.start, s.end) for s in whole.steps] == [(0.1, 0.2), (10.3, 10.4)]
    many = Trajectory(agent="codex", steps=[ModelTurn(text="x")] * TRAJECTORY_MAX_STEPS)
    capped = joined([(0.0, many), (1.0, second)])
    assert capped is not None and len(capped.steps) == TRAJECTORY_MAX_STEPS and capped.dropped_steps == 1
    agent = Scripted([said(ASKING, trajectory=first), said(ANSWER, trajectory=second)])
    done = talk(tmp_path, agent)
    assert done.outcome.trajectory is not None and len(done.outcome.trajectory.steps) == 2
    # Each agent turn keeps its own, on its own clock, in the (sealed) record; a customer's turn has none.
    kept = [(t.speaker, t.trajectory) for t in done.record.turns]
    assert kept == [("customer", None), ("agent", first), ("customer", None), ("agent", second)]
    assert joined([]) is None
