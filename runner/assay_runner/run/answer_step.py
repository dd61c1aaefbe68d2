"""The answer step: one cell's agent, in a fresh workspace, within the pool's slots and the run's budget.

The pool (`run.scheduler`) decides when; this decides what: a cell whose turn comes after the budget was
spent is not started (no agent, nothing spent); otherwise the agent runs in the seat's workspace, and an
agent that changed its read-only brain/ or kb/ files has its cell blocked.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from assay_runner.agents.base import Agent, AgentOutcome, ConversingAgent, Workspace
from assay_runner.contract import ConversationRecord, Isolation, Trajectory, Usage
from assay_runner.conversation.customers import Customers
from assay_runner.conversation.loop import converse
from assay_runner.gateway.metering.attribution import attributed
from assay_runner.run.cell import Answered, cell_key, no_answer_left, unanswered
from assay_runner.run.scheduler import CellPool
from assay_runner.run.spending import Spending
from assay_runner.suite.models import Ticket
from assay_runner.views.progress import Counts

if TYPE_CHECKING:  # the proxy imports httpx: only a metered run needs it
    from assay_runner.gateway.metering.proxy import MeteringProxy
# The witness (`agents.trajectory.witness`) matches what the proxy saw against the KB's articles: it imports
# the text stack (markdown, sentences, folding; ~5 ms), which only a metered run needs, and is imported by
# one, when its first cell is answered.

MODIFIED_READ_ONLY = "the agent modified its read-only brain/ or kb/ files"
SETTLE_SECONDS = 30.0
"""How long a cell's last model reply may take to be read to its end after the agent is gone."""


@dataclass
class Tally:
    """The progress counts a phase keeps: cells running, done and failed (None: nobody watches)."""

    counts: Counts | None = None

    def starting(self, total: int) -> None:
        if self.counts is not None:
            self.counts.total = total

    def running(self, delta: int) -> None:
        if self.counts is not None:
            self.counts.running += delta
            self.counts.update()

    def note(self, message: str) -> None:
        if self.counts is not None:
            self.counts.update(message)

    def finished(self, failed: bool, message: str = "") -> None:
        if self.counts is not None:
            self.counts.done += 1
            self.counts.failed += int(failed)
            self.counts.update(message)


class AnswerStep:
    def __init__(
        self,
        pool: CellPool,
        agent: Agent,
        spending: Spending | None,
        tally: Tally,
        proxy: MeteringProxy | None = None,
        kb: Mapping[str, str] | None = None,
        customers: Customers | None = None,
        cell_seconds: float | None = None,
    ) -> None:
        """`proxy`: the agent's model traffic goes through it, on a URL of the cell's own, and the cell's
        usage is what it counted (else what the agent reported); its record of what reached the model is
        joined to the agent's trajectory, matched against the suite's `kb` articles (id -> text).
        `customers`: who answers the agent back on a conversational ticket, whose turns together take at
        most `cell_seconds` (`conversation.loop`)."""
        self.kb: dict[str, str] = {}
        if proxy is not None:
            from assay_runner.agents.trajectory.witness import normalised_kb

            self.kb = normalised_kb(kb or {})
        self.pool = pool
        self.agent = agent
        self.spending = spending
        self.tally = tally
        self.proxy = proxy
        self.customers = customers
        self.cell_seconds = cell_seconds

    async def answer(self, ticket: Ticket, repetition: int) -> Answered:
        cell = cell_key(ticket.id, repetition)
        async with self.pool.seat(ticket, repetition) as seat:
            if self.spending is not None and self.spending.exhausted():
                return unanswered(self.spending.not_started())  # the seat discards the untouched workspace
            workspace = seat.workspace
            if self.proxy is not None:
                access = self.proxy.open_cell(cell, workspace.root)
                workspace = replace(workspace, gateway=access.url, gateway_key=access.key)
            self.tally.running(+1)
            try:
                started_at = time.time()
                with attributed(cell):  # the chat agent's calls are this cell's, at the gateway sidecar
                    outcome, conversation, conversed = await self._agent(ticket, repetition, workspace)
            finally:
                self.tally.running(-1)
                if self.proxy is not None:
                    self.proxy.close_cell(cell)
        usage, error, trajectory = outcome.usage, outcome.error, outcome.trajectory
        if self.proxy is not None:
            usage, metering = await self._metered(cell)
            error = error or metering
            trajectory = await self._witnessed(cell, trajectory)
        error = error or conversed
        if not seat.intact:
            error = MODIFIED_READ_ONLY
        elif outcome.answer is None and error is None:
            error = no_answer_left(outcome.exit_code, outcome.out_of_memory)
        if seat.kept is not None:
            self.tally.note(f"{ticket.id}#{repetition} workspace kept at {seat.kept}")
        return Answered(
            answer=outcome.answer,
            exit_code=outcome.exit_code,
            error=error,
            transcript=outcome.transcript,
            files=outcome.files,
            wall_seconds=None if outcome.wall_seconds is None else round(outcome.wall_seconds, 3),
            started_at=started_at,
            usage=usage,
            trajectory=trajectory,
            containment=outcome.containment,
            isolation=outcome.isolation or Isolation(reason=f"the {self.agent.kind} agent runs no program"),
            conversation=conversation,
        )

    async def _agent(
        self, ticket: Ticket, repetition: int, workspace: Workspace
    ) -> tuple[AgentOutcome, ConversationRecord | None, str | None]:
        """The agent's run, or its conversation with the ticket's customer: the outcome, the conversation's
        record, and why the conversation blocks the cell."""
        if ticket.key.conversation is None or self.customers is None:
            return await self.agent.run(ticket, repetition, workspace), None, None
        agent: ConversingAgent = self.agent  # type: ignore[assignment]  # checked: `check_conversing`
        spending = self.spending
        conversed = await converse(
            agent,
            self.customers.of(ticket),
            ticket,
            repetition,
            workspace,
            seconds=self.cell_seconds,
            exhausted=lambda: spending.not_started() if spending and spending.exhausted() else None,
        )
        return conversed.outcome, conversed.record, conversed.error

    async def _witnessed(self, cell: str, trajectory: Trajectory | None) -> Trajectory | None:
        """The CLI's trajectory with what the proxy saw of the cell (the proxy's record is then let go). The
        matching runs on a thread: the other cells' replies keep streaming meanwhile."""
        assert self.proxy is not None
        from assay_runner.agents.trajectory.witness import witnessed

        record = self.proxy.witness.of(cell)
        self.proxy.witness.forget(cell)
        if trajectory is None:
            return None
        return await asyncio.to_thread(
            witnessed,
            trajectory,
            model_calls=self.proxy.ledger.cell(cell).requests,
            results=record.results,
            kb=self.kb,
            not_kept=record.not_kept,
        )

    async def _metered(self, cell: str) -> tuple[Usage, str | None]:
        """The cell's usage as the proxy counted it, once its last reply was read to its end; and why it
        cannot be trusted, if it cannot (it blocks the cell)."""
        assert self.proxy is not None
        ledger = self.proxy.ledger
        settled = await ledger.quiet(cell, SETTLE_SECONDS)
        spend = ledger.cell(cell)
        if not settled:
            return spend.usage(), (
                f"a model call was still in flight {SETTLE_SECONDS:g} s after the cell ended: its usage "
                "was not counted"
            )
        return spend.usage(), spend.error
