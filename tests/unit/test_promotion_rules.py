"""The optional promotion rules: no judge may fall silently (maxJudgeDrop), and an improvement must be real
(minConfidence) — plus the figures every comparison reports whether or not a rule reads them."""

from __future__ import annotations

import json

import pytest

from assay_runner.core.decision import PromotionRules, decide
from assay_runner.core.decision_report import report_of, to_json
from assay_runner.core.standing import Standing
from assay_runner.core.statistics import Paired
from assay_runner.errors import InputError


def standing(
    name: str,
    mean: float,
    judges: dict[str, float | None],
    scores: list[float] | None = None,
    *,
    fully_resolved: int = 0,
    complete: bool = True,
) -> Standing:
    scores = scores if scores is not None else [mean] * 10
    ids = [f"T{i:02d}" for i in range(len(scores))]
    return Standing(
        name=name,
        verdict="Pass",
        mean=mean,
        lowest_ticket=min(scores),
        judges_passing=0,
        complete=complete,
        coverage=1.0 if complete else 0.5,
        pass_rate=0.0,
        pass_at_k=0.0,
        pass_hat_k=0.0,
        fully_resolved=fully_resolved,
        tickets=len(scores),
        k=3,
        suite_digest="sha256:s",
        judge_means=judges,
        paired=Paired(
            scores=dict(zip(ids, scores, strict=True)),
            resolved={t: s >= 1.0 for t, s in zip(ids, scores, strict=True)},
        ),
    )


# The workflow's own case: the overall score rose 0.789 -> 0.796 while the policy judge fell 0.70 -> 0.50.
INCUMBENT = standing("live", 0.789, {"quality": 0.80, "policy": 0.70, "format": 0.90})
CANDIDATE = standing("new", 0.796, {"quality": 0.88, "policy": 0.50, "format": 0.92})


def test_without_the_rule_the_fall_is_reported_but_does_not_decide() -> None:
    decision = decide([CANDIDATE], INCUMBENT, ("mean",))
    assert decision.promote
    row = to_json(report_of(decision))["candidates"][0]  # type: ignore[index]
    policy = next(j for j in row["vsIncumbent"]["judges"] if j["judge"] == "policy")
    assert policy == {"judge": "policy", "candidate": 0.5, "incumbent": 0.7, "delta": pytest.approx(-0.2)}


def test_a_judge_falling_beyond_the_tolerance_blocks_the_promotion() -> None:
    decision = decide([CANDIDATE], INCUMBENT, ("mean",), rules=PromotionRules(max_judge_drop=0.05))
    assert not decision.promote
    assert any("judge policy regressed: 0.500 vs the incumbent's 0.700" in r for r in decision.reasons)
    assert not any("judge quality" in r or "judge format" in r for r in decision.reasons)
    row = to_json(report_of(decision))["candidates"][0]  # type: ignore[index]
    regressed = {j["judge"]: j["regressed"] for j in row["vsIncumbent"]["judges"]}
    assert regressed == {"quality": False, "policy": True, "format": False}


def test_a_fall_within_the_tolerance_passes() -> None:
    decision = decide([CANDIDATE], INCUMBENT, ("mean",), rules=PromotionRules(max_judge_drop=0.25))
    assert decision.promote


def test_a_judge_the_candidate_was_not_scored_on_counts_as_a_fall() -> None:
    unscored = standing("new", 0.796, {"quality": 0.88, "policy": None, "format": 0.92})
    decision = decide([unscored], INCUMBENT, ("mean",), rules=PromotionRules(max_judge_drop=0.05))
    assert not decision.promote
    assert any("judge policy regressed: not scored" in r for r in decision.reasons)


def test_min_confidence_refuses_a_lucky_ticket() -> None:
    # One ticket better out of ten: a strict improvement on the key, and noise by any test.
    incumbent = standing("live", 0.5, {}, [1.0] * 5 + [0.0] * 5, fully_resolved=5)
    lucky = standing("lucky", 0.6, {}, [1.0] * 6 + [0.0] * 4, fully_resolved=6)
    assert decide([lucky], incumbent).promote
    decision = decide([lucky], incumbent, rules=PromotionRules(min_confidence=0.95))
    assert not decision.promote
    assert any("may be noise" in r and "fully-resolved test" in r for r in decision.reasons)
    comparison = to_json(report_of(decision))["candidates"][0]["vsIncumbent"]  # type: ignore[index]
    assert comparison["fullyResolved"]["gained"] == 1 and comparison["fullyResolved"]["pValue"] == 1.0


def test_min_confidence_accepts_a_clear_gain() -> None:
    incumbent = standing("live", 0.2, {}, [1.0] * 2 + [0.0] * 8, fully_resolved=2)
    clear = standing("clear", 1.0, {}, [1.0] * 10, fully_resolved=10)
    decision = decide([clear], incumbent, rules=PromotionRules(min_confidence=0.99))
    # 8 gained, 0 lost: McNemar p = 2 / 2^8 = 0.0078; one candidate, so Holm leaves it as it is.
    assert decision.promote and decision.confidence("clear") == pytest.approx(1 - 2 / 256)


def test_holm_accounts_for_the_number_of_candidates() -> None:
    incumbent = standing("live", 0.5, {}, [1.0] * 5 + [0.0] * 5, fully_resolved=5)
    # p = 2/32 = 0.0625 alone: with 0.9 required, it would pass alone (confidence 0.9375)...
    best = standing("best", 1.0, {}, [1.0] * 10, fully_resolved=10)
    alone = decide([best], incumbent, rules=PromotionRules(min_confidence=0.9))
    assert alone.promote
    # ...but picked among three candidates, Holm multiplies its p-value by 3: confidence 0.8125.
    others = [standing(n, 0.5, {}, [1.0] * 5 + [0.0] * 5, fully_resolved=5) for n in ("a", "b")]
    crowd = decide([best, *others], incumbent, rules=PromotionRules(min_confidence=0.9))
    assert crowd.winner == "best" and not crowd.promote
    assert crowd.confidence("best") == pytest.approx(1 - 3 * 0.0625)


def test_min_confidence_fails_closed_without_per_ticket_data() -> None:
    incumbent = standing("live", 0.2, {}, [1.0] * 2 + [0.0] * 8, fully_resolved=2)
    totals_only = Standing(
        **{**standing("c", 1.0, {}, [1.0] * 10, fully_resolved=10).__dict__, "paired": None}
    )
    decision = decide([totals_only], incumbent, rules=PromotionRules(min_confidence=0.9))
    assert not decision.promote and any("not available" in r for r in decision.reasons)


def test_the_score_test_decides_when_the_key_starts_with_the_mean() -> None:
    incumbent = standing("live", 0.5, {}, [0.5] * 8)
    better = standing("better", 0.6, {}, [0.6] * 8)
    decision = decide([better], incumbent, ("mean",), rules=PromotionRules(min_confidence=0.99))
    # Eight equal gains: the sign-flip p-value is exactly 2/2^8.
    assert decision.promote and decision.confidence("better") == pytest.approx(1 - 2 / 256)
    assert to_json(report_of(decision))["candidates"][0]["vsIncumbent"]["decidingTest"] == "scores"  # type: ignore[index]


def test_the_decision_json_is_serialisable_and_states_the_rules() -> None:
    decision = decide([CANDIDATE], INCUMBENT, ("mean",), rules=PromotionRules(0.95, 0.05))
    out = json.loads(json.dumps(to_json(report_of(decision))))
    assert out["rules"]["minConfidence"] == 0.95 and out["rules"]["maxJudgeDrop"] == 0.05
    assert out["incumbent"]["vsIncumbent"] is None


@pytest.mark.parametrize(
    "rules", [{"min_confidence": 1.0}, {"min_confidence": 0.0}, {"max_judge_drop": -0.1}]
)
def test_bad_rules_are_refused(rules: dict[str, float]) -> None:
    with pytest.raises(InputError):
        PromotionRules(**rules)  # type: ignore[arg-type]
