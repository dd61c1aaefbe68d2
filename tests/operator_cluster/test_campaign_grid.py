"""A 64-cell grid Campaign end to end on the real control plane and local kubelet: the REAL operator creates
one owned Evaluation per cell (4 brains x 4 agents x 4 models, plus the incumbent), never more than
maxParallel unfinished at once, the REAL runner scores each, and the Campaign ends with a decision and the
grid's table in its status — which, under `approval: Manual`, waits until a person approves it.

Cost: 65 runner pods of two tickets and one repetition each (a command agent copying the example's
recorded answers); a few minutes on a loaded two-core machine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import OperatorProcess, condition, get_or_none
from tests.operator_cluster.conftest import StartOperator
from tests.operator_cluster.test_campaign import campaign, unfinished_peak, wait_for_decision

pytestmark = pytest.mark.cluster
Obj = dict[str, Any]
MAX_PARALLEL = 8


def grid_spec(v0: str, v1: str) -> Obj:
    # Two agents give the good recorded answers (v1), two the poor ones (v0); brains and models vary the
    # cells (the command agent ignores them), so the winner must come from a v1 agent.
    agents = [("good", "v1"), ("fine", "v1"), ("poor", "v0"), ("weak", "v0")]
    return {
        "suite": {"bundled": "support-desk"},
        "cassettes": {"bundled": "support-desk/cassettes"},
        "judgeModel": "example-judge",
        "resources": dict(support.SMALL),
        "tickets": {"ids": ["T-001", "T-002"]},
        "repetitions": 1,
        "maxParallel": MAX_PARALLEL,
        "maxJudgeDrop": 0.5,
        "approval": "Manual",
        "incumbent": {
            "name": "live",
            "brain": {"configMap": {"name": v0}},
            "agent": support.slow_agent(0, "v0"),
        },
        "grid": {
            "brains": [
                {"name": f"b{i}", "brain": {"configMap": {"name": (v0, v1)[i % 2]}}} for i in range(4)
            ],
            "agents": [{"name": name, "agent": support.slow_agent(0, answers)} for name, answers in agents],
            "models": [{"name": f"m{i}", "model": f"vendor/model-{i}"} for i in range(4)],
        },
    }


def test_a_64_cell_grid_decides_and_waits_for_approval(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    v0, v1 = brains("v0"), brains("v1")
    with support.recording(control_plane, support.evaluations_path(namespace)) as watch:
        admin.create(support.campaigns_path(namespace), campaign("bench", grid_spec(v0, v1)))
        done = wait_for_decision(admin, namespace, "bench", operator, timeout=1500)
        peak = unfinished_peak(watch, "bench")

    # --- 65 owned Evaluations, at most maxParallel at a time ---------------------------------------------
    assert 1 < peak <= MAX_PARALLEL
    children = [
        c
        for c in admin.get(support.evaluations_path(namespace))["items"]
        if (c["metadata"].get("labels") or {}).get("assay.dev/campaign") == "bench"
    ]
    assert len(children) == 65
    assert all(c["metadata"]["ownerReferences"][0]["name"] == "bench" for c in children)

    # --- the grid's table in status, and the decision ---------------------------------------------------
    status = done["status"]
    assert status["grid"] == {
        "axes": {
            "brain": ["b0", "b1", "b2", "b3"],
            "agent": ["good", "fine", "poor", "weak"],
            "model": ["m0", "m1", "m2", "m3"],
        },
        "cells": 64,
    }
    assert status["progress"] == "65/65"
    rows = {r["name"]: r for r in status["candidates"]}
    assert len(rows) == 64 and {r["phase"] for r in rows.values()} == {"Finished"}
    good = [r for n, r in rows.items() if n.split("-")[1] in ("good", "fine")]
    poor = [r for n, r in rows.items() if n.split("-")[1] in ("poor", "weak")]
    blocked = {r["name"]: r for r in good if r["verdict"] != "Pass"}
    evaluations = {c["metadata"]["name"]: c for c in children}
    assert not blocked, [
        (name, row.get("mean"), evaluations[f"bench-{name}"]["status"].get("rules"))
        for name, row in blocked.items()
    ]
    assert {r["verdict"] for r in poor} == {"Blocked"}
    assert all(r["fullyResolved"] == 2 for r in good) and all(r["fullyResolved"] == 0 for r in poor)
    assert status["winner"].split("-")[1] in ("good", "fine") and status["promote"] is True
    winner = rows[status["winner"]]
    assert winner["rankByKey"] == 1 and winner["vsIncumbent"]["resolvedGained"] == 2
    assert winner["vsIncumbent"]["resolvedLost"] == 0 and "judgesFallen" not in winner["vsIncumbent"]
    assert status["incumbent"]["fullyResolved"] == 0
    # The paired figures come from the Evaluations' per-ticket scores: +2 of 2 tickets is a real gain in
    # size but, with two tickets among 64 candidates, no evidence (Holm-adjusted confidence near 0).
    assert winner["vsIncumbent"]["scoreEffect"] > 0 and winner["vsIncumbent"]["resolvedP"] == 0.5
    assert 0 <= winner["vsIncumbent"]["confidence"] < 0.5

    # --- approval: Manual — decided, not Ready, until a person approves -----------------------------------
    assert status["approval"] == {"state": "AwaitingApproval", "winner": status["winner"], "generation": 1}
    support.assert_conditions(
        done, {"Ready": "False", "Completed": "True", "AwaitingApproval": "True", "Stalled": "False"}, 1
    )
    table = control_plane.kubectl("get", "campaigns", "-n", namespace).stdout.splitlines()
    assert table[1].split()[:6] == ["bench", status["winner"], "true", "AwaitingApproval", "65/65", "False"]
    support.wait_for_events(admin, namespace, "bench", {"Decided", "AwaitingApproval"})

    control_plane.kubectl("annotate", "-n", namespace, "campaign/bench", "assay.dev/approved-by=alice")
    path = support.campaigns_path(namespace, "bench")

    def approved() -> Obj | None:
        obj = get_or_none(admin, path)
        ready = condition(obj, "Ready")
        return obj if ready is not None and ready["status"] == "True" else None

    final = wait_until(approved, timeout=60, what="the approved promotion")
    approval = final["status"]["approval"]
    assert (approval["state"], approval["approvedBy"], approval["winner"]) == (
        "Approved",
        "alice",
        status["winner"],
    )
    assert approval["approvedAt"]
    support.assert_conditions(final, {"Ready": "True", "AwaitingApproval": "False"}, 1)
    assert "approved by alice" in final["status"]["message"]
    support.wait_for_events(admin, namespace, "bench", {"Approved"})
    # The annotation is spent: it approved this decision and no later one.
    wait_until(
        lambda: (
            "assay.dev/approved-by"
            not in ((get_or_none(admin, path) or {})["metadata"].get("annotations") or {})
        ),
        timeout=30,
        what="the approval annotation removed",
    )
    ok = control_plane.kubectl(
        "wait", "-n", namespace, "--for=condition=Ready", "campaign/bench", "--timeout=30s"
    )
    assert "condition met" in ok.stdout


def mute_grid_spec(brain: str) -> Obj:
    """64 brains x 4 agents, one of which (`mute`) writes no answer: 64 incomplete cells, and cell b7-okay
    Blocked by its gate (the fake runner's canned summaries, chosen by the cell's name)."""
    agent = {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}}
    return {
        "suite": {"bundled": "support-desk"},
        "resources": dict(support.SMALL),
        "repetitions": 1,
        "maxParallel": 16,
        "incumbent": {"name": "live", "brain": {"configMap": {"name": brain}}, "agent": agent},
        "grid": {
            "brains": [{"name": f"b{i}", "brain": {"configMap": {"name": brain}}} for i in range(64)],
            "agents": [{"name": name, "agent": agent} for name in ("good", "fine", "okay", "mute")],
        },
    }


@pytest.mark.timeout(3600)
def test_a_256_cell_grid_with_a_mute_agent_decides(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    """The largest grid, 65 cells ineligible, each with a reason line: the status stays within the CRD (the
    reasons list ends with a count line) and the Campaign decides — before, the apiserver refused the status
    and the Campaign read "255/257 ... waiting for the rest" for ever. The runner is the fake one: the
    figures are the canned summaries', the operator's work is real."""
    operator = operators(namespace, image=support.images().fake_runner)
    admin.create(support.campaigns_path(namespace), campaign("grid", mute_grid_spec(brains("v1"))))
    done = wait_for_decision(admin, namespace, "grid", operator, timeout=3300)
    status = done["status"]
    assert status["progress"] == "257/257" and status["grid"]["cells"] == 256
    rows = {r["name"]: r for r in status["candidates"]}
    ineligible = [name for name, row in rows.items() if not row.get("eligible")]
    assert len(ineligible) == 65 and all(n.endswith("-mute") for n in ineligible if n != "b7-okay")
    assert status["winner"] is not None and not status["winner"].endswith("-mute")
    reasons = status["reasons"]
    assert len(reasons) == 40 and reasons[-1].startswith("… and ") and "more" in reasons[-1]
    support.assert_conditions(done, {"Completed": "True", "Reconciling": "False"}, 1)
    assert not any("StatusRefused" in str(c) for c in status["conditions"])
