"""One cell (a ticket answered once) as the answer step leaves it, whoever answered it.

Every phase is composed of three one-cell steps over this record:

- answer (`run.answer_step`): an agent answers in a fresh workspace -> `Answered`;
- judge (`run.judge_step`): the judges read an `Answered` -> the cell's `RepetitionResult`;
- record (`run.record_step`): an `Answered` goes into an answers tree (and comes back out of one,
  `run.recorded`, for the judge phase).

`assay run` is answer then judge; the answer phase (`assay answer`) is answer then record; the judge phase
and `assay score` read recorded cells and judge them; online judging judges one ad-hoc answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from assay_runner.agents.base import OUT_OF_MEMORY
from assay_runner.contract import ConversationRecord, Isolation, Trajectory, Usage
from assay_runner.vocabulary import Containment

Cell = tuple[str, int]
"""(ticket id, repetition)."""


def cell_key(ticket_id: str, repetition: int) -> str:
    """A cell's name in an answers tree, a ledger and a cassette: `ticket/repetition`."""
    return f"{ticket_id}/{repetition}"


@dataclass(frozen=True)
class Answered:
    answer: str | None
    """None when there is no answer to judge (the agent left none, the cell never ran)."""
    exit_code: int | None
    """None when no agent process ended (not started, not reached)."""
    error: str | None = None
    """Why the cell cannot count as answered (it blocks): no answer, not started, the agent modified its
    read-only files, the phase stopped first."""
    transcript: str = ""
    files: Mapping[str, str] = field(default_factory=dict)
    """Other text files the agent left (path -> text), for code judges."""
    wall_seconds: float | None = None
    started_at: float | None = None
    """When the agent started (seconds since the epoch)."""
    usage: Usage | None = None
    trajectory: Trajectory | None = None
    """The agent's steps (model turns, tool calls with results, errors), when its transcript tells them."""
    containment: Containment | None = None
    """What ended every process the cell's agent started (None: it ran none)."""
    isolation: Isolation | None = None
    """The sandbox the agent's program ran in (None: no agent ran, or recorded before it was recorded)."""
    conversation: ConversationRecord | None = None
    """A conversational ticket's exchange, as the runner kept it (None: one question, one answer)."""

    @property
    def ok(self) -> bool:
        """An answer, a clean exit and nothing that blocks on its own."""
        return self.answer is not None and self.exit_code == 0 and self.error is None

    def summary(self, cell: Cell) -> str:
        """A progress line: `T-1#2 exit 0 in 3.2s`, and why it failed when it did."""
        ticket, repetition = cell
        line = f"{ticket}#{repetition} exit {self.exit_code}"
        if self.wall_seconds is not None:
            line += f" in {self.wall_seconds:.1f}s"
        return f"{line} {self.error}" if self.error else line


def unanswered(error: str, exit_code: int | None = None) -> Answered:
    return Answered(answer=None, exit_code=exit_code, error=error)


def no_answer_left(exit_code: int | None, out_of_memory: bool = False) -> str:
    why = f": {OUT_OF_MEMORY}" if out_of_memory else ""
    return f"the agent left no answer (exit code {exit_code}{why})"
