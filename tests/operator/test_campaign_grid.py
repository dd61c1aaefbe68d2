"""A Campaign's grid, its promotion rules (maxJudgeDrop, minConfidence without per-ticket data) and manual
approval — the pure reconciliation; on the cluster: tests/operator_cluster/test_campaign_grid.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from assay_operator.campaign import plan as campaign
from assay_operator.campaign import status as campaign_status
from assay_operator.campaign.api import CampaignSpec, CampaignStatus
from tests.operator.test_campaign import REPLAY, decide, finished_evaluation

Obj = dict[str, Any]


def grid(brains: int = 4, agents: int = 4, models: int = 4) -> Obj:
    return {
        "brains": [{"name": f"b{i}", "brain": {"configMap": {"name": f"brain-{i}"}}} for i in range(brains)],
        "agents": [{"name": f"a{i}", "agent": {**REPLAY, "timeoutSeconds": 60 + i}} for i in range(agents)],
        "models": [{"name": f"m{i}", "model": f"vendor/model-{i}.5"} for i in range(models)],
    }


def grid_spec(**overrides: Any) -> CampaignSpec:
    raw: Obj = {
        "suite": {"bundled": "support-desk"},
        "grid": grid(),
        "incumbent": {"name": "live", "brain": {"configMap": {"name": "brain-live"}}, "agent": REPLAY},
        "repetitions": 3,
    }
    raw.update(overrides)
    return CampaignSpec.model_validate(raw)


def test_a_grid_is_the_product_of_its_axes() -> None:
    wanted = campaign.entries("bench", grid_spec())
    cells = [e for e in wanted if e.role == "candidate"]
    assert len(cells) == 64 and wanted[0].role == "incumbent"
    assert [c.candidate.name for c in cells[:3]] == ["b0-a0-m0", "b0-a0-m1", "b0-a0-m2"]
    last = cells[-1]
    assert last.candidate.name == "b3-a3-m3" and last.evaluation == "bench-b3-a3-m3"
    assert last.spec["brain"] == {"configMap": {"name": "brain-3"}}
    assert last.spec["agent"]["model"] == "vendor/model-3.5" and last.spec["agent"]["timeoutSeconds"] == 63
    status = decide(grid_spec(), wanted, {}, 1, CampaignStatus())
    assert status.grid is not None and status.grid.cells == 64
    assert status.grid.axes["model"] == ["m0", "m1", "m2", "m3"]
    assert status.progress == "0/65"


def test_without_models_each_agent_keeps_its_own() -> None:
    raw = grid(2, 2, 0)
    del raw["models"]
    cells = [e for e in campaign.entries("g", grid_spec(grid=raw)) if e.role == "candidate"]
    assert [c.candidate.name for c in cells] == ["b0-a0", "b0-a1", "b1-a0", "b1-a1"]
    assert "model" not in cells[0].spec["agent"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {"grid": {**grid(), "brains": [{"name": "Bad_Name", "brain": {"configMap": {"name": "x"}}}]}},
            "pattern",
        ),
        ({"grid": {**grid(), "models": []}}, "at least 1"),
        ({"minConfidence": 1.0}, "less than 1"),
        ({"maxJudgeDrop": -0.1}, "greater than or equal to 0"),
        ({"approval": "Sometimes"}, "Automatic"),
    ],
)
def test_bad_grid_specs_are_refused(change: Obj, problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        grid_spec(**change)


def test_candidates_and_grid_together_are_refused() -> None:
    both = grid_spec(candidates=[{"name": "x", "brain": {"configMap": {"name": "bx"}}, "agent": REPLAY}])
    with pytest.raises(ValueError, match="either candidates or grid"):
        campaign.entries("g", both)


def finished_all(
    wanted: list[campaign.Entry], scores: dict[str, tuple[float, int, dict[str, float]]]
) -> dict[str, Obj]:
    """Every Evaluation finished: name -> (score, fully resolved, judge means)."""
    out = {}
    for entry in wanted:
        score, resolved, judges = scores[entry.candidate.name]
        evaluation = finished_evaluation(entry, score=score, fully_resolved=resolved)
        evaluation["status"]["judges"] = judges
        out[entry.evaluation] = evaluation
    return out


SMALL = {"brains": grid(2, 1, 1)["brains"], "agents": grid(1, 1, 1)["agents"]}


def two_cells(**overrides: Any) -> tuple[CampaignSpec, list[campaign.Entry], dict[str, Obj]]:
    s = grid_spec(grid=SMALL, key=["mean"], **overrides)
    wanted = campaign.entries("g", s)
    existing = finished_all(
        wanted,
        {
            # The workflow's case: the overall score rose 0.789 -> 0.796 while the policy judge fell.
            "live": (0.789, 2, {"quality": 0.80, "policy": 0.70}),
            "b0-a0": (0.796, 2, {"quality": 0.88, "policy": 0.50}),
            "b1-a0": (0.700, 1, {"quality": 0.70, "policy": 0.70}),
        },
    )
    return s, wanted, existing


def test_the_regression_rule_blocks_in_the_status() -> None:
    s, wanted, existing = two_cells()
    free = decide(s, wanted, existing, 1, CampaignStatus())
    assert free.winner == "b0-a0" and free.promote
    row = next(r for r in free.candidates or [] if r.name == "b0-a0")
    assert row.vs_incumbent is not None and row.vs_incumbent.judges_fallen is None

    s, wanted, existing = two_cells(maxJudgeDrop=0.05)
    blocked = decide(s, wanted, existing, 1, CampaignStatus())
    assert blocked.winner == "b0-a0" and not blocked.promote
    assert any("judge policy regressed: 0.500 vs the incumbent's 0.700" in r for r in blocked.reasons or [])
    row = next(r for r in blocked.candidates or [] if r.name == "b0-a0")
    assert row.vs_incumbent is not None and row.vs_incumbent.judges_fallen == ["policy"]
    ready = next(c for c in blocked.conditions or [] if c.type == "Ready")
    assert (ready.status, ready.reason) == ("False", "NoPromotion")


def test_min_confidence_fails_closed_without_per_ticket_scores() -> None:
    # An Evaluation's status carries totals, not per-ticket scores: no paired test, so no promotion.
    s, wanted, existing = two_cells(minConfidence=0.9)
    status = decide(s, wanted, existing, 1, CampaignStatus())
    assert status.winner == "b0-a0" and not status.promote
    assert any("minConfidence needs per-ticket results" in r for r in status.reasons or [])


def test_manual_approval_waits_then_records_who() -> None:
    s, wanted, existing = two_cells(approval="Manual")
    waiting = decide(s, wanted, existing, 1, CampaignStatus())
    assert waiting.promote and waiting.approval is not None
    assert (waiting.approval.state, waiting.approval.winner) == ("AwaitingApproval", "b0-a0")
    by_type = {c.type: c for c in waiting.conditions or []}
    assert (by_type["Ready"].status, by_type["Ready"].reason) == ("False", "AwaitingApproval")
    assert by_type["AwaitingApproval"].status == "True" and by_type["Stalled"].status == "False"
    assert "assay.dev/approved-by=<you>@g1:b0-a0" in by_type["AwaitingApproval"].message

    # Reconciled again without the annotation: still waiting.
    again = decide(s, wanted, existing, 1, waiting)
    assert again.approval is not None and again.approval.state == "AwaitingApproval"

    # An annotation that does not name this generation and winner approves nothing.
    for value in ("alice", "alice@g2:b0-a0", "alice@g1:b1-a0", "alice@g1"):
        ignored = decide(s, wanted, existing, 1, waiting, approved_by=value)
        assert ignored.approval is not None and ignored.approval.state == "AwaitingApproval", value

    approved = decide(s, wanted, existing, 1, waiting, approved_by="alice@g1:b0-a0")
    assert approved.approval is not None and approved.approval.state == "Approved"
    assert approved.approval.approved_by == "alice" and approved.approval.approved_at
    by_type = {c.type: c for c in approved.conditions or []}
    assert (by_type["Ready"].status, by_type["Ready"].reason) == ("True", "Approved")
    assert by_type["AwaitingApproval"].status == "False"
    assert "approved by alice" in (approved.message or "")

    # The annotation is gone after that; the approval stays for this generation and winner...
    kept = decide(s, wanted, existing, 1, approved)
    assert kept.approval == approved.approval
    # ...but a new generation's decision waits for a new approval.
    existing2 = {}
    for name, evaluation in existing.items():
        bumped = json.loads(json.dumps(evaluation))
        bumped["metadata"]["generation"] = 2
        bumped["status"]["observedGeneration"] = 2
        for c in bumped["status"]["conditions"]:
            c["observedGeneration"] = 2
        existing2[name] = bumped
    later = decide(s, wanted, existing2, 2, approved)
    assert later.approval is not None and later.approval.state == "AwaitingApproval"
    # ...also when the annotation of generation 1 is still there (given while the operator was down).
    stale = decide(s, wanted, existing2, 2, approved, approved_by="alice@g1:b0-a0")
    assert stale.approval is not None and stale.approval.state == "AwaitingApproval"
    assert stale.approval.generation == 2


def test_an_approval_the_operator_did_not_seal_counts_for_nothing() -> None:
    s, wanted, existing = two_cells(approval="Manual")
    waiting = decide(s, wanted, existing, 1, CampaignStatus())
    assert waiting.approval is not None
    forged = waiting.model_copy(
        update={
            "approval": waiting.approval.model_copy(
                update={"state": "Approved", "approved_by": "alice", "approved_at": "2026-01-01T00:00:00Z"}
            )
        }
    )
    assert not campaign_status.written_by_operator(forged.approval, "")  # type: ignore[arg-type]
    undone = decide(s, wanted, existing, 1, forged)
    assert undone.approval is not None and undone.approval.state == "AwaitingApproval"
    # The patch replaces the stored approval whole: the forged fields are cleared, not merged beside it.
    patched = undone.to_patch()["approval"]
    assert (patched["approvedBy"], patched["approvedAt"]) == (None, None) and patched["seal"]
    ready = next(c for c in undone.conditions or [] if c.type == "Ready")
    assert (ready.status, ready.reason) == ("False", "AwaitingApproval")
    # The operator's own approval verifies, for this Campaign only (the uid is in the seal).
    approved = decide(s, wanted, existing, 1, waiting, approved_by="alice@g1:b0-a0")
    assert approved.approval is not None and campaign_status.written_by_operator(approved.approval, "")
    assert not campaign_status.written_by_operator(approved.approval, "another-uid")


def test_automatic_approval_keeps_todays_behaviour() -> None:
    s, wanted, existing = two_cells()
    status = decide(s, wanted, existing, 1, CampaignStatus(), approved_by="alice@g1:b0-a0")
    assert status.promote and status.approval is None
    ready = next(c for c in status.conditions or [] if c.type == "Ready")
    assert (ready.status, ready.reason) == ("True", "Promote")


def test_a_full_grid_status_stays_small() -> None:
    s = grid_spec(grid=grid(4, 8, 8), maxJudgeDrop=0.05)  # 256 cells, the most a grid may have
    wanted = campaign.entries("bench", s)
    figures = {
        e.candidate.name: (0.5 + (i % 50) / 100, i % 4, {"q": 0.7, "p": 0.6}) for i, e in enumerate(wanted)
    }
    status = decide(s, wanted, finished_all(wanted, figures), 1, CampaignStatus())
    assert len(status.candidates or []) == 256 and status.winner is not None
    size = len(json.dumps(status.to_patch()))
    # etcd's default request limit is 1.5 MiB; the whole Campaign object must stay far below it.
    assert size < 256 * 1024, size


def with_paired(evaluation: Obj, scores: list[float], digest: str = "sha256:tickets") -> Obj:
    evaluation["status"]["paired"] = {
        "ticketsDigest": digest,
        "scores": scores,
        "resolved": "".join("1" if s >= 1.0 else "0" for s in scores),
    }
    return evaluation


def test_min_confidence_reads_the_per_ticket_scores_in_the_status() -> None:
    s = grid_spec(grid=SMALL, minConfidence=0.9)
    wanted = campaign.entries("g", s)
    per_ticket = {"live": [1.0, 0.5, 0.5, 0.5], "b0-a0": [1.0] * 4, "b1-a0": [1.0, 1.0, 0.5, 0.5]}
    resolved = {name: sum(1 for x in v if x >= 1.0) for name, v in per_ticket.items()}
    existing = {
        e.evaluation: with_paired(
            finished_evaluation(
                e, score=sum(per_ticket[e.candidate.name]) / 4, fully_resolved=resolved[e.candidate.name]
            ),
            per_ticket[e.candidate.name],
        )
        for e in wanted
    }
    status = decide(s, wanted, existing, 1, CampaignStatus())
    # b0-a0 gains 3 fully resolved tickets, loses none: McNemar p = 2/8 = 0.25, x2 (Holm, two candidates).
    assert status.winner == "b0-a0" and not status.promote
    row = next(r for r in status.candidates or [] if r.name == "b0-a0")
    vs = row.vs_incumbent
    assert vs is not None and (vs.resolved_gained, vs.resolved_lost) == (3, 0)
    assert vs.resolved_p == pytest.approx(0.25) and vs.confidence == pytest.approx(0.5)
    assert vs.score_effect == pytest.approx(0.375) and vs.score_ci is not None
    assert any("may be noise" in r for r in status.reasons or [])

    # Evaluations of different ticket lists are not paired: no figures, and minConfidence fails closed.
    other = dict(existing)
    name = wanted[1].evaluation
    other[name] = with_paired(json.loads(json.dumps(existing[name])), [1.0] * 4, digest="sha256:other")
    status = decide(s, wanted, other, 1, CampaignStatus())
    row = next(r for r in status.candidates or [] if r.name == wanted[1].candidate.name)
    assert row.vs_incumbent is not None and row.vs_incumbent.confidence is None


def test_a_full_grid_with_a_mute_agent_decides_within_the_schema() -> None:
    """64 brains x 4 agents where one agent writes no answer: 64 cells are incomplete and one more is Blocked
    by its gate, so 65 cells are ineligible and each gives a reason. The status still fits the CRD (its
    reasons list is bounded, ending with a summary line) and decides."""
    from tests.operator.test_status_schema import status_schema, violations

    raw = grid(64, 4, 0)
    del raw["models"]
    raw["agents"][3]["name"] = "mute"
    s = grid_spec(grid=raw)
    wanted = campaign.entries("bench", s)
    existing = {}
    for i, entry in enumerate(wanted):
        name = entry.candidate.name
        if name.endswith("-mute"):
            evaluation = finished_evaluation(
                entry, score=0.0, fully_resolved=0, verdict="Blocked", coverage=0.0
            )
        elif name == "b7-a1":
            evaluation = finished_evaluation(entry, score=0.6, fully_resolved=1, verdict="Blocked")
        else:
            evaluation = finished_evaluation(entry, score=0.80 + (i % 17) / 100, fully_resolved=i % 4)
        existing[entry.evaluation] = evaluation
    status = decide(s, wanted, existing, 1, CampaignStatus())
    patch = status.to_patch()
    assert status.progress == "257/257" and status.winner is not None and status.promote is not None
    ineligible = [r for r in status.candidates or [] if not r.eligible]
    assert len(ineligible) >= 65
    reasons = status.reasons or []
    assert len(reasons) == 40 and "more" in reasons[-1], reasons[-3:]
    assert violations(patch, status_schema("campaigns")) == []
    completed = next(c for c in status.conditions or [] if c.type == "Completed")
    assert (completed.status, completed.reason) == ("True", "Decided")
