"""Judging answers already on disk (`assay score`) and reducing them to a verdict."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.contract import Inputs, RepetitionResult, Result
from assay_runner.core.digests import judges_digest, suite_digest
from assay_runner.core.results import build_result, now_iso, repetition_result, ticket_results
from assay_runner.io import answers as answer_store
from assay_runner.judges import AnyJudge, Case, build_judges
from assay_runner.judges.judging import judge_cell
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import Ticket

if TYPE_CHECKING:
    from assay_runner.gateway.access import ModelAccess


async def _score_cell(
    judges: list[AnyJudge], ticket: Ticket, recorded: answer_store.RecordedAnswer, limit: asyncio.Semaphore
) -> RepetitionResult:
    if recorded.answer is None:
        return repetition_result(
            recorded.repetition, {}, answer=None, exit_code=None, error=f"no answer file at {recorded.source}"
        )
    case = Case(
        ticket=ticket,
        repetition=recorded.repetition,
        answer=recorded.answer,
        exit_code=recorded.exit_code,
        transcript=recorded.transcript,
        files=recorded.files,
    )
    async with limit:
        verdicts = await judge_cell(judges, case)
    return repetition_result(
        recorded.repetition, verdicts, answer=recorded.answer, exit_code=recorded.exit_code
    )


async def score_answers(
    suite: Suite,
    answers_dir: Path,
    tickets: list[Ticket],
    k: int,
    *,
    access: ModelAccess | None = None,
    judge_model: str | None = None,
    concurrency: int = 4,
    run_name: str | None = None,
) -> Result:
    started = now_iso()
    recorded = answer_store.load_answers(answers_dir, [t.id for t in tickets], k)
    judges = build_judges(suite, access.client if access else None, judge_model)
    limit = asyncio.Semaphore(concurrency)
    by_id = {t.id: t for t in tickets}
    try:
        cells = await asyncio.gather(*(_score_cell(judges, by_id[r.ticket_id], r, limit) for r in recorded))
    finally:
        if access is not None:
            await access.aclose()
    keyed = {(r.ticket_id, r.repetition): cell for r, cell in zip(recorded, cells, strict=True)}
    inputs = Inputs(brain_digest=None, suite_digest=suite_digest(suite), judges_digest=judges_digest(suite))
    return build_result(
        suite,
        ticket_results(tickets, keyed),
        k,
        inputs,
        started_at=started,
        run_name=run_name or answers_dir.name,
        usage=access.meter.usage() if access else None,
    )
