"""Conversational tickets for tests: a suite whose one ticket can be solved only by asking, and scripted
model replies for an agent that asks first or one that guesses.

Shared by the conversation tests of every agent kind (chat, command, and each CLI preset): a test gives
`agent_script(...)` to the scripted chat server (`assay_dev.servers.chat_server.ChatServer`), or scripts a
CLI's model server turn by turn with ASKING / ANSWER / GUESS and `customer_has_said(body)`; it runs the suite
with `run_conversation(..., agent=KIND)` and reads the exchange with `conversation_of(result)`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay_dev.servers.chat_server import Reply
from assay_runner.contract import ConversationRecord, ModelTurn, Result, ToolCall, Trajectory

QUESTION = "My internet drops every evening around 8 pm. How do I fix it?"
ROUTER_SAYS = "It is a Zyxel VMG8825."
ASKING = "## Summary\nI need one detail first.\n\nWhich router model do you have?\n"
ANSWER = (
    "## Summary\nYour Zyxel VMG8825 needs a firmware update [KB-7].\n"
    "## Steps\n1. Install firmware 5.50 from the router's page.\n## Next\nReply if it drops again.\n"
)
GUESS = (
    "## Summary\nRestart your router [KB-7].\n## Steps\n1. Unplug it for ten seconds.\n"
    "## Next\nReply if it drops again.\n"
)
FIX = "I tried that, and it did not work."
CUSTOMER_PREFIX = "You play a customer"
"""How the model customer's instruction starts (`conversation.customer`): the scripted server tells its
requests from the agent's by it."""

SUITE = """\
name: talk
judges:
  - {name: kb, type: kb_citation, weight: 0.3, threshold: 0.9}
  - {name: facts, type: must_mention, weight: 0.3, threshold: 0.9}
  - {name: asked, type: asked_first, weight: 0.2, threshold: 1.0, floor: 1.0}
  - {name: unsaid, type: unsaid_facts, weight: 0.2, threshold: 1.0, floor: 1.0}
  - {name: turns, type: turns, weight: 0, threshold: 1.0}
  - {name: exit_code, type: exit_code, weight: 0, threshold: 1.0}
gate: {minScore: 0.9, ticketFloor: 0.7}
tickets:
  - id: ASK-1
    split: validation
    question: "QUESTION"
    key:
      kb: [KB-7]
      mustMention: ["firmware 5.50"]
      conversation:
        customer: {persona: "a home user, not technical", tone: "short", playedBy: PLAYED_BY}
        hidden:
          - name: router
            says: "ROUTER_SAYS"
            askedWhen: ["router model", "which router", "what router"]
            statedWhen: ["VMG8825", "Zyxel"]
        unprompted: fixDidNotWork
        turnLimit: TURN_LIMIT
"""


def conversation_suite(root: Path, *, played_by: str = "scripted", turn_limit: int = 3) -> Path:
    """A suite of one ticket (ASK-1) that can be solved only by asking which router the customer has."""
    (root / "kb").mkdir(parents=True, exist_ok=True)
    (root / "kb" / "KB-7.md").write_text(
        "# KB-7: Evening drops\nZyxel VMG8825 routers drop at peak hours until firmware 5.50 is installed.\n"
    )
    text = (
        SUITE.replace("QUESTION", QUESTION)
        .replace("ROUTER_SAYS", ROUTER_SAYS)
        .replace("PLAYED_BY", played_by)
        .replace("TURN_LIMIT", str(turn_limit))
    )
    (root / "suite.yaml").write_text(text)
    return root


def brain(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "AGENTS.md").write_text("Ask for what you need before you answer. Cite the KB.\n")
    return root


def run_conversation(
    suite: Path,
    brain_dir: Path,
    out: Path,
    *extra: str,
    agent: str = "chat",
    model: str = "agent-m",
    mlflow: bool = False,
) -> tuple[int, Result]:
    """`assay run` of a conversational suite, in this process (without MLflow unless `mlflow`: then give
    `--mlflow URI` in `extra`); its exit code and result. `agent`: any kind that converses (a CLI preset's
    test gives its own, with `--gateway` and what the preset needs in `extra`)."""
    from assay_runner.cli import main

    argv = ["run", *([] if mlflow else ["--no-mlflow"]), str(suite), "--brain", str(brain_dir)]
    argv += ["--agent", agent, "--model", model]
    code = main([*argv, "--judge-model", "judge-m", "--out", str(out), "-q", *extra])
    return code, Result.model_validate_json((out / "result.json").read_text())


def is_customer(body: dict[str, Any]) -> bool:
    return str(body["messages"][0]["content"]).startswith(CUSTOMER_PREFIX)


def agent_script(asks: bool, customer: Callable[[dict[str, Any]], str] | None = None) -> Callable[..., Reply]:
    """The scripted model server's replies. The agent's calls: with `asks`, it asks for the router model
    until the customer has said it, then answers; without, it guesses every time. The model customer's calls
    (when `customer` is given) get `customer(body)`."""

    def reply(body: dict[str, Any]) -> Reply:
        if is_customer(body):
            assert customer is not None, "a scripted customer makes no model call"
            return Reply(content=customer(body), prompt_tokens=30, completion_tokens=10)
        if not asks:
            return Reply(content=GUESS, prompt_tokens=200, completion_tokens=40)
        content = ANSWER if customer_has_said(body) else ASKING
        return Reply(content=content, prompt_tokens=200, completion_tokens=40)

    return reply


def customer_has_said(body: dict[str, Any]) -> bool:
    """Whether a model request (any protocol: chat messages, a CLI's input items) carries the customer's
    reveal: its exact words, which the KB (naming the router too) never has."""
    return ROUTER_SAYS in json.dumps(body, ensure_ascii=False)


def model_customer(body: dict[str, Any]) -> str:
    """A model customer's words: the router when the instruction says to reveal it, else that it failed."""
    instruction = str(body["messages"][0]["content"])
    return (
        ROUTER_SAYS
        if "VMG8825" in instruction.rsplit("Reveal now:", maxsplit=1)[-1]
        else "That did not work."
    )


def exchange(record: ConversationRecord) -> list[tuple[str, str]]:
    """Who said what, turn by turn."""
    return [(turn.speaker, turn.text) for turn in record.turns]


def asked_then_answered(asking: str = ASKING, answer: str = ANSWER) -> list[tuple[str, str]]:
    """The exchange of an agent that asks which router the customer has (`asking`), is told, and answers."""
    return [("customer", QUESTION), ("agent", asking), ("customer", ROUTER_SAYS), ("agent", answer)]


def conversation_of(result: Result, ticket: str = "ASK-1", repetition: int = 0) -> ConversationRecord:
    for entry in result.tickets:
        if entry.id == ticket:
            record = entry.repetitions[repetition].conversation
            assert record is not None, f"{ticket}#{repetition} has no conversation"
            return record
    raise AssertionError(f"no ticket {ticket} in the result")


def turn_steps(read: str) -> Trajectory:
    """An agent turn's own trajectory, on its own clock, as a CLI's run records it: a model turn, a read."""
    return Trajectory(
        agent="codex",
        steps=[
            ModelTurn(text=f"reading {read}", start=0.0, end=0.1),
            ToolCall(tool="read", action="read", paths=[f"kb/{read}.md"], result=read, start=0.1, end=0.2),
        ],
    )


def with_turn_steps(result: Result, reads: list[str]) -> Result:
    """`result` (one ticket, one repetition, by an agent keeping no trajectory: the chat agent) with a
    trajectory per agent turn, reading `reads[n]` in turn n, and the cell's joined from them."""
    [ticket] = result.tickets
    [cell] = ticket.repetitions
    assert cell.conversation is not None
    given = iter(reads)
    turns = [
        turn.model_copy(update={"trajectory": turn_steps(next(given))}) if turn.speaker == "agent" else turn
        for turn in cell.conversation.turns
    ]
    whole = Trajectory(agent="codex", steps=[s for t in turns if t.trajectory for s in t.trajectory.steps])
    record = cell.conversation.model_copy(update={"turns": turns})
    cell = cell.model_copy(update={"conversation": record, "trajectory": whole})
    return result.model_copy(update={"tickets": [ticket.model_copy(update={"repetitions": [cell]})]})
