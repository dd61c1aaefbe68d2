"""The record step: one answered cell written into an answers tree (`io.answers`), off the event loop, and
sealed (`run.seal`): the MACs of what was written, under the run's evidence key, go to disk at once in the
cell's seal record (`io.seal_records`, for a killed phase's retry) and stay in this process's memory for
the manifest the phase seals when it ends.

What the judge phase needs to judge the cell later: the answer, the transcript, the trajectory, the exit
code and the cell's record (`cell.json`: the reason a cell has no answer, wall time, start time, usage).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from assay_runner.core.evidence import EvidenceKey
from assay_runner.io import answers as answer_store
from assay_runner.io import seal_records
from assay_runner.run.cell import Answered, cell_key
from assay_runner.run.seal import Seal, seal_of, seal_record
from assay_runner.suite.models import Ticket

T = TypeVar("T")
FileWork = Callable[[Callable[[], T]], Awaitable[T]]


class RecordStep:
    def __init__(self, answers_dir: Path, key: EvidenceKey, inputs: str, attempt: str | None = None) -> None:
        """`key`: the run's evidence key; `inputs`: what the cells are answered from (the manifest's
        `inputsDigest`); `attempt`: the uid of the answer pod this phase runs in (None outside a cluster)."""
        self.answers_dir = answers_dir
        self._key = key
        self._inputs = inputs
        self.attempt = attempt
        self._seals: dict[str, Seal] = {}
        self._answered_by: dict[str, str] = {}
        self._clean: set[str] = set()
        """Cells answered without an error: exit code 0, no error of their own (kept ones are, by
        definition of what a resumed phase keeps)."""
        self._lock = threading.Lock()

    def on(self, file_work: FileWork[Path]) -> Callable[[Ticket, int, Answered], Awaitable[Path]]:
        """The step as a phase runs it: writing on `file_work` (the pool's file-work thread)."""

        async def record(ticket: Ticket, repetition: int, answered: Answered) -> Path:
            return await file_work(partial(self.write, ticket.id, repetition, answered))

        return record

    def keep(self, cell: str, seal: Seal, answered_by: str | None) -> None:
        """A cell an earlier attempt wrote and sealed, kept as it is (a resumed phase)."""
        with self._lock:
            self._seals[cell] = seal
            if answered_by is not None:
                self._answered_by[cell] = answered_by
            self._clean.add(cell)

    def sealed(self, ticket_id: str, repetition: int) -> bool:
        with self._lock:
            return cell_key(ticket_id, repetition) in self._seals

    def seals(self) -> dict[str, Seal]:
        with self._lock:
            return dict(self._seals)

    def answered_by(self) -> dict[str, str] | None:
        """Which attempt (answer pod) answered each cell; None when no attempt was named."""
        with self._lock:
            return dict(self._answered_by) or None

    def clean(self) -> int:
        """How many cells were answered without an error."""
        with self._lock:
            return len(self._clean)

    def write(self, ticket_id: str, repetition: int, answered: Answered) -> Path:
        record = answer_store.CellRecord(
            exit_code=answered.exit_code,
            error=answered.error,
            wall_seconds=answered.wall_seconds,
            started_at=answered.started_at,
            usage=answered.usage,
            containment=answered.containment,
            isolation=answered.isolation,
            conversation=answered.conversation,
        )
        written = answer_store.write_cell(
            self.answers_dir,
            ticket_id,
            repetition,
            answer=answered.answer,
            transcript=answered.transcript,
            record=record,
            trajectory=answered.trajectory,
        )
        cell = cell_key(ticket_id, repetition)
        seal = seal_of(self._key, cell, written)
        # On disk before it counts as sealed: a phase killed from here on leaves this cell to its retry.
        seal_records.write_record(
            self.answers_dir, seal_record(self._key, cell, seal, self.attempt, self._inputs)
        )
        with self._lock:
            self._seals[cell] = seal
            if self.attempt is not None:
                self._answered_by[cell] = self.attempt
            else:
                self._answered_by.pop(cell, None)
            if answered.error is None and answered.exit_code == 0:
                self._clean.add(cell)
            else:
                self._clean.discard(cell)
        return self.answers_dir / ticket_id / str(repetition)
