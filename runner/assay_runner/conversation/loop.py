"""One conversational cell: the agent and the customer in turn, in the cell's one workspace and sandbox.

Turn 0 gives the agent the ticket's question; each next turn gives it the customer's reply, through
`ConversingAgent.turn` with the session its previous turn left (a CLI resumes it; the chat agent keeps the
messages). After each agent turn the customer's rules (`conversation.customer.next_step`) say what follows:
the facts it asked for, the unprompted reply, or the end, its turn being the answer. A conversation that
does not end so ends blocked, its reason named: the turn limit, the cell's time limit (the agent's
`timeoutSeconds`, over all its turns), the run's budget, the agent failing a turn, the customer failing to
reply. The record is the runner's own, made from what it handed the agent and what came back, never from
anything the agent wrote about itself. A CLI's trajectory is kept twice: each agent turn's own on its turn,
and every turn's joined in order on the conversation's clock (`joined`) as the cell's, which the
metering proxy's record is matched against: the trajectory judges read the whole, and each turn.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from assay_runner.agents.base import AgentOutcome, ConversingAgent, Turn, Workspace
from assay_runner.contract import (
    TRAJECTORY_MAX_STEPS,
    ConversationEnd,
    ConversationRecord,
    ConversationTurn,
    Trajectory,
    Usage,
)
from assay_runner.conversation.customer import (
    Customer,
    CustomerFailed,
    Step,
    asked_in,
    next_step,
    revealed_in,
    spec_of,
)
from assay_runner.suite.models import Ticket


@dataclass(frozen=True)
class Conversed:
    outcome: AgentOutcome
    """The agent's last turn, its answer the conversation's final answer; its usage every turn's."""
    record: ConversationRecord

    @property
    def error(self) -> str | None:
        """Why the cell blocks on its own (None: the agent answered with nothing left to ask)."""
        return None if self.record.ended == "answered" else self.record.reason


async def converse(
    agent: ConversingAgent,
    customer: Customer,
    ticket: Ticket,
    repetition: int,
    workspace: Workspace,
    *,
    seconds: float | None,
    exhausted: Callable[[], str | None],
) -> Conversed:
    """`seconds`: the cell's time limit over every turn; `exhausted()`: why no further turn may start (the
    budget spent), else None."""
    talk = _Exchange(ticket, customer)
    message, session = ticket.question, None
    outcome: AgentOutcome | None = None
    for index in range(talk.spec.turn_limit):
        if index > 0:
            if talk.cut_short(index, exhausted(), seconds):
                break
            workspace.answer_file.unlink(missing_ok=True)  # each turn leaves its own answer, or none
        turn_started = time.monotonic()
        outcome = await agent.turn(ticket, repetition, workspace, Turn(index, message, session))
        step = talk.agent_said(index, outcome, time.monotonic() - turn_started)
        if step is None:
            break
        said = await talk.customer_says(index + 1, repetition, step)
        if said is None:
            break
        message, session = said, outcome.session
    assert outcome is not None  # turn 0 always runs
    return talk.conversed(outcome)


class _Exchange:
    """A conversation's state: the turns so far, what the customer revealed, and how it ended."""

    def __init__(self, ticket: Ticket, customer: Customer) -> None:
        self.ticket = ticket
        self.spec = spec_of(ticket)
        self.customer = customer
        self.turns = [ConversationTurn(index=0, speaker="customer", text=ticket.question)]
        self.revealed: list[str] = []
        self.started = time.monotonic()
        self.agent_usage, self.customer_usage = Usage(), Usage()
        self.transcripts: list[str] = []
        self.trajectories: list[tuple[float, Trajectory]] = []
        """Each turn's trajectory with when its turn started (seconds from the conversation's start)."""
        self.ended: ConversationEnd = "turnLimit"
        self.reason = ""

    def end(self, ended: ConversationEnd, reason: str = "") -> None:
        self.ended, self.reason = ended, reason

    def cut_short(self, index: int, spent: str | None, seconds: float | None) -> bool:
        """Whether turn `index` may not start: the budget spent, or the cell's time limit reached."""
        if spent is not None:
            self.end("budget", f"the conversation stopped after {index} turn(s): {spent}")
        elif seconds is not None and time.monotonic() - self.started >= seconds:
            self.end("timeLimit", f"the cell's time limit ({seconds:g} s) was reached after {index} turn(s)")
        else:
            return False
        return True

    def agent_said(self, index: int, outcome: AgentOutcome, seconds: float) -> Step | None:
        """Record the agent's turn; what the customer does next, or None: the conversation is over."""
        if outcome.usage is not None:
            self.agent_usage = self.agent_usage.plus(outcome.usage)
        if outcome.transcript:
            self.transcripts.append(f"--- turn {index} ---\n{outcome.transcript}")
        if outcome.trajectory is not None:
            began = time.monotonic() - seconds - self.started
            self.trajectories.append((max(0.0, began), outcome.trajectory))
        text = outcome.answer or ""
        asked = asked_in(self.spec, text)
        usage, wall = outcome.usage, round(seconds, 3)
        self.turns.append(
            ConversationTurn(
                index=index,
                speaker="agent",
                text=text,
                usage=usage,
                asked=asked,
                wall_seconds=wall,
                trajectory=outcome.trajectory,
            )
        )
        if outcome.answer is None or outcome.exit_code != 0 or outcome.error is not None:
            why = outcome.error or f"exit code {outcome.exit_code}{'' if outcome.answer else ', no answer'}"
            self.end("agentFailed", f"the agent failed turn {index} of the conversation ({why})")
            return None
        step = next_step(self.spec, text, self.revealed)
        if step.ends:
            self.end("answered")
            return None
        if index + 1 >= self.spec.turn_limit:
            unsaid = [fact.name for fact in self.spec.hidden if fact.name not in self.revealed]
            still = f"{', '.join(unsaid)} still unsaid" if unsaid else "the agent still asking"
            self.end(
                "turnLimit", f"the turn limit ({self.spec.turn_limit} agent turns) was reached with {still}"
            )
            return None
        return step

    async def customer_says(self, index: int, repetition: int, step: Step) -> str | None:
        """The customer's reply (None: it could not reply, and the conversation is over)."""
        try:
            said = await self.customer.reply(self.ticket, repetition, step, self.turns)
        except CustomerFailed as exc:
            self.end("customerFailed", str(exc))
            return None
        if said.usage is not None:
            self.customer_usage = self.customer_usage.plus(said.usage)
        now = [name for name in revealed_in(self.spec, said.text) if name not in self.revealed]
        self.revealed.extend(now)
        turn = ConversationTurn(
            index=index, speaker="customer", text=said.text, usage=said.usage, revealed=now
        )
        self.turns.append(turn)
        return said.text

    def conversed(self, last: AgentOutcome) -> Conversed:
        record = ConversationRecord(
            turns=self.turns,
            turn_limit=self.spec.turn_limit,
            ended=self.ended,
            reason=self.reason,
            customer="model" if self.customer.kind == "model" else "scripted",
            customer_model=self.customer.model,
            agent_usage=self.agent_usage,
            customer_usage=self.customer_usage,
        )
        outcome = replace(
            last,
            trajectory=joined(self.trajectories),
            usage=self.agent_usage,
            wall_seconds=time.monotonic() - self.started,
            transcript="\n".join(self.transcripts),
        )
        return Conversed(outcome, record)


def joined(parts: list[tuple[float, Trajectory]]) -> Trajectory | None:
    """Each turn's trajectory, its steps moved by when the turn started, as one (its first
    TRAJECTORY_MAX_STEPS steps kept, the rest counted as dropped); tokens summed where every turn told
    them."""
    if not parts:
        return None
    steps = []
    for offset, part in parts:
        for step in part.steps:
            moved = {
                "start": None if step.start is None else round(step.start + offset, 3),
                "end": None if step.end is None else round(step.end + offset, 3),
            }
            steps.append(step.model_copy(update=moved))
    trajectories = [part for _, part in parts]

    def total(counts: list[int | None]) -> int | None:
        return None if any(count is None for count in counts) else sum(count or 0 for count in counts)

    return Trajectory(
        agent=trajectories[-1].agent,
        steps=steps[:TRAJECTORY_MAX_STEPS],
        dropped_steps=sum(t.dropped_steps for t in trajectories) + max(0, len(steps) - TRAJECTORY_MAX_STEPS),
        input_tokens=total([t.input_tokens for t in trajectories]),
        output_tokens=total([t.output_tokens for t in trajectories]),
    )
