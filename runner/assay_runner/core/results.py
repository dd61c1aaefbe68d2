"""Building the Result from judged cells: shared by `assay score`, `assay run` and `assay judge`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Literal

from assay_runner.contract import (
    ConversationCost,
    ConversationRecord,
    GateSettings,
    Inputs,
    Isolation,
    JudgeConfigSummary,
    JudgeVerdict,
    MlflowRef,
    RepetitionResult,
    Result,
    ResultConfig,
    RunRequest,
    TicketResult,
    Trajectory,
    Usage,
)
from assay_runner.core.scorecard import assemble
from assay_runner.suite.calibration import shadow_reasons
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import Ticket
from assay_runner.vocabulary import Containment

TRANSCRIPT_KEPT = 16 * 1024  # the result keeps a transcript's tail; MLflow gets the whole transcript


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def result_config(
    suite: Suite, gate: GateSettings | None = None, unpriced: list[str] | None = None
) -> ResultConfig:
    """The judges as the gate reads them: a shadow judge carries why it does not gate (declared, or not
    calibrated as the suite requires)."""
    shadow = shadow_reasons(suite.spec, suite.files)
    judges = [
        JudgeConfigSummary(
            name=spec.name,
            type=spec.type_name(),
            weight=spec.weight,
            threshold=spec.threshold,
            floor=spec.floor,
            scale=spec.scale_bounds() if spec.scale_bounds() != (0.0, 1.0) else None,
            shadow=shadow.get(spec.name),
        )
        for spec in suite.spec.judges
    ]
    return ResultConfig(
        judges=judges,
        gate=gate or suite.spec.gate,
        pass_criterion=suite.spec.pass_criterion,
        unpriced=unpriced,
    )


def answer_digest(answer: str | None) -> str | None:
    return None if answer is None else f"sha256:{hashlib.sha256(answer.encode()).hexdigest()}"


def answers_digest(cells: Mapping[tuple[str, int], RepetitionResult]) -> str:
    """The answers a verdict was made on, when no sealed tree names them (`assay run`)."""
    listing = {f"{ticket}/{rep}": cell.answer_digest for (ticket, rep), cell in sorted(cells.items())}
    return f"sha256:{hashlib.sha256(json.dumps(listing, sort_keys=True).encode()).hexdigest()}"


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
    trajectory: Trajectory | None = None,
    containment: Containment | None = None,
    isolation: Isolation | None = None,
    conversation: ConversationRecord | None = None,
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
        answer_digest=answer_digest(answer),
        transcript=transcript or None,
        started_at=started_at,
        wall_seconds=wall_seconds,
        judge_seconds=judge_seconds,
        usage=usage,
        trajectory=trajectory,
        containment=containment,
        isolation=isolation,
        conversation=conversation,
    )


def ticket_results(
    tickets: Sequence[Ticket], cells: Mapping[tuple[str, int], RepetitionResult]
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


def conversations_of(tickets: Sequence[TicketResult]) -> list[ConversationRecord]:
    return [rep.conversation for t in tickets for rep in t.repetitions if rep.conversation is not None]


def conversation_cost(tickets: Sequence[TicketResult]) -> ConversationCost | None:
    """What the conversations cost, agent and customer apart; None when no cell was a conversation."""
    records = conversations_of(tickets)
    if not records:
        return None
    cost = ConversationCost(conversations=len(records))
    for record in records:
        cost.turns += record.agent_turns
        cost.agent = cost.agent.plus(record.agent_usage)
        cost.customer = cost.customer.plus(record.customer_usage)
    return cost


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
    request: RunRequest | None = None,
    unpriced: list[str] | None = None,
) -> Result:
    """`unpriced`: who called a model the run had no price for (None: not known, which blocks a cost rule)."""
    config = result_config(suite, gate, unpriced)
    card = assemble(tickets, config, k, mlflow, usage=usage)
    return Result(
        run_name=run_name,
        suite=suite.name,
        mode=mode,
        inputs=inputs,
        usage=usage or Usage(),
        conversations=conversation_cost(tickets),
        mlflow=mlflow or MlflowRef(),
        config=config,
        selection=[ticket.id for ticket in tickets],
        request=request,
        started_at=started_at,
        finished_at=now_iso(),
        **card.as_update(),
    )
