"""What a stored result.json must satisfy before anything is decided from it (`gate`, `compare`, `report`).

The schema (pydantic) checks types; this checks what types cannot: values in range, nothing duplicated,
every cell judged by every configured judge, "not applicable" only where the judge type can be not
applicable, and the stored verdict and score agreeing with what the stored judge verdicts give. A file
edited by hand usually breaks one of these; one edited carefully is caught by `assay gate --verify`,
which judges the stored answers again (`assay_runner.run.verify`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from pydantic import ValidationError

from assay_runner.contract import (
    RESULT_SCHEMA_VERSION,
    JudgeConfigSummary,
    Result,
    TicketResult,
    has_own_scale,
    threshold_problem,
)
from assay_runner.core.scorecard import assemble
from assay_runner.core.scoring import EPSILON
from assay_runner.suite.models import JUDGE_KINDS, AnswerKey

MAX_REPETITIONS = 100  # as RunConfig.repetitions
Issue = tuple[str, str]
"""(field, what is wrong)."""


def check_result(result: Result) -> list[Issue]:
    issues = list(_header(result))
    if issues:
        return issues  # the rest relies on a sane header (k, the judges)
    issues += _tickets(result)
    if not issues:
        issues += _derived(result)
    return issues


def _unit(value: float | None) -> bool:
    return value is None or (math.isfinite(value) and 0.0 <= value <= 1.0)


def _header(result: Result) -> Iterator[Issue]:
    if result.schema_version != RESULT_SCHEMA_VERSION:
        yield "schemaVersion", f"unknown schema version {result.schema_version} (this Assay reads 1)"
    k = result.repetitions.k
    if not 1 <= k <= MAX_REPETITIONS:
        yield "repetitions.k", f"must be in [1, {MAX_REPETITIONS}], got {k}"
    names = [j.name for j in result.config.judges]
    if not names:
        yield "config.judges", "the result has no judges"
    for name in sorted({n for n in names if names.count(n) > 1}):
        yield "config.judges", f"judge {name!r} appears more than once"
    for index, judge in enumerate(result.config.judges):
        yield from _judge_config(f"config.judges[{index}]", judge)
    if not any(j.weight > 0 for j in result.config.judges):
        yield "config.judges", "no judge has a weight above 0"
    criterion = result.config.pass_criterion
    if criterion.kind == "minTicketScore" and criterion.min_ticket_score is None:
        yield "config.passCriterion.minTicketScore", "missing"


def _judge_config(where: str, judge: JudgeConfigSummary) -> Iterator[Issue]:
    if judge.type not in JUDGE_KINDS:
        yield f"{where}.type", f"unknown judge type {judge.type!r}"
    if not (math.isfinite(judge.weight) and 0 <= judge.weight <= 1000):
        yield f"{where}.weight", f"must be in [0, 1000], got {judge.weight}"
    low, high = judge.scale or (0.0, 1.0)
    if judge.scale is not None and (not has_own_scale(judge.type) or not (math.isfinite(low) and low < high)):
        yield f"{where}.scale", f"must be [low, high] with low < high, on a model judge; got {judge.scale}"
        return
    for label, value in (("threshold", judge.threshold), ("floor", judge.floor)):
        problem = None if value is None else threshold_problem(label, value, (low, high))
        if problem is not None:
            yield f"{where}.{label}", problem


def not_applicable_allowed(judge: JudgeConfigSummary, key: AnswerKey, exit_code: int | None) -> bool:
    """May this judge type be not applicable on this cell? Only where a fresh run could make it so."""
    kind = JUDGE_KINDS.get(judge.type)
    return kind is not None and kind.may_not_apply(key, exit_code)


def _key(ticket: TicketResult) -> AnswerKey | None:
    try:
        return AnswerKey.model_validate(ticket.key or {})
    except ValidationError:
        return None


def _tickets(result: Result) -> Iterator[Issue]:
    k = result.repetitions.k
    configs = {j.name: j for j in result.config.judges}
    seen: set[str] = set()
    for t_index, ticket in enumerate(result.tickets):
        where = f"tickets[{t_index}]"
        if ticket.id in seen:
            yield f"{where}.id", f"ticket {ticket.id!r} appears more than once"
        seen.add(ticket.id)
        key = _key(ticket)
        if key is None:
            yield f"{where}.key", "not an answer key (kb, mustMention, forbidden, shouldAbstain, ...)"
            continue
        indices = [rep.index for rep in ticket.repetitions]
        for index in sorted({i for i in indices if indices.count(i) > 1}):
            yield f"{where}.repetitions", f"repetition {index} appears more than once"
        for r_index, rep in enumerate(ticket.repetitions):
            cell = f"{where}.repetitions[{r_index}]"
            if not 1 <= rep.index <= k:
                yield f"{cell}.index", f"must be in [1, k={k}], got {rep.index}"
            if not _unit(rep.score):
                yield f"{cell}.score", f"must be in [0, 1], got {rep.score}"
            if rep.error is None:
                for name in configs:
                    if name not in rep.judges:
                        yield f"{cell}.judges", f"no verdict of judge {name!r}"
            for name, verdict in rep.judges.items():
                at = f"{cell}.judges.{name}"
                config = configs.get(name)
                if config is None:
                    yield at, f"judge {name!r} is not in the result's config"
                    continue
                if not _unit(verdict.score):
                    yield f"{at}.score", f"must be in [0, 1], got {verdict.score}"
                if verdict.applicable and verdict.error is None and verdict.score is None:
                    yield f"{at}.score", "an applicable verdict without an error needs a score"
                if not verdict.applicable and verdict.score is not None:
                    yield f"{at}.score", "a verdict that does not apply has no score"
                if not verdict.applicable and not not_applicable_allowed(config, key, rep.exit_code):
                    yield f"{at}.applicable", f"a {config.type} judge cannot be not applicable here"
                low, high = config.scale or (0.0, 1.0)
                for raw in [verdict.raw, *(verdict.samples or [])]:
                    if raw is not None and not (math.isfinite(raw) and low <= raw <= high):
                        yield f"{at}.raw", f"must be on the judge's scale [{low:g}, {high:g}], got {raw}"
        if len(ticket.repetitions) > k:
            yield f"{where}.repetitions", f"{len(ticket.repetitions)} repetitions, more than k={k}"


def _derived(result: Result) -> Iterator[Issue]:
    """The stored verdict and score must be what the stored judge verdicts give."""
    card = assemble(result.tickets, result.config, result.repetitions.k, result.mlflow, usage=result.usage)
    # Blocked where the cells give Pass is allowed: something beyond the cells may block (`--verify`).
    if result.verdict == "Pass" and card.verdict != "Pass":
        yield "verdict", f"says {result.verdict}, but its judge verdicts give {card.verdict}"
    if not (math.isfinite(result.score) and abs(card.score - result.score) <= EPSILON):
        yield "score", f"says {result.score}, but its judge verdicts give {card.score:.6g}"
