"""The record step: one answered cell written into an answers tree (`io.answers`), off the event loop.

What the judge phase needs to judge the cell later, and nothing it must not trust more than the agent:
the answer, the transcript, the exit code and the cell's record (`cell.json`: the reason a cell has no
answer, wall time, start time, usage).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from assay_runner.io import answers as answer_store
from assay_runner.run.cell import Answered
from assay_runner.suite.models import Ticket

T = TypeVar("T")
FileWork = Callable[[Callable[[], T]], Awaitable[T]]


class RecordStep:
    def __init__(self, answers_dir: Path, file_work: FileWork[Path] | None = None) -> None:
        """`file_work`: where writing runs (the pool's file-work thread); `record` needs it."""
        self.answers_dir = answers_dir
        self.file_work = file_work

    async def record(self, ticket: Ticket, repetition: int, answered: Answered) -> Path:
        assert self.file_work is not None, "recording off the event loop needs the pool's file work"
        return await self.file_work(partial(self.write, ticket.id, repetition, answered))

    def written(self, ticket_id: str, repetition: int) -> bool:
        """Whether the cell is complete in the tree (its record is written last)."""
        return (self.answers_dir / ticket_id / str(repetition) / answer_store.CELL_FILE).is_file()

    def write(self, ticket_id: str, repetition: int, answered: Answered) -> Path:
        record = answer_store.CellRecord(
            exit_code=answered.exit_code,
            error=answered.error,
            wall_seconds=answered.wall_seconds,
            started_at=answered.started_at,
            usage=answered.usage,
        )
        return answer_store.write_cell(
            self.answers_dir,
            ticket_id,
            repetition,
            answer=answered.answer,
            transcript=answered.transcript,
            record=record,
        )
