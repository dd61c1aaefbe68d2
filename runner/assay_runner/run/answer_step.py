"""The answer step: one cell's agent, in a fresh workspace, within the pool's slots and the run's budget.

The pool (`run.scheduler`) decides when; this decides what: a cell whose turn comes after the budget was
spent is not started (no agent, nothing spent); otherwise the agent runs in the seat's workspace, and an
agent that changed its read-only brain/ or kb/ files has its cell blocked.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from assay_runner.agents.base import Agent
from assay_runner.run.cell import Answered, no_answer_left, unanswered
from assay_runner.run.scheduler import CellPool
from assay_runner.run.spending import Spending
from assay_runner.suite.models import Ticket
from assay_runner.views.progress import Counts

MODIFIED_READ_ONLY = "the agent modified its read-only brain/ or kb/ files"


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
    def __init__(self, pool: CellPool, agent: Agent, spending: Spending | None, tally: Tally) -> None:
        self.pool = pool
        self.agent = agent
        self.spending = spending
        self.tally = tally

    async def answer(self, ticket: Ticket, repetition: int) -> Answered:
        async with self.pool.seat(ticket, repetition) as seat:
            if self.spending is not None and self.spending.exhausted():
                return unanswered(self.spending.not_started())  # the seat discards the untouched workspace
            self.tally.running(+1)
            try:
                started_at = time.time()
                outcome = await self.agent.run(ticket, repetition, seat.workspace)
            finally:
                self.tally.running(-1)
        error = outcome.error
        if not seat.intact:
            error = MODIFIED_READ_ONLY
        elif outcome.answer is None and error is None:
            error = no_answer_left(outcome.exit_code)
        if seat.kept is not None:
            self.tally.note(f"{ticket.id}#{repetition} workspace kept at {seat.kept}")
        return Answered(
            answer=outcome.answer,
            exit_code=outcome.exit_code,
            error=error,
            transcript=outcome.transcript,
            files=outcome.files,
            wall_seconds=round(outcome.wall_seconds, 3),
            started_at=started_at,
            usage=outcome.usage,
        )
