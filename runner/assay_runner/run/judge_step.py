"""The judge step: the judges read one answered cell, and the cell's result comes out.

A cell no agent ended in (not started, never reached) is recorded with its reason and no judge runs; a
cell whose agent crashed, timed out or left no answer is judged like any other (on an empty answer: the
exit-code judge says "timed out") and its error blocks through the gate's `complete` rule. Every judge runs
within its budget (`judges.judging`), outside any agent slot,
so judging overlaps the next agents. `limit` bounds how many cells are judged at once when nothing else
does (the judge phase reads every cell at once; a run's cells are already paced by their agents).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence

from assay_runner.contract import JudgeVerdict, RepetitionResult
from assay_runner.core.results import repetition_result
from assay_runner.judges import AnyJudge, Case
from assay_runner.judges.judging import judge_cell
from assay_runner.run.cell import Answered
from assay_runner.suite.models import Ticket


class JudgeStep:
    def __init__(self, judges: Sequence[AnyJudge], *, limit: int | None = None, online: bool = False) -> None:
        self.judges = judges
        self.online = online
        self._limit = asyncio.Semaphore(limit) if limit is not None else None

    async def judge(self, ticket: Ticket, repetition: int, answered: Answered) -> RepetitionResult:
        if answered.answer is None and answered.exit_code is None:
            return unjudged(repetition, answered)  # no agent ended: nothing to judge
        case = Case(
            ticket=ticket,
            repetition=repetition,
            answer=answered.answer or "",
            exit_code=answered.exit_code,
            transcript=answered.transcript,
            files=answered.files,
            trajectory=answered.trajectory,
            conversation=answered.conversation,
            online=self.online,
        )
        async with self._limit or contextlib.nullcontext():
            judging = time.monotonic()
            verdicts = await judge_cell(self.judges, case)
            seconds = round(time.monotonic() - judging, 4)
        return _result(repetition, answered, verdicts, judge_seconds=seconds)


def unjudged(repetition: int, answered: Answered) -> RepetitionResult:
    """A cell with nothing to judge, recorded with its reason (it blocks)."""
    return _result(repetition, answered, {})


def _result(
    repetition: int,
    answered: Answered,
    verdicts: dict[str, JudgeVerdict],
    judge_seconds: float | None = None,
) -> RepetitionResult:
    return repetition_result(
        repetition,
        verdicts,
        answer=answered.answer,
        exit_code=answered.exit_code,
        error=answered.error,
        transcript=answered.transcript or None,
        wall_seconds=answered.wall_seconds,
        started_at=answered.started_at,
        usage=answered.usage,
        judge_seconds=judge_seconds,
        trajectory=answered.trajectory,
        containment=answered.containment,
        isolation=answered.isolation,
        conversation=answered.conversation,
    )
