"""The gate's limits on time and cost (core.limits) and the flaky tickets, on plain data: each rule decides a
run the mean passes, names its offenders, fails closed on what is missing, and is recomputed by a re-gate,
the RunSummary, the status and MLflow's records."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pydantic import ValidationError

from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build import runconfig
from assay_operator.evaluation.read.reconcile import verdict_status
from assay_operator.settings import Settings
from assay_runner.contract import (
    AnswerSecondsPercentile,
    GateSettings,
    Inputs,
    RepetitionResult,
    Result,
    ResultConfig,
    TicketResult,
    Usage,
)
from assay_runner.core.digests import _gate_wire
from assay_runner.core.limits import LIMIT_RULES, nearest_rank
from assay_runner.core.regate import regate
from assay_runner.core.scorecard import Scorecard, assemble
from assay_runner.core.summary import FLAKY_TICKETS_SHOWN, summarise
from assay_runner.errors import InputError
from assay_runner.io.tracking.run_data import metrics_of, params_of, tags_of
from assay_runner.run.preparation import prepare
from assay_runner.views.report import render_report
from assay_runner.views.report.overview import RULE_TITLES
from assay_runner.vocabulary import GateRule
from tests.unit.builders import cfg, config, rep, tres, v

A = cfg("a", 1.0)


def cell(
    index: int, *, seconds: float | None = 1.0, cost: float | None = 0.01, score: float = 1.0
) -> RepetitionResult:
    usage = None if cost is None else Usage(input_tokens=100, output_tokens=10, cost_usd=cost)
    return rep(index, {"a": v(score)}).model_copy(update={"wall_seconds": seconds, "usage": usage})


def with_gate(unpriced: list[str] | None = None, **limits: object) -> ResultConfig:
    base = config([A])
    gate = GateSettings.model_validate({**base.gate.model_dump(), **limits})
    return base.model_copy(update={"gate": gate, "unpriced": unpriced})


def rule_of(card: Scorecard, name: GateRule):  # type: ignore[no-untyped-def]
    return next(r for r in card.rules if r.name == name)


def fast_and_one_slow() -> list[TicketResult]:
    """Ten perfect tickets, one answered in 200 s: the mean and every score rule pass."""
    tickets = [tres(f"T-{i}", cell(1, seconds=2.0 + i)) for i in range(9)]
    return [*tickets, tres("T-SLOW", cell(1, seconds=200.0))]


def test_max_answer_seconds_blocks_a_run_the_mean_passes_and_names_the_slow_ticket() -> None:
    card = assemble(fast_and_one_slow(), with_gate(max_answer_seconds=60.0), 1)
    assert rule_of(card, GateRule.SCORE).passed and rule_of(card, GateRule.TICKET_FLOOR).passed
    limit = rule_of(card, GateRule.MAX_ANSWER_SECONDS)
    assert not limit.passed and card.verdict == "Blocked"
    assert limit.value == 200.0 and limit.threshold == 60.0
    assert limit.offenders == ["T-SLOW"]
    assert "T-SLOW#1 200s" in limit.detail
    assert any(reason.startswith("maxAnswerSeconds: 1 cell(s) over 60s") for reason in card.reasons)


def test_within_the_limit_passes_and_says_the_slowest() -> None:
    card = assemble(fast_and_one_slow(), with_gate(max_answer_seconds=250.0), 1)
    limit = rule_of(card, GateRule.MAX_ANSWER_SECONDS)
    assert limit.passed and card.verdict == "Pass"
    assert "highest 200s, T-SLOW#1" in limit.detail


@pytest.mark.parametrize(
    ("values", "percentile", "expected"),
    [
        (list(range(1, 21)), 95, 19),  # ceil(0.95 x 20) = 19th
        (list(range(1, 21)), 100, 20),
        (list(range(1, 21)), 50, 10),
        ([5.0], 95, 5.0),
        ([3.0, 1.0, 2.0], 1, 1.0),  # ceil(0.03) = 1st, never the 0th
        (list(range(1, 101)), 99.5, 100),
    ],
)
def test_nearest_rank(values: list[float], percentile: float, expected: float) -> None:
    assert nearest_rank(values, percentile) == expected


def test_percentile_blocks_on_the_tail_while_the_median_is_fast() -> None:
    # 20 cells: 18 fast, 2 slow; p90 is the 18th smallest (fast), p95 the 19th (slow).
    tickets = [tres(f"T-{i:02}", cell(1, seconds=5.0)) for i in range(18)]
    tickets += [tres("T-S1", cell(1, seconds=90.0)), tres("T-S2", cell(1, seconds=120.0))]
    p95 = rule_of(
        assemble(tickets, with_gate(answer_seconds_percentile={"percentile": 95, "maxSeconds": 60}), 1),
        GateRule.ANSWER_SECONDS_PERCENTILE,
    )
    assert not p95.passed and p95.value == 90.0 and p95.threshold == 60.0
    assert p95.offenders == ["T-S2", "T-S1"]
    assert "p95 (nearest rank of 20 cells) 90s > 60s" in p95.detail
    p90 = rule_of(
        assemble(tickets, with_gate(answer_seconds_percentile={"percentile": 90, "maxSeconds": 60}), 1),
        GateRule.ANSWER_SECONDS_PERCENTILE,
    )
    assert p90.passed and p90.value == 5.0 and p90.offenders == []


@pytest.mark.parametrize(
    "limits",
    [{"max_answer_seconds": 60.0}, {"answer_seconds_percentile": {"percentile": 95, "maxSeconds": 60}}],
)
def test_a_cell_without_wall_time_or_a_missing_repetition_blocks_a_latency_rule(
    limits: dict[str, object],
) -> None:
    tickets = [tres("T-1", cell(1), cell(2, seconds=None)), tres("T-2", cell(1))]
    card = assemble(tickets, with_gate(**limits), 2)
    latency = next(
        r for r in card.rules if r.name in (GateRule.MAX_ANSWER_SECONDS, GateRule.ANSWER_SECONDS_PERCENTILE)
    )
    assert not latency.passed and latency.value is None
    assert "2 cell(s) without a recorded wall time: T-1#2, T-2#2" in latency.detail
    assert latency.offenders == ["T-1", "T-2"]


def test_max_ticket_cost_takes_each_cell_and_names_the_dear_ticket() -> None:
    # T-DEAR's mean cost (0.03) is under the limit; one of its repetitions (0.05) is not.
    tickets = [
        tres("T-1", cell(1, cost=0.01), cell(2, cost=0.01)),
        tres("T-DEAR", cell(1, cost=0.01), cell(2, cost=0.05)),
    ]
    card = assemble(tickets, with_gate([], max_ticket_cost_usd=0.04), 2, usage=Usage(cost_usd=0.08))
    cost = rule_of(card, GateRule.MAX_TICKET_COST_USD)
    assert rule_of(card, GateRule.SCORE).passed
    assert not cost.passed and card.verdict == "Blocked"
    assert cost.value == pytest.approx(0.05) and cost.offenders == ["T-DEAR"]
    assert "T-DEAR#2 $0.05" in cost.detail


def test_max_run_cost_reads_the_runs_total() -> None:
    tickets = [tres("T-1", cell(1, cost=0.01))]
    over = assemble(tickets, with_gate([], max_run_cost_usd=0.5), 1, usage=Usage(cost_usd=0.75))
    run = rule_of(over, GateRule.MAX_RUN_COST_USD)
    assert not run.passed and run.value == 0.75 and "the run cost $0.75 > $0.5" in run.detail
    under = assemble(tickets, with_gate([], max_run_cost_usd=1.0), 1, usage=Usage(cost_usd=0.75))
    assert rule_of(under, GateRule.MAX_RUN_COST_USD).passed and under.verdict == "Pass"


@pytest.mark.parametrize(
    ("unpriced", "usage", "cost", "says"),
    [
        (None, Usage(cost_usd=0.0), 0.0, "does not say whether every model the run called had a price"),
        (["the agent's model 'm'"], Usage(cost_usd=0.0), 0.0, "no price for the agent's model 'm'"),
        ([], None, 0.0, "the run's usage was not recorded"),
        ([], Usage(), None, "1 cell(s) without a recorded usage: T-1#1"),
    ],
)
def test_cost_rules_fail_closed(
    unpriced: list[str] | None, usage: Usage | None, cost: float | None, says: str
) -> None:
    tickets = [tres("T-1", cell(1, cost=cost))]
    card = assemble(
        tickets, with_gate(unpriced, max_ticket_cost_usd=1.0, max_run_cost_usd=1.0), 1, usage=usage
    )
    costs = [r for r in card.rules if r.name in (GateRule.MAX_TICKET_COST_USD, GateRule.MAX_RUN_COST_USD)]
    assert card.verdict == "Blocked"
    assert any(not r.passed and says in r.detail for r in costs), [r.detail for r in costs]


def test_no_limit_no_rule() -> None:
    card = assemble([tres("T-1", cell(1, seconds=None, cost=None))], config([A]), 1)
    assert {r.name for r in card.rules} == {"score", "judges", "ticketFloor", "judgeFloors", "complete"}
    assert card.verdict == "Pass"


@pytest.mark.parametrize(
    "bad",
    [
        {"maxAnswerSeconds": 0},
        {"maxAnswerSeconds": -1},
        {"maxAnswerSeconds": math.inf},
        {"maxTicketCostUsd": math.nan},
        {"maxRunCostUsd": 0},
        {"answerSecondsPercentile": {"percentile": 0, "maxSeconds": 60}},
        {"answerSecondsPercentile": {"percentile": 101, "maxSeconds": 60}},
        {"answerSecondsPercentile": {"percentile": 95}},
        {"answerSecondsPercentile": {"percentile": 95, "maxSeconds": 60, "method": "linear"}},
    ],
)
def test_a_limit_that_could_not_decide_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        GateSettings.model_validate(bad)


def test_the_judges_digest_keeps_a_gate_without_limits_as_it_was() -> None:
    plain = GateSettings()
    assert set(_gate_wire(plain)) == {"minScore", "ticketFloor", "minPassHatK", "requireMlflow"}
    limited = GateSettings(
        max_answer_seconds=60,
        answer_seconds_percentile=AnswerSecondsPercentile(percentile=95, max_seconds=60),
    )
    assert _gate_wire(limited)["maxAnswerSeconds"] == 60
    assert _gate_wire(limited)["answerSecondsPercentile"] == {"percentile": 95, "maxSeconds": 60}


def flaky_tickets(n: int) -> list[TicketResult]:
    steady = tres("T-STEADY", cell(1), cell(2))
    broken = tres("T-BROKEN", cell(1, score=0.0), cell(2, score=0.0))
    flaky = [tres(f"T-FLAKY-{i:02}", cell(1), cell(2, score=0.0)) for i in range(n)]
    return [steady, broken, *flaky]


def result_of(tickets: list[TicketResult], conf: ResultConfig, k: int, usage: Usage) -> Result:
    card = assemble(tickets, conf, k, usage=usage)
    return Result(
        suite="s",
        inputs=Inputs(suite_digest="sha256:s", judges_digest="sha256:j"),
        usage=usage,
        config=conf,
        **card.as_update(),  # type: ignore[arg-type]
    )


def test_flaky_tickets_pass_in_some_repetitions_and_not_others() -> None:
    card = assemble([*flaky_tickets(2), tres("T-SHORT", cell(1))], config([A]), 2)
    # T-SHORT passed its only recorded repetition; the missing one counts as not passing.
    assert card.repetitions.flaky == ["T-FLAKY-00", "T-FLAKY-01", "T-SHORT"]
    once = [tres("T-1", cell(1)), tres("T-2", cell(1, score=0.0))]
    assert assemble(once, config([A]), 1).repetitions.flaky == []  # one repetition: nothing to disagree


def test_flaky_tickets_are_bounded_in_the_summary_and_the_status_and_named_in_mlflow() -> None:
    result = result_of(flaky_tickets(25), config([A]), 2, Usage())
    assert len(result.repetitions.flaky) == 25
    summary = summarise(result)
    assert summary.counts.flaky_tickets == 25
    assert summary.repetitions is not None
    assert summary.repetitions.flaky == [f"T-FLAKY-{i:02}" for i in range(FLAKY_TICKETS_SHOWN)]
    assert summary.truncated
    status = verdict_status(summary)
    assert status.repetitions is not None
    assert status.tickets is not None and status.tickets.flaky == 25
    assert status.repetitions.flaky == summary.repetitions.flaky
    assert metrics_of(result)["flaky_tickets"] == 25.0
    assert tags_of(result)["assay.flaky"].startswith("T-FLAKY-00, T-FLAKY-01")


def test_limits_reach_the_summary_status_and_mlflow() -> None:
    conf = with_gate([], max_answer_seconds=60.0, max_run_cost_usd=0.01)
    result = result_of(fast_and_one_slow(), conf, 1, Usage(cost_usd=0.02))
    assert result.verdict == "Blocked"
    status = verdict_status(summarise(result))
    by_name = {r.name: r for r in status.rules or []}
    assert not by_name["maxAnswerSeconds"].passed and by_name["maxAnswerSeconds"].value == 200.0
    assert "T-SLOW" in by_name["maxAnswerSeconds"].detail
    assert not by_name["maxRunCostUsd"].passed and by_name["maxRunCostUsd"].value == 0.02
    assert metrics_of(result)["rule.maxAnswerSeconds"] == 200.0
    assert tags_of(result)["assay.rule.maxRunCostUsd"] == "fail"
    params = params_of(result, {})
    assert params["gate.maxAnswerSeconds"] == "60.0" and params["gate.maxRunCostUsd"] == "0.01"


def test_regate_recomputes_the_limits_from_the_stored_cells() -> None:
    stored = result_of(fast_and_one_slow(), with_gate([], max_answer_seconds=250.0), 1, Usage(cost_usd=0.02))
    assert stored.verdict == "Pass"
    again = regate(stored, limits={"max_answer_seconds": 60.0, "max_run_cost_usd": 0.01})
    assert again.verdict == "Blocked"
    assert {r.name for r in again.rules if not r.passed} == {"maxAnswerSeconds", "maxRunCostUsd"}
    assert again.config.gate.max_answer_seconds == 60.0
    p95 = regate(stored, limits={"answer_seconds_percentile": {"percentile": 95, "maxSeconds": 60}})
    # 10 cells: the 95th percentile by nearest rank is the 10th, the slow one.
    assert rule_of(p95, GateRule.ANSWER_SECONDS_PERCENTILE).value == 200.0


def test_regate_refuses_a_limit_that_could_not_decide() -> None:
    stored = result_of(fast_and_one_slow(), config([A]), 1, Usage())
    with pytest.raises(InputError, match="the gate's new settings"):
        regate(stored, limits={"max_answer_seconds": -1.0})


def test_the_report_titles_each_limit_and_names_the_flaky_tickets() -> None:
    conf = with_gate(
        [],
        max_answer_seconds=60.0,
        answer_seconds_percentile={"percentile": 95, "maxSeconds": 60},
        max_ticket_cost_usd=1.0,
        max_run_cost_usd=1.0,
    )
    page = render_report(result_of(flaky_tickets(3), conf, 2, Usage(cost_usd=0.1)))
    assert set(RULE_TITLES) == set(GateRule)
    for name in LIMIT_RULES:
        assert RULE_TITLES[name] in page
    assert "3 flaky ticket(s), passing in some of the 2 repetitions and not in others" in page
    assert "T-FLAKY-00, T-FLAKY-01, T-FLAKY-02" in page


def test_an_evaluations_limits_reach_the_runs_gate(tmp_path: Path) -> None:
    """spec.gate's limits -> the RunConfig the operator renders -> the effective gate the run decides on."""
    spec = EvaluationSpec.model_validate(
        {
            "brain": {"configMap": {"name": "b"}},
            "suite": {"configMap": {"name": "s"}},
            "agent": {"kind": "chat", "model": "m"},
            "gate": {
                "maxAnswerSeconds": 120,
                "answerSecondsPercentile": {"percentile": 95, "maxSeconds": 60},
                "maxTicketCostUsd": 0.5,
                "maxRunCostUsd": 20,
            },
        }
    )
    config = runconfig.build_run_config(spec, "e", "ns", Settings(runner_image="x"))
    assert config.gate.answer_seconds_percentile == AnswerSecondsPercentile(percentile=95, max_seconds=60)
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "suite.yaml").write_text(
        "name: s\njudges:\n  - {name: f, type: format, weight: 1, threshold: 0.5}\n"
        "gate: {minScore: 0.8, maxAnswerSeconds: 600}\n"
        "tickets:\n  - {id: T-1, split: validation, question: 'q?', key: {}}\n"
    )
    prepared = prepare(
        config.model_copy(update={"suite": str(suite), "kb": None, "keys": None, "brain": None})
    )
    gate = prepared.gate
    assert gate.min_score == 0.8  # the suite's, not overridden
    assert gate.max_answer_seconds == 120  # the Evaluation's over the suite's 600
    assert gate.answer_seconds_percentile == AnswerSecondsPercentile(percentile=95, max_seconds=60)
    assert (gate.max_ticket_cost_usd, gate.max_run_cost_usd) == (0.5, 20)


@pytest.mark.parametrize(
    "gate",
    [
        {"maxAnswerSeconds": 0},
        {"maxTicketCostUsd": -1},
        {"answerSecondsPercentile": {"percentile": 0, "maxSeconds": 60}},
        {"answerSecondsPercentile": {"percentile": 95}},
    ],
)
def test_an_evaluation_with_a_limit_that_could_not_decide_is_refused(gate: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        EvaluationSpec.model_validate(
            {"brain": {"configMap": {"name": "b"}}, "suite": {"configMap": {"name": "s"}}, "gate": gate}
        )
