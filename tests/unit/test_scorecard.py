"""Applicability, weighting, every gate rule and every fail-closed path, on plain data."""

from __future__ import annotations

import pytest

from assay_runner.core.scorecard import assemble
from tests.unit.builders import cfg, config, na, rep, tres, v

A, B, Z = cfg("a", 0.5), cfg("b", 0.5), cfg("z", 0.0, 1.0)


def rule(card, name):  # type: ignore[no-untyped-def]
    return next(r for r in card.rules if r.name == name)


def test_weighted_mean_of_applicable_judges() -> None:
    card = assemble([tres("T1", rep(1, {"a": v(1.0), "b": v(0.5), "z": v(1.0)}))], config([A, B, Z]), 1)
    assert card.tickets[0].score == pytest.approx(0.75)
    assert card.score == pytest.approx(0.75)


def test_not_applicable_judge_is_excluded_and_weights_renormalise() -> None:
    card = assemble([tres("T1", rep(1, {"a": v(0.8), "b": na(), "z": v(1.0)}))], config([A, B, Z]), 1)
    assert card.tickets[0].score == pytest.approx(0.8)  # not (0.8 + 1.0) / 2
    assert card.judges["b"].mean is None
    assert card.judges["b"].applicable_tickets == 0
    assert card.judges["a"].applicable_tickets == 1


def test_judge_mean_only_over_tickets_where_it_applies() -> None:
    tickets = [
        tres("T1", rep(1, {"a": v(1.0), "b": v(0.5), "z": v(1.0)})),
        tres("T2", rep(1, {"a": v(1.0), "b": na(), "z": v(1.0)})),
    ]
    card = assemble(tickets, config([A, B, Z]), 1)
    assert card.judges["b"].mean == pytest.approx(0.5)
    assert card.judges["b"].applicable_tickets == 1


def test_ticket_with_no_applicable_weighted_judge_is_an_error_not_a_pass() -> None:
    card = assemble(
        [tres("T1", rep(1, {"a": na(), "b": na(), "z": v(1.0)}))],
        config([A, B, Z], min_score=0.0, ticket_floor=0.0),
        1,
    )
    assert card.tickets[0].repetitions[0].error == "no weighted judge applies to this ticket"
    assert not rule(card, "complete").passed
    assert card.verdict == "Blocked"


def test_all_rules_pass_gives_pass() -> None:
    card = assemble([tres("T1", rep(1, {"a": v(1.0), "b": v(1.0), "z": v(1.0)}))], config([A, B, Z]), 1)
    assert card.verdict == "Pass"
    assert [r.name for r in card.rules] == ["score", "judges", "ticketFloor", "judgeFloors", "complete"]
    assert all(r.passed for r in card.rules)
    assert card.reasons == []


def test_mean_passes_but_one_ticket_below_floor_blocks() -> None:
    good = {"a": v(1.0), "b": v(1.0), "z": v(1.0)}
    tickets = [tres(f"T{i}", rep(1, good)) for i in range(19)]
    tickets.append(tres("BAD", rep(1, {"a": v(0.5), "b": v(0.5), "z": v(1.0)})))
    card = assemble(tickets, config([A, cfg("b", 0.5, 0.5), Z]), 1)
    assert card.score >= 0.9
    floor = rule(card, "ticketFloor")
    assert not floor.passed and floor.offenders == ["BAD"] and floor.value == pytest.approx(0.5)
    assert rule(card, "score").passed
    assert card.verdict == "Blocked"
    assert any(reason.startswith("ticketFloor:") for reason in card.reasons)


def test_mean_passes_but_one_judge_below_its_threshold_blocks() -> None:
    tickets = [
        tres(f"T{i}", rep(1, {"a": v(1.0), "b": v(1.0), "z": v(1.0 if i else 0.0)})) for i in range(10)
    ]
    card = assemble(tickets, config([A, B, Z]), 1)
    assert card.score == pytest.approx(1.0)  # z has weight 0: the score cannot see it
    judges = rule(card, "judges")
    assert not judges.passed and judges.offenders == ["z"]
    assert card.verdict == "Blocked"


def test_score_rule_blocks_below_min_score() -> None:
    card = assemble(
        [tres("T1", rep(1, {"a": v(0.8), "b": v(0.8), "z": v(1.0)}))],
        config([cfg("a", 0.5, 0.5), cfg("b", 0.5, 0.5), Z]),
        1,
    )
    score = rule(card, "score")
    assert not score.passed and score.value == pytest.approx(0.8) and score.threshold == 0.9
    assert card.verdict == "Blocked"


def test_threshold_equal_to_score_passes_despite_float_rounding() -> None:
    card = assemble(
        [tres("T1", rep(1, {"a": v(0.1 + 0.7), "b": v(1.0), "z": v(1.0)}))],
        config([cfg("a", 0.5, 0.8), B, Z], min_score=0.9),
        1,
    )
    assert rule(card, "judges").passed  # 0.1 + 0.7 = 0.7999999999999999 still meets 0.8


def test_judge_floor_blocks_on_one_ticket() -> None:
    floored = cfg("p", 0.0, 0.5, floor=1.0)
    tickets = [tres(f"T{i}", rep(1, {"a": v(1.0), "p": v(1.0 if i else 0.0)})) for i in range(10)]
    card = assemble(tickets, config([cfg("a", 1.0), floored]), 1)
    assert rule(card, "judges").passed  # the mean 0.9 clears its threshold of 0.5
    floors = rule(card, "judgeFloors")
    assert not floors.passed and floors.offenders == ["p@T0#1"]
    assert card.verdict == "Blocked"


def test_judge_floor_on_a_raw_scale() -> None:
    model = cfg("q", 1.0, 3.0, floor=3.0, scale=(1, 5), type_="model")
    card = assemble([tres("T1", rep(1, {"q": v(0.25)}))], config([model], min_score=0.0, ticket_floor=0.0), 1)
    assert not rule(card, "judgeFloors").passed  # 0.25 on [0,1] is 2 on [1,5], below the floor of 3


def test_judge_error_blocks_and_counts_as_zero() -> None:
    card = assemble(
        [tres("T1", rep(1, {"a": v(None, error="boom"), "b": v(1.0), "z": v(1.0)}))],
        config([A, B, Z], min_score=0.0, ticket_floor=0.0),
        1,
    )
    assert card.tickets[0].score == pytest.approx(0.5)
    assert not rule(card, "complete").passed
    assert card.judges["a"].errors == 1 and not card.judges["a"].passed
    assert card.verdict == "Blocked"


def test_missing_answer_blocks() -> None:
    card = assemble([tres("T1", rep(1, {}, error="no answer file at x/answer.md"))], config([A, B, Z]), 1)
    assert card.tickets[0].score == 0.0
    complete = rule(card, "complete")
    assert not complete.passed and complete.offenders == ["T1"] and "no answer file" in complete.detail
    assert card.verdict == "Blocked"


def test_missing_repetition_counts_as_zero_and_blocks() -> None:
    good = {"a": v(1.0), "b": v(1.0), "z": v(1.0)}
    card = assemble([tres("T1", rep(1, good), rep(2, good))], config([A, B, Z]), 3)
    assert card.tickets[0].score == pytest.approx(2 / 3)
    assert "1 repetition(s) missing" in rule(card, "complete").detail
    assert card.verdict == "Blocked"


def test_missing_verdict_of_a_configured_judge_blocks() -> None:
    card = assemble([tres("T1", rep(1, {"a": v(1.0), "z": v(1.0)}))], config([A, B, Z]), 1)
    assert card.tickets[0].repetitions[0].error == "judge 'b' has no verdict"
    assert card.verdict == "Blocked"


def test_no_tickets_blocks() -> None:
    card = assemble([], config([A, B, Z]), 1)
    assert card.verdict == "Blocked"
    assert rule(card, "complete").detail == "no ticket was evaluated"


def test_repetition_figures_pass_rate_pass_at_k_pass_hat_k() -> None:
    ok = {"a": v(1.0), "b": v(1.0), "z": v(1.0)}
    bad = {"a": v(1.0), "b": v(0.5), "z": v(1.0)}
    tickets = [
        tres("ALWAYS", rep(1, ok), rep(2, ok), rep(3, ok)),
        tres("ONCE", rep(1, bad), rep(2, ok), rep(3, bad)),
        tres("NEVER", rep(1, bad), rep(2, bad), rep(3, bad)),
    ]
    card = assemble(tickets, config([A, B, Z], min_score=0.0, ticket_floor=0.0), 3)
    figures = card.repetitions
    assert (figures.k, figures.cells, figures.passing_cells) == (3, 9, 4)
    assert figures.pass_rate == pytest.approx(4 / 9)
    assert figures.pass_at_k == pytest.approx(2 / 3)
    assert figures.pass_hat_k == pytest.approx(1 / 3)
    assert figures.fully_resolved == 1
    assert "repetitions" not in [r.name for r in card.rules]  # not asked for


def test_repetitions_rule_when_the_gate_asks_for_pass_hat_k() -> None:
    ok = {"a": v(1.0), "b": v(1.0), "z": v(1.0)}
    near = {"a": v(1.0), "b": v(0.9), "z": v(1.0)}
    tickets = [tres("T1", rep(1, ok), rep(2, near)), tres("T2", rep(1, ok), rep(2, ok))]
    card = assemble(tickets, config([A, cfg("b", 0.5, 0.8), Z], min_pass_hat_k=1.0), 2)
    repetitions = rule(card, "repetitions")
    assert not repetitions.passed and repetitions.value == pytest.approx(0.5)
    assert rule(card, "score").passed
    assert card.verdict == "Blocked"


@pytest.mark.parametrize(
    ("criterion", "expected"),
    [("allJudgesTop", False), ("allJudgesThreshold", True)],
)
def test_pass_criterion(criterion: str, expected: bool) -> None:
    card = assemble(
        [tres("T1", rep(1, {"a": v(1.0), "b": v(0.95), "z": v(1.0)}))],
        config([A, B, Z], criterion=criterion),
        1,
    )
    assert card.tickets[0].repetitions[0].passed is expected


def test_min_ticket_score_criterion() -> None:
    from assay_runner.contract import PassCriterion

    conf = config([A, B, Z]).model_copy(
        update={"pass_criterion": PassCriterion(kind="minTicketScore", min_ticket_score=0.7)}
    )
    card = assemble([tres("T1", rep(1, {"a": v(1.0), "b": v(0.5), "z": v(1.0)}))], conf, 1)
    assert card.tickets[0].repetitions[0].passed


def test_not_applicable_judge_does_not_block_pass_criterion() -> None:
    card = assemble([tres("T1", rep(1, {"a": v(1.0), "b": na(), "z": v(1.0)}))], config([A, B, Z]), 1)
    assert card.tickets[0].repetitions[0].passed


def test_model_judge_threshold_on_raw_scale() -> None:
    model = cfg("q", 1.0, 4.0, scale=(1, 5), type_="model")
    verdict = v(0.75).model_copy(update={"raw": 4.0})
    card = assemble([tres("T1", rep(1, {"q": verdict}))], config([model], min_score=0.7), 1)
    assert card.judges["q"].raw_mean == pytest.approx(4.0)
    assert card.judges["q"].passed
    lower = v(0.5).model_copy(update={"raw": 3.0})
    card = assemble([tres("T1", rep(1, {"q": lower}))], config([model], min_score=0.0, ticket_floor=0.0), 1)
    assert not card.judges["q"].passed
    assert "q 3.000 < 4" in next(r for r in card.rules if r.name == "judges").detail
