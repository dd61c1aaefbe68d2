"""The Campaign's pure reconciliation: which Evaluations exist and run, and the decision read from their
status (the cluster end to end is in tests/operator_cluster/test_campaign.py)."""

from __future__ import annotations

from typing import Any

import pytest

from assay_operator import conditions
from assay_operator.campaign import plan as campaign
from assay_operator.campaign import status as campaign_status
from assay_operator.campaign.api import CampaignSpec, CampaignStatus
from assay_operator.campaign.children import normalised_spec, parse_children
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.evaluation.read import verdict_seal

Obj = dict[str, Any]
REPLAY = {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}}


def spec(**overrides: Any) -> CampaignSpec:
    raw: Obj = {
        "suite": {"bundled": "support-desk"},
        "agent": REPLAY,
        "candidates": [{"name": n, "brain": {"configMap": {"name": f"brain-{n}"}}} for n in ("a", "b", "c")],
        "repetitions": 3,
        "judgeModel": "example-judge",
    }
    raw.update(overrides)
    return CampaignSpec.model_validate(raw)


def finished_evaluation(
    entry: campaign.Entry,
    *,
    score: float,
    fully_resolved: int,
    verdict: str = "Pass",
    coverage: float = 1.0,
    suite: str = "sha256:suite",
    generation: int = 1,
) -> Obj:
    """An Evaluation as the operator leaves it after a verdict (the status shape reconcile.py writes)."""
    reason = "Passed" if verdict == "Pass" else "GateBlocked"
    desired = conditions.finished(verdict, reason, f"{verdict}: score {score}")
    completed = conditions.merge(None, desired, generation, at="2026-12-02T00:00:00Z")
    return {
        "metadata": {"name": entry.evaluation, "generation": generation},
        "spec": entry.spec,
        "status": {
            "observedGeneration": generation,
            "verdict": verdict,
            "score": round(score, 3),
            "judgesPassing": 5,
            "rules": [
                {"name": "score", "passed": score >= 0.5, "detail": f"score {score}", "value": score},
                {"name": "ticketFloor", "passed": True, "detail": "ok", "value": 0.5},
                {"name": "complete", "passed": coverage == 1.0, "detail": "cells", "value": coverage},
            ],
            "tickets": {"total": 4, "passed": 4, "summary": "4/4", "failing": []},
            "repetitions": {
                "k": 3,
                "passRate": 0.5,
                "passAtK": 1.0,
                "passHatK": fully_resolved / 4,
                "fullyResolved": fully_resolved,
            },
            "inputs": {"suiteDigest": suite},
            "conditions": [c.to_patch() for c in completed],
        },
    }


def decide(
    s: CampaignSpec,
    wanted: list[campaign.Entry],
    existing: dict[str, Obj],
    generation: int,
    current: CampaignStatus,
    approved_by: str | None = None,
) -> CampaignStatus:
    """campaign_status on Evaluations as the API returns them (each parsed once, as the handler does)."""
    children = parse_children(as_the_operator_wrote(e) for e in existing.values())
    return campaign_status.campaign_status(s, wanted, children, generation, current, approved_by)


def plan(wanted: list[campaign.Entry], existing: dict[str, Obj], max_parallel: int) -> campaign.Plan:
    return campaign.plan(
        wanted, parse_children(as_the_operator_wrote(e) for e in existing.values()), max_parallel
    )


def as_the_operator_wrote(evaluation: Obj) -> Obj:
    """The Evaluation with the seal the operator writes beside the decision its status states, as the test
    left the status (read/verdict_seal.py): a Campaign decides on no verdict without it."""
    status = dict(evaluation.get("status") or {})
    uid = str(evaluation["metadata"].get("uid") or "")
    status["verdictSeal"] = verdict_seal.seal_of(EvaluationStatus.model_validate(status), uid)
    return {**evaluation, "status": status}


def wire_status(
    s: CampaignSpec, wanted: list[campaign.Entry], existing: dict[str, Obj], generation: int
) -> Obj:
    """The status as the handler patches it (camelCase, only what was set), from an empty stored status."""
    return decide(s, wanted, existing, generation, CampaignStatus()).to_patch()


def running_evaluation(entry: campaign.Entry) -> Obj:
    return {"metadata": {"name": entry.evaluation, "generation": 1}, "spec": entry.spec, "status": {}}


def test_each_evaluation_gets_the_shared_settings_and_its_own_brain_and_agent() -> None:
    codex = {"kind": "codex", "model": "gpt-5"}
    wanted = campaign.entries(
        "release",
        spec(
            incumbent={"name": "live", "brain": {"configMap": {"name": "brain-live"}}},
            candidates=[{"name": "x", "brain": {"configMap": {"name": "bx"}}, "agent": codex}],
            gate={"minScore": 0.8},
        ),
    )
    assert [(e.role, e.candidate.name, e.evaluation) for e in wanted] == [
        ("incumbent", "live", "release-live"),
        ("candidate", "x", "release-x"),
    ]
    live, x = (e.spec for e in wanted)
    assert live["brain"] == {"configMap": {"name": "brain-live"}} and live["agent"]["kind"] == "replay"
    assert x["agent"] == {"kind": "codex", "model": "gpt-5", "timeoutSeconds": 600}
    for child in (live, x):
        assert child["suite"] == {"bundled": "support-desk"} and child["repetitions"] == 3
        assert child["gate"] == {"minScore": 0.8} and child["judgeModel"] == "example-judge"
        # Campaign-only fields never leak into an Evaluation's spec.
        assert not {"candidates", "incumbent", "key", "onTie", "maxParallel"} & set(child)
    body = campaign.evaluation_body("release", wanted[1])
    assert body["metadata"]["labels"][campaign.LABEL_CAMPAIGN] == "release"
    assert body["metadata"]["labels"][campaign.LABEL_ROLE] == "candidate"


def test_at_most_max_parallel_evaluations_run_and_they_start_in_order() -> None:
    wanted = campaign.entries("r", spec(maxParallel=2))
    first = plan(wanted, {}, 2)
    assert [e.candidate.name for e in first.create] == ["a", "b"] and [
        e.candidate.name for e in first.waiting
    ] == ["c"]
    running = {e.evaluation: running_evaluation(e) for e in first.create}
    assert plan(wanted, running, 2).create == []
    running[wanted[0].evaluation] = finished_evaluation(wanted[0], score=0.9, fully_resolved=3)
    assert [e.candidate.name for e in plan(wanted, running, 2).create] == ["c"]


def test_a_changed_spec_reruns_within_the_bound_and_a_removed_candidate_is_deleted() -> None:
    old = campaign.entries("r", spec())
    existing = {e.evaluation: finished_evaluation(e, score=0.9, fully_resolved=3) for e in old}
    existing["r-gone"] = running_evaluation(old[0]) | {"metadata": {"name": "r-gone", "generation": 1}}
    new = campaign.entries("r", spec(repetitions=5, maxParallel=2))
    planned = plan(new, existing, 2)
    assert [e.candidate.name for e in planned.update] == ["a", "b"] and planned.create == []
    assert [e.candidate.name for e in planned.waiting] == ["c"] and planned.delete == ["r-gone"]
    # A verdict of the old spec is not a verdict of the new one.
    status = wire_status(spec(repetitions=5), new, existing, 2)
    assert status["progress"] == "0/3" and status["promote"] is None


def test_an_unchanged_spec_with_server_defaults_is_not_rerun() -> None:
    wanted = campaign.entries("r", spec())
    stored = {**wanted[0].spec, "concurrency": 4, "deadlineSeconds": 1800}  # the apiserver's defaults
    assert normalised_spec(stored) == wanted[0].normal
    assert normalised_spec({**stored, "concurrency": 8}) != wanted[0].normal


def test_progress_then_the_release_key_winner_not_the_highest_mean() -> None:
    wanted = campaign.entries("r", spec())
    a, b, c = wanted
    existing = {a.evaluation: finished_evaluation(a, score=0.93, fully_resolved=1)}
    existing[b.evaluation] = running_evaluation(b)
    status = wire_status(spec(), wanted, existing, 1)
    assert status["progress"] == "1/3" and status["winner"] is None
    assert [r["phase"] for r in status["candidates"]] == ["Finished", "Running", "Pending"]
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "Unknown"

    existing[b.evaluation] = finished_evaluation(b, score=0.91, fully_resolved=3)
    existing[c.evaluation] = finished_evaluation(
        c, score=0.99, fully_resolved=4, verdict="Blocked", coverage=0.75
    )
    status = wire_status(spec(), wanted, existing, 1)
    assert (status["highestMean"], status["winner"], status["promote"]) == ("c", "b", True)
    rows = {r["name"]: r for r in status["candidates"]}
    assert rows["c"]["eligible"] is False and rows["c"]["complete"] is False and rows["c"]["rankByMean"] == 1
    assert rows["b"]["rankByKey"] == 1 and rows["b"]["key"] == {"fully-resolved": 3.0, "mean": 0.91}
    assert any("the plain mean would pick c" in r for r in status["reasons"])
    assert any("c is ineligible: incomplete coverage (75%" in r for r in status["reasons"])
    found = {c["type"]: c for c in status["conditions"]}
    assert (found["Ready"]["status"], found["Ready"]["reason"], found["Completed"]["status"]) == (
        "True",
        "Promote",
        "True",
    )


def test_a_verdict_the_operator_did_not_seal_is_not_decided_on() -> None:
    """A child's verdict flipped around admission (about to be undone by the operator) counts as no verdict:
    the Campaign waits, and decides on the verdict once the operator's again."""
    wanted = campaign.entries("r", spec())
    existing = {
        e.evaluation: as_the_operator_wrote(finished_evaluation(e, score=0.9, fully_resolved=3))
        for e in wanted
    }
    c = wanted[2].evaluation
    existing[c] = as_the_operator_wrote(
        finished_evaluation(wanted[2], score=0.5, fully_resolved=1, verdict="Blocked")
    )
    flipped = {**existing[c]["status"], "verdict": "Pass", "score": 0.99}
    children = parse_children(
        [*(existing[e.evaluation] for e in wanted[:2]), {**existing[c], "status": flipped}]
    )
    assert not children[c].decided_by_operator
    status = campaign_status.campaign_status(spec(), wanted, children, 1, CampaignStatus()).to_patch()
    assert status["progress"] == "2/3" and status["winner"] is None
    decided = parse_children(existing[e.evaluation] for e in wanted)
    assert decided[c].decided_by_operator
    assert campaign_status.campaign_status(spec(), wanted, decided, 1, CampaignStatus()).progress == "3/3"


def test_an_incumbent_only_matched_is_kept_and_ready_is_false() -> None:
    s = spec(incumbent={"name": "live", "brain": {"configMap": {"name": "brain-live"}}}, maxParallel=4)
    wanted = campaign.entries("r", s)
    existing = {e.evaluation: finished_evaluation(e, score=0.9, fully_resolved=3) for e in wanted}
    status = wire_status(s, wanted, existing, 1)
    assert status["promote"] is False and status["winner"] == "c"  # a full tie: chosen by name
    assert status["incumbent"]["name"] == "live" and "rankByKey" not in status["incumbent"]
    assert "keep the incumbent live" in status["message"]
    found = {c["type"]: c for c in status["conditions"]}
    assert (found["Ready"]["status"], found["Ready"]["reason"], found["Stalled"]["status"]) == (
        "False",
        "NoPromotion",
        "True",
    )


def test_a_failed_evaluation_is_visible_but_never_eligible() -> None:
    wanted = campaign.entries("r", spec(candidates=[{"name": "only", "brain": {"configMap": {"name": "b"}}}]))
    failed = finished_evaluation(wanted[0], score=0.0, fully_resolved=0, verdict="Blocked")
    failed["status"].update({"score": None, "rules": None, "message": "Blocked: OOMKilled: raise memory"})
    status = wire_status(spec(), wanted, {wanted[0].evaluation: failed}, 1)
    assert status["winner"] is None and status["promote"] is False
    assert status["candidates"][0]["coverage"] == 0.0 and status["candidates"][0]["eligible"] is False
    assert next(c for c in status["conditions"] if c["type"] == "Ready")["reason"] == "NoWinner"


def test_candidates_on_different_suites_are_not_compared() -> None:
    wanted = campaign.entries("r", spec())
    existing = {
        e.evaluation: finished_evaluation(e, score=0.9, fully_resolved=3, suite=f"sha256:{e.candidate.name}")
        for e in wanted
    }
    status = wire_status(spec(), wanted, existing, 1)
    assert status["promote"] is False and status["winner"] is None
    assert "different suites" in status["message"]
    assert next(c for c in status["conditions"] if c["type"] == "Ready")["reason"] == "NotComparable"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"key": ["vibes"]}, "key"),
        ({"candidates": []}, "candidates"),
        ({"maxParallel": 0}, "maxParallel"),
        ({"candidates": [{"name": "Bad_Name", "brain": {"configMap": {"name": "b"}}}]}, "name"),
    ],
)
def test_bad_specs_are_refused_by_the_models(change: Obj, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        spec(**change)
