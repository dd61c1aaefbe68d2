"""A run's shadow judges and shadow rules, as the Evaluation's status and a Campaign read them."""

from __future__ import annotations

from assay_operator.campaign.standings import standing_of
from assay_operator.evaluation.read.reconcile import blocked_reasons, verdict_status
from assay_runner.contract import Inputs, RunSummary, SummaryCounts, SummaryRule


def summary(verdict: str = "Pass") -> RunSummary:
    return RunSummary(
        verdict=verdict,
        score=0.95,
        judges={"kb": 1.0, "strict": 0.0},
        rules=[
            SummaryRule(name="score", passed=verdict == "Pass", detail="0.950 >= 0.900", value=0.95),
            SummaryRule(
                name="ticketFloor", passed=False, detail="1 ticket(s) below 0.7", value=0.5, shadow=True
            ),
            SummaryRule(name="complete", passed=True, detail="all 4 cell(s) judged", value=1.0),
        ],
        counts=SummaryCounts(tickets=4, passed_tickets=4, cells=4, errors=0, judges_passing=1),
        inputs=Inputs(suite_digest="sha256:s", judges_digest="sha256:j"),
        shadow_judges={"strict": "declared shadow (shadow: true)"},
    )


def test_the_status_shows_shadow_judges_beside_their_means_and_marks_shadow_rules() -> None:
    status = verdict_status(summary())
    assert status.verdict == "Pass"
    assert status.judges == {"kb": 1.0, "strict": 0.0}
    assert status.shadow_judges == {"strict": "declared shadow (shadow: true)"}
    rules = {r.name: r for r in status.rules or []}
    assert rules["ticketFloor"].shadow is True and not rules["ticketFloor"].passed
    assert rules["score"].shadow is None
    wire = status.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert wire["shadowJudges"] == {"strict": "declared shadow (shadow: true)"}


def test_a_shadow_rule_is_never_a_reason_to_block_nor_a_campaigns_reason() -> None:
    blocked = summary("Blocked")
    assert blocked_reasons(blocked) == "Blocked: score: 0.950 >= 0.900"
    standing = standing_of("c", verdict_status(blocked))
    assert standing.blocked_because == ("score: 0.950 >= 0.900",)
    assert standing.shadow_judges == frozenset({"strict"})


def test_a_summary_without_shadow_judges_leaves_the_field_out() -> None:
    plain = summary().model_copy(update={"shadow_judges": {}})
    assert verdict_status(plain).shadow_judges is None
