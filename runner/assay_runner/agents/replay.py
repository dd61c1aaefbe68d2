"""The `replay` agent: recorded answers instead of a live agent, for re-scoring after a judge changes."""

from __future__ import annotations

from pathlib import Path

from assay_runner.agents.base import AgentOutcome, Workspace
from assay_runner.io.answers import read_cell
from assay_runner.suite.models import Ticket


class ReplayAgent:
    kind = "replay"

    def __init__(self, answers: Path, repetitions: int) -> None:
        self.answers = answers
        self.repetitions = repetitions

    async def run(self, ticket: Ticket, repetition: int, workspace: Workspace) -> AgentOutcome:
        recorded = read_cell(self.answers, ticket.id, repetition, self.repetitions)
        if recorded.answer is None:
            return AgentOutcome(
                exit_code=1,
                answer=None,
                transcript=f"no recorded answer at {recorded.source}",
                error=f"no answer file at {recorded.source}",
            )
        return AgentOutcome(
            exit_code=recorded.exit_code if recorded.exit_code is not None else 0,
            answer=recorded.answer,
            transcript=recorded.transcript,
            files=recorded.files,
            trajectory=recorded.trajectory,
            # The recorded agent's time when the answer phase wrote it (`cell.json`); a replay takes none.
            wall_seconds=recorded.record.wall_seconds if recorded.record is not None else None,
        )
