"""Small builders for unit tests: tickets, cases, verdicts and judge configurations as plain data."""

from __future__ import annotations

from assay_runner.contract import (
    GateSettings,
    JudgeConfigSummary,
    JudgeVerdict,
    PassCriterion,
    RepetitionResult,
    ResultConfig,
    TicketResult,
)
from assay_runner.judges.base import Case
from assay_runner.suite.models import AnswerKey, Ticket


def ticket(tid: str = "T-1", *, split: str = "validation", **key: object) -> Ticket:
    return Ticket.model_validate(
        {
            "id": tid,
            "split": split,
            "question": "How do I export my notes?",
            "key": AnswerKey.model_validate(key).model_dump(by_alias=True),
        }
    )


def case(answer: str, *, exit_code: int | None = 0, repetition: int = 1, **key: object) -> Case:
    return Case(ticket=ticket(**key), repetition=repetition, answer=answer, exit_code=exit_code)  # type: ignore[arg-type]


def v(score: float | None, *, applicable: bool = True, error: str | None = None) -> JudgeVerdict:
    return JudgeVerdict(score=score, reason="r", applicable=applicable, error=error)


def na() -> JudgeVerdict:
    return JudgeVerdict(score=None, reason="n/a", applicable=False)


def cfg(
    name: str,
    weight: float,
    threshold: float = 0.9,
    *,
    floor: float | None = None,
    scale: tuple[float, float] | None = None,
    type_: str = "code",
) -> JudgeConfigSummary:
    return JudgeConfigSummary(
        name=name, type=type_, weight=weight, threshold=threshold, floor=floor, scale=scale
    )


def config(
    judges: list[JudgeConfigSummary],
    *,
    min_score: float = 0.9,
    ticket_floor: float = 0.7,
    criterion: str = "allJudgesTop",
    min_pass_hat_k: float | None = None,
) -> ResultConfig:
    return ResultConfig(
        judges=judges,
        gate=GateSettings(min_score=min_score, ticket_floor=ticket_floor, min_pass_hat_k=min_pass_hat_k),
        pass_criterion=PassCriterion(kind=criterion),
    )  # type: ignore[arg-type]


def rep(index: int, verdicts: dict[str, JudgeVerdict], error: str | None = None) -> RepetitionResult:
    return RepetitionResult(index=index, score=0.0, passed=False, judges=verdicts, error=error)


def tres(tid: str, *reps: RepetitionResult) -> TicketResult:
    return TicketResult(id=tid, split="validation", score=0.0, passed=False, repetitions=list(reps))
