"""Judging answers already on disk (`assay score`, and the judge phase `assay score --config`) and reducing
them to a verdict."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.contract import GateSettings, Inputs, RepetitionResult, Result, Usage
from assay_runner.core.digests import judges_digest, suite_digest, tickets_digest
from assay_runner.core.results import build_result, now_iso, repetition_result, ticket_results
from assay_runner.io import answers as answer_store
from assay_runner.judges import AnyJudge, Case, build_judges
from assay_runner.judges.judging import judge_cell
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import Ticket

if TYPE_CHECKING:
    from assay_runner.gateway.access import ModelAccess
    from assay_runner.gateway.usage import Price


def missing_reason(
    recorded: answer_store.RecordedAnswer, manifest: answer_store.AnswersManifest | None
) -> str:
    """Why a cell has no answer, as precisely as the tree tells: the cell's own record, else the answer
    phase's state, else only that the file is missing."""
    record = recorded.record
    if record is not None:
        if record.error:
            return record.error
        return f"the agent left no answer (exit code {record.exit_code})"
    if manifest is not None and manifest.finished_at is None:
        return f"{answer_store.NOT_REACHED}: it did not finish (killed, out of memory or out of time?)"
    if manifest is not None and manifest.stopped:
        return f"{answer_store.NOT_REACHED}: {manifest.stopped}"
    if manifest is not None:
        return f"{answer_store.NOT_REACHED} (no answer file at {recorded.source})"
    return f"no answer file at {recorded.source}"


async def _score_cell(
    judges: list[AnyJudge],
    ticket: Ticket,
    recorded: answer_store.RecordedAnswer,
    limit: asyncio.Semaphore,
    manifest: answer_store.AnswersManifest | None = None,
) -> RepetitionResult:
    record = recorded.record or answer_store.CellRecord()
    if recorded.answer is None:
        return repetition_result(
            recorded.repetition,
            {},
            answer=None,
            exit_code=recorded.exit_code,
            error=missing_reason(recorded, manifest),
            transcript=recorded.transcript or None,
            wall_seconds=record.wall_seconds,
            started_at=record.started_at,
            usage=record.usage,
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
        judging = time.monotonic()
        verdicts = await judge_cell(judges, case)
        judge_seconds = round(time.monotonic() - judging, 4)
    return repetition_result(
        recorded.repetition,
        verdicts,
        answer=recorded.answer,
        exit_code=recorded.exit_code,
        error=record.error,
        transcript=recorded.transcript or None,
        judge_seconds=judge_seconds,
        wall_seconds=record.wall_seconds,
        started_at=record.started_at,
        usage=record.usage,
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
    inputs: Inputs | None = None,
    gate: GateSettings | None = None,
    agent_price: Price | None = None,
) -> Result:
    """`inputs` and `gate`: the judge phase's (digests of what was mounted, the effective gate); the
    suite's own otherwise. `agent_price` prices the usage the answer phase recorded per cell."""
    started = now_iso()
    suite_ids = [t.id for t in suite.tickets]
    recorded = answer_store.load_answers(answers_dir, [t.id for t in tickets], k, suite_ids)
    manifest = answer_store.read_manifest(answers_dir)
    judges = build_judges(suite, access.client if access else None, judge_model)
    limit = asyncio.Semaphore(concurrency)
    by_id = {t.id: t for t in tickets}
    try:
        cells = await asyncio.gather(
            *(_score_cell(judges, by_id[r.ticket_id], r, limit, manifest) for r in recorded)
        )
    finally:
        if access is not None:
            await access.aclose()
    keyed = {(r.ticket_id, r.repetition): cell for r, cell in zip(recorded, cells, strict=True)}
    if inputs is None:
        inputs = Inputs(
            brain_digest=None,
            suite_digest=suite_digest(suite),
            judges_digest=judges_digest(suite, gate),
            tickets_digest=tickets_digest([t.id for t in tickets]),
        )
    return build_result(
        suite,
        ticket_results(tickets, keyed),
        k,
        inputs,
        started_at=started,
        run_name=run_name or answers_dir.name,
        usage=_usage(access, cells, agent_price),
        gate=gate,
    )


def _usage(access: ModelAccess | None, cells: list[RepetitionResult], price: Price | None) -> Usage:
    """The judges' calls (metered here) plus what the answer phase recorded for the agent, per cell."""
    judged = access.meter.usage() if access else Usage()
    reported = [c.usage for c in cells if c.usage is not None]
    inputs = sum(u.input_tokens for u in reported)
    outputs = sum(u.output_tokens for u in reported)
    cost = sum(u.cost_usd for u in reported)
    if price is not None and not cost:
        cost = (inputs * price.input_per_million + outputs * price.output_per_million) / 1e6
    return Usage(
        input_tokens=judged.input_tokens + inputs,
        output_tokens=judged.output_tokens + outputs,
        cost_usd=round(judged.cost_usd + cost, 6),
    )
