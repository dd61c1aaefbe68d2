"""The `chat` agent: one call to the gateway's chat endpoint per turn, no tools.

The brain's files are the system prompt; the ticket and the KB articles are the user message. It is the
smallest honest agent: enough to evaluate a brain's instructions against a model without installing a CLI,
and, with cassettes, a fully offline, repeatable run. In a conversation it sends the whole exchange so far
each turn (its session is the messages it keeps, by id, for the next turn).
"""

from __future__ import annotations

import time
from dataclasses import replace

from assay_runner.agents.base import AgentOutcome, Turn, Workspace
from assay_runner.agents.workspace import INSTRUCTIONS_FILE
from assay_runner.contract import Usage
from assay_runner.errors import AssayError
from assay_runner.gateway.chat import ChatClient, ChatMessage
from assay_runner.suite.models import Ticket


def brain_prompt(workspace: Workspace) -> str:
    files = sorted(p for p in workspace.brain.rglob("*") if p.is_file())
    # AGENTS.md first: it is the brain's entry point; other files follow as reference material.
    files.sort(key=lambda p: (p.name != INSTRUCTIONS_FILE, str(p)))
    parts = [
        f'<file path="brain/{p.relative_to(workspace.brain)}">\n{p.read_text(encoding="utf-8")}\n</file>'
        for p in files
    ]
    return "\n\n".join(parts) or "You are a helpful support agent."


def user_prompt(ticket: Ticket, workspace: Workspace) -> str:
    articles = sorted(workspace.kb.glob("*.md"))
    kb = "\n\n".join(
        f'<article id="{p.stem}">\n{p.read_text(encoding="utf-8")}\n</article>' for p in articles
    )
    return (f"Knowledge base:\n\n{kb}\n\n" if kb else "") + (
        f"Support ticket {ticket.id}:\n{ticket.question.strip()}\n\n"
        "Reply with your answer to the customer in markdown."
    )


class ChatAgent:
    kind = "chat"

    def __init__(self, client: ChatClient, model: str, temperature: float = 0.0) -> None:
        self.client = client
        self.model = model
        self.temperature = temperature
        self._sessions: dict[str, list[ChatMessage]] = {}
        """A conversation's messages so far, by session id (each turn's outcome names a new one)."""

    async def run(self, ticket: Ticket, repetition: int, workspace: Workspace) -> AgentOutcome:
        outcome = await self.turn(ticket, repetition, workspace, Turn(0, ticket.question, None))
        if outcome.session is not None:
            del self._sessions[outcome.session]  # one question, one answer: nothing to continue
        return replace(outcome, session=None)

    async def turn(self, ticket: Ticket, repetition: int, workspace: Workspace, turn: Turn) -> AgentOutcome:
        """Turn 0 is the ticket as a prompt; a later turn is the whole conversation so far, then the
        customer's message, as the model's next user message."""
        if turn.session is None:
            messages = [
                ChatMessage("system", brain_prompt(workspace)),
                ChatMessage("user", user_prompt(ticket, workspace)),
            ]
        elif turn.session in self._sessions:
            messages = [*self._sessions.pop(turn.session), ChatMessage("user", turn.message)]
        else:
            return AgentOutcome(exit_code=1, answer=None, transcript=f"no chat session {turn.session!r}")
        outcome = await self._complete(messages, repetition)
        if outcome.answer is None:
            return outcome
        session = f"{ticket.id}/{repetition}/{turn.index}"
        self._sessions[session] = [*messages, ChatMessage("assistant", outcome.answer)]
        workspace.answer_file.write_text(outcome.answer, encoding="utf-8")
        return replace(outcome, session=session)

    async def _complete(self, messages: list[ChatMessage], repetition: int) -> AgentOutcome:
        started = time.monotonic()
        try:
            # Each repetition is its own sample: a replayed run reproduces each repetition's own answer.
            reply = await self.client.complete(
                model=self.model, messages=messages, temperature=self.temperature, sample=repetition
            )
        except AssayError as exc:
            return AgentOutcome(
                exit_code=1,
                answer=None,
                transcript=f"chat agent failed: {exc}",
                wall_seconds=time.monotonic() - started,
            )
        usage = Usage(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens)
        return AgentOutcome(
            exit_code=0,
            answer=reply.text,
            transcript=f"model {reply.model or self.model}",
            wall_seconds=time.monotonic() - started,
            usage=usage,
        )
