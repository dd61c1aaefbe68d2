"""Judging cells and building the Result: shared by `assay score`, `assay run` and `assay judge`.

Every judge call is wrapped so that an exception becomes a judge error on that cell — the run goes on and
the verdict fails closed — instead of crashing the evaluation and losing the other tickets' work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Literal

from assay_runner.contract import (
    GateSettings,
    Inputs,
    JudgeConfigSummary,
    JudgeVerdict,
    MlflowRef,
    RepetitionResult,
    Result,
    ResultConfig,
    TicketResult,
    Usage,
)
from assay_runner.judges import AnyJudge, AsyncJudge, Case
from assay_runner.judges.base import failed, not_applicable
from assay_runner.judges.code import last_traceback_line
from assay_runner.scorecard import assemble
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import Ticket

TRANSCRIPT_KEPT = 16 * 1024  # the result keeps a transcript's tail; MLflow gets the whole transcript


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


async def judge_one(judge: AnyJudge, case: Case) -> JudgeVerdict:
    if case.online and judge.needs_key:
        return not_applicable("needs an answer key; online judging has none")
    try:
        if isinstance(judge, AsyncJudge):
            return await judge.judge_async(case)
        return judge.judge(case)
    except Exception as exc:  # fail closed: a crashing judge blocks, it does not crash the run
        return failed(last_traceback_line(exc))


async def judge_cell(judges: Sequence[AnyJudge], case: Case) -> dict[str, JudgeVerdict]:
    verdicts = await asyncio.gather(*(judge_one(judge, case) for judge in judges))
    return {judge.name: verdict for judge, verdict in zip(judges, verdicts, strict=True)}


def result_config(suite: Suite, gate: GateSettings | None = None) -> ResultConfig:
    judges = [
        JudgeConfigSummary(
            name=spec.name,
            type=spec.type_name(),
            weight=spec.weight,
            threshold=spec.threshold,
            floor=spec.floor,
            scale=spec.scale_bounds() if spec.scale_bounds() != (0.0, 1.0) else None,
        )
        for spec in suite.spec.judges
    ]
    return ResultConfig(judges=judges, gate=gate or suite.spec.gate, pass_criterion=suite.spec.pass_criterion)


def repetition_result(
    index: int,
    verdicts: dict[str, JudgeVerdict],
    *,
    answer: str | None,
    exit_code: int | None,
    error: str | None = None,
    wall_seconds: float | None = None,
    usage: Usage | None = None,
    transcript: str | None = None,
    started_at: float | None = None,
    judge_seconds: float | None = None,
) -> RepetitionResult:
    # score and passed are placeholders: `assemble` derives them from the verdicts.
    if transcript is not None and len(transcript) > TRANSCRIPT_KEPT:
        transcript = "[... transcript truncated ...]\n" + transcript[-TRANSCRIPT_KEPT:]
    return RepetitionResult(
        index=index,
        score=0.0,
        passed=False,
        exit_code=exit_code,
        error=error,
        judges=verdicts,
        answer=answer,
        transcript=transcript or None,
        started_at=started_at,
        wall_seconds=wall_seconds,
        judge_seconds=judge_seconds,
        usage=usage,
    )


def ticket_results(
    tickets: Sequence[Ticket], cells: dict[tuple[str, int], RepetitionResult]
) -> list[TicketResult]:
    by_ticket: dict[str, list[RepetitionResult]] = {}
    for (ticket_id, _), cell in cells.items():
        by_ticket.setdefault(ticket_id, []).append(cell)
    return [
        TicketResult(
            id=ticket.id,
            split=ticket.split,
            question=ticket.question,
            key=ticket.key.model_dump(mode="json", by_alias=True),
            score=0.0,
            passed=False,
            repetitions=sorted(by_ticket.get(ticket.id, []), key=lambda r: r.index),
        )
        for ticket in tickets
    ]


def build_result(
    suite: Suite,
    tickets: Sequence[TicketResult],
    k: int,
    inputs: Inputs,
    *,
    started_at: str,
    run_name: str | None = None,
    usage: Usage | None = None,
    mlflow: MlflowRef | None = None,
    gate: GateSettings | None = None,
    mode: Literal["release", "online"] = "release",
) -> Result:
    config = result_config(suite, gate)
    card = assemble(tickets, config, k, mlflow)
    return Result(
        run_name=run_name,
        suite=suite.name,
        mode=mode,
        inputs=inputs,
        usage=usage or Usage(),
        mlflow=mlflow or MlflowRef(),
        config=config,
        started_at=started_at,
        finished_at=now_iso(),
        **card.as_update(),
    )
