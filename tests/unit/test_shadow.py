"""Shadow judges and shadow rules: recorded, reported and compared like the others, never deciding."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from assay_runner.contract import GateSettings, Inputs, JudgeConfigSummary, Result, ResultConfig
from assay_runner.core.decision import PromotionRules, decide
from assay_runner.core.decision_report import report_of
from assay_runner.core.scorecard import assemble
from assay_runner.core.standing import Standing
from assay_runner.core.summary import summarise
from assay_runner.io.tracking.run_data import metrics_of, tags_of
from assay_runner.suite.calibration import Calibration, definition_digest, shadow_reasons
from assay_runner.suite.models import JudgeBase, SuiteSpec
from assay_runner.views.report import render_report
from tests.unit.builders import cfg, config, rep, tres, v

A = cfg("a", 1.0)
SHADOW = cfg("s", 1.0, 0.9, floor=1.0).model_copy(update={"shadow": "declared shadow (shadow: true)"})


def rule(card, name):  # type: ignore[no-untyped-def]
    return next(r for r in card.rules if r.name == name)


def test_a_shadow_judge_failing_every_ticket_leaves_the_verdict_pass() -> None:
    tickets = [tres(f"T{i}", rep(1, {"a": v(1.0), "s": v(0.0)})) for i in range(5)]
    card = assemble(tickets, config([A, SHADOW]), 1)
    assert card.verdict == "Pass"
    assert card.score == pytest.approx(1.0)  # its weight of 1.0 is not in the weighted mean
    assert all(t.score == pytest.approx(1.0) and t.passed for t in card.tickets)
    shadow = card.judges["s"]
    assert shadow.mean == pytest.approx(0.0) and not shadow.passed and shadow.applicable_tickets == 5
    assert shadow.shadow == "declared shadow (shadow: true)"
    judges = rule(card, "judges")
    assert judges.passed and judges.offenders == []
    assert "shadow, not deciding: s (would fail: s 0.000 < 0.9)" in judges.detail
    assert rule(card, "judgeFloors").passed  # its floor of 1.0 is broken everywhere, and decides nothing
    assert card.repetitions.pass_rate == pytest.approx(1.0)  # nor does it count in the pass criterion


def test_the_same_judge_gating_blocks() -> None:
    tickets = [tres(f"T{i}", rep(1, {"a": v(1.0), "s": v(0.0)})) for i in range(5)]
    card = assemble(tickets, config([A, SHADOW.model_copy(update={"shadow": None})]), 1)
    assert card.verdict == "Blocked"
    assert {r.name for r in card.rules if not r.passed} >= {"score", "judges", "judgeFloors", "ticketFloor"}


def test_a_shadow_judge_that_errors_is_recorded_and_does_not_block() -> None:
    tickets = [tres("T1", rep(1, {"a": v(1.0), "s": v(None, error="model unreachable")}))]
    card = assemble(tickets, config([A, SHADOW]), 1)
    assert card.verdict == "Pass"
    assert card.judges["s"].errors == 1 and not card.judges["s"].passed
    assert card.tickets[0].repetitions[0].judges["s"].error == "model unreachable"
    assert rule(card, "complete").passed
    assert "s had 1 error(s)" in rule(card, "judges").detail


def test_a_gating_judge_that_errors_still_blocks_beside_a_shadow_one() -> None:
    tickets = [tres("T1", rep(1, {"a": v(None, error="boom"), "s": v(1.0)}))]
    card = assemble(tickets, config([A, SHADOW]), 1)
    assert card.verdict == "Blocked"
    assert not rule(card, "complete").passed


def test_only_shadow_judges_applying_is_an_error_not_a_pass() -> None:
    tickets = [tres("T1", rep(1, {"a": v(None, applicable=False), "s": v(1.0)}))]
    card = assemble(tickets, config([A, SHADOW], min_score=0.0, ticket_floor=0.0), 1)
    assert card.tickets[0].repetitions[0].error == "no weighted judge applies to this ticket"
    assert card.verdict == "Blocked"


def _with_shadow_rules(conf: ResultConfig, *names: str) -> ResultConfig:
    return conf.model_copy(update={"gate": conf.gate.model_copy(update={"shadow_rules": list(names)})})


def test_a_shadow_rule_reports_would_block_and_does_not_decide() -> None:
    tickets = [tres(f"T{i}", rep(1, {"a": v(1.0)})) for i in range(9)]
    tickets.append(tres("LOW", rep(1, {"a": v(0.5)})))
    conf = config([A], min_score=0.9, ticket_floor=0.7)
    assert assemble(tickets, conf, 1).verdict == "Blocked"
    card = assemble(tickets, _with_shadow_rules(conf, "ticketFloor"), 1)
    floor = rule(card, "ticketFloor")
    assert floor.shadow and not floor.passed and floor.offenders == ["LOW"]
    assert card.verdict == "Pass"
    assert card.reasons == []  # reasons are the deciding rules that failed


def test_complete_and_verified_cannot_be_shadow_rules_and_names_are_checked() -> None:
    for name in ("complete", "verified"):
        with pytest.raises(ValidationError, match="cannot be a shadow rule"):
            GateSettings.model_validate({"shadowRules": [name]})
    with pytest.raises(ValidationError, match="no gate rule tikcetFloor"):
        GateSettings.model_validate({"shadowRules": ["tikcetFloor"]})
    assert GateSettings.model_validate({"shadowRules": ["ticketFloor"]}, strict=True).shadow_rules == [
        "ticketFloor"
    ]


def _standing(name: str, judge_means: dict[str, float], shadow: frozenset[str]) -> Standing:
    return Standing(
        name=name, verdict="Pass", mean=0.95, lowest_ticket=0.9, judges_passing=1, complete=True,
        coverage=1.0, pass_rate=1.0, pass_at_k=1.0, pass_hat_k=1.0, fully_resolved=10 if name == "new" else 9,
        tickets=10, k=1, suite_digest="sha256:s", judge_means=judge_means, shadow_judges=shadow,
    )  # fmt: skip


def test_a_shadow_judges_fall_is_shown_and_does_not_refuse_a_promotion() -> None:
    incumbent = _standing("old", {"a": 0.9, "s": 0.9}, frozenset({"s"}))
    candidate = _standing("new", {"a": 0.95, "s": 0.1}, frozenset({"s"}))
    decision = decide([candidate], incumbent, rules=PromotionRules(max_judge_drop=0.05))
    assert decision.promote
    deltas = {d.judge: d.delta for d in decision.judge_deltas["new"]}
    assert deltas["s"] == pytest.approx(-0.8)
    row = report_of(decision).row("new")
    versus = row.vs_incumbent if row is not None else None
    assert versus is not None and versus.fallen == ()
    change = next(c for c in versus.judges if c.judge == "s")
    assert change.shadow and change.regressed  # shown as fallen, and not a reason to refuse
    gating = decide(
        [_standing("new", {"a": 0.95, "s": 0.1}, frozenset())],
        _standing("old", {"a": 0.9, "s": 0.9}, frozenset()),
        rules=PromotionRules(max_judge_drop=0.05),
    )
    assert not gating.promote


def test_judge_config_summary_reads_without_shadow() -> None:
    # A result written before shadow judges existed reads as every judge gating.
    summary = JudgeConfigSummary.model_validate({"name": "a", "type": "code", "weight": 1, "threshold": 1})
    assert summary.shadow is None


def _result() -> Result:
    tickets = [tres(f"T{i}", rep(1, {"a": v(1.0), "s": v(0.0)})) for i in range(3)]
    tickets.append(tres("LOW", rep(1, {"a": v(0.6), "s": v(0.0)})))
    conf = _with_shadow_rules(config([A, SHADOW], min_score=0.5), "ticketFloor")
    card = assemble(tickets, conf, 1)
    return Result(
        suite="s",
        inputs=Inputs(suite_digest="sha256:s", judges_digest="sha256:j"),
        config=conf,
        **card.as_update(),  # type: ignore[arg-type]
    )


def test_a_shadow_judges_figures_appear_where_a_gating_judges_do() -> None:
    result = _result()
    assert result.verdict == "Pass"
    metrics, tags = metrics_of(result), tags_of(result)
    assert metrics["judge.s.mean"] == 0.0 and metrics["judge.a.mean"] == pytest.approx(0.9)
    assert tags["assay.judge.s.shadow"] == "declared shadow (shadow: true)"
    assert tags["assay.rule.ticketFloor"] == "shadow-fail" and tags["assay.rule.judges"] == "pass"
    summary = summarise(result)
    assert summary.judges["s"] == 0.0 and summary.shadow_judges == {"s": "declared shadow (shadow: true)"}
    assert summary.counts.judges_passing == 1  # the shadow judge's failure is not counted against it
    assert next(r for r in summary.rules if r.name == "ticketFloor").shadow
    page = render_report(result)
    assert "would fail (shadow)" in page and "shadow, not gating: declared shadow (shadow: true)" in page
    assert "would block (shadow)" in page
    assert "(shadow: not deciding)" in page


def _spec(**extra: object) -> SuiteSpec:
    return SuiteSpec.model_validate(
        {
            "name": "s",
            "judges": [
                {"name": "a", "type": "format", "weight": 1, "threshold": 0.8},
                {"name": "b", "type": "format", "weight": 1, "threshold": 0.8, "maxWords": 100},
            ],
            "tickets": [{"id": "T-1", "split": "validation", "question": "q?"}],
            **extra,
        }
    )


def test_why_a_required_judge_does_not_gate() -> None:
    spec = _spec(calibration={"judges": ["a", "b"], "minKappa": 0.6, "minLabels": 50})
    assert shadow_reasons(spec, {}) == {
        "a": "not calibrated: calibration.json is not in the suite",
        "b": "not calibrated: calibration.json is not in the suite",
    }
    assert shadow_reasons(spec, {"calibration.json": b"{not json"})["a"].startswith(
        "not calibrated: calibration.json is not a calibration"
    )
    a, b = spec.judges

    def entry(judge: JudgeBase, labels: int, kappa: float | None) -> dict[str, object]:
        return {
            "judgeDigest": definition_digest(judge, {}), "kind": "binary", "labels": labels,
            "agreement": 0.9, "kappa": kappa, "categories": ["fail", "pass"], "confusion": [[1, 0], [0, 1]],
        }  # fmt: skip

    calibration = Calibration(
        suite="s", labels_digest="sha256:l", labels_file="l.jsonl", resamples=10, seed=0, level=0.95,
        created_at="now", judges={"a": entry(a, 60, 0.7), "b": entry(b, 60, 0.4)},  # type: ignore[dict-item]
    )  # fmt: skip
    files = {"calibration.json": calibration.to_json().encode()}
    assert shadow_reasons(spec, files) == {"b": "kappa 0.40 < minKappa 0.6 on 60 labels"}
    # The description and the shadow flag are not the definition; the threshold is.
    edited = a.model_copy(update={"description": "new words", "shadow": True})
    assert definition_digest(edited, {}) == definition_digest(a, {})
    assert definition_digest(a.model_copy(update={"threshold": 0.5}), {}) != definition_digest(a, {})


def test_a_suite_must_keep_a_gating_weighted_judge_and_name_known_judges() -> None:
    with pytest.raises(ValidationError, match="must gate"):
        SuiteSpec.model_validate(
            {
                "name": "s",
                "judges": [{"name": "a", "type": "format", "weight": 1, "threshold": 0.8, "shadow": True}],
                "tickets": [{"id": "T-1", "split": "validation", "question": "q?"}],
            }
        )
    with pytest.raises(ValidationError, match="calibration names no judge of this suite: zz"):
        _spec(calibration={"judges": ["zz"]})


def test_a_latency_limit_as_a_shadow_rule_would_block_and_does_not_decide() -> None:
    slow = rep(1, {"a": v(1.0)}).model_copy(update={"wall_seconds": 240.0})
    tickets = [tres("T1", slow), tres("T2", rep(1, {"a": v(1.0)}).model_copy(update={"wall_seconds": 3.0}))]
    conf = config([A])
    limited = conf.model_copy(update={"gate": conf.gate.model_copy(update={"max_answer_seconds": 60.0})})
    assert assemble(tickets, limited, 1).verdict == "Blocked"
    card = assemble(tickets, _with_shadow_rules(limited, "maxAnswerSeconds"), 1)
    latency = rule(card, "maxAnswerSeconds")
    assert latency.shadow and not latency.passed and "T1" in latency.offenders
    assert card.verdict == "Pass" and card.reasons == []
