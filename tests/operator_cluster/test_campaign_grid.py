"""Grid Campaigns end to end on the real control plane and local kubelet.

A 16-cell grid: the REAL operator creates one owned Evaluation per cell (2 brains x 4 agents x 2 models, plus
the incumbent), never more than maxParallel unfinished at once, the REAL runner scores each, and the Campaign
ends with a decision and the grid's table in its status — which, under `approval: Manual`, waits until a
person approves it. Cost: 17 runner Evaluations of two tickets and one repetition each (a command agent
copying the example's recorded answers). It was 4 x 4 x 4 (65 Evaluations): the properties are the same at
16 cells, and the operator's cost at scale is measured by bench/campaign_grid.py.

A 16-cell grid with a mute agent, on the fake runner: ineligible cells of both kinds, and a decision."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import OperatorProcess, campaign, condition, get_or_none
from tests.operator_cluster.conftest import StartOperator
from tests.operator_cluster.test_campaign import unfinished_peak, wait_for_decision

pytestmark = pytest.mark.cluster
Obj = dict[str, Any]
MAX_PARALLEL = 8
BRAINS, MODELS = 2, 2
CELLS = BRAINS * 4 * MODELS


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
                {"name": f"b{i}", "brain": {"configMap": {"name": (v0, v1)[i % 2]}}} for i in range(BRAINS)
            ],
            "agents": [{"name": name, "agent": support.slow_agent(0, answers)} for name, answers in agents],
            "models": [{"name": f"m{i}", "model": f"vendor/model-{i}"} for i in range(MODELS)],
        },
    }


def test_a_grid_decides_and_waits_for_approval(
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

    # --- an owned Evaluation per cell and the incumbent, at most maxParallel at a time -----------------
    assert 1 < peak <= MAX_PARALLEL
    children = [
        c
        for c in admin.get(support.evaluations_path(namespace))["items"]
        if (c["metadata"].get("labels") or {}).get("assay.dev/campaign") == "bench"
    ]
    assert len(children) == CELLS + 1
    assert all(c["metadata"]["ownerReferences"][0]["name"] == "bench" for c in children)

    # --- the grid's table in status, and the decision ---------------------------------------------------
    status = done["status"]
    assert status["grid"] == {
        "axes": {
            "brain": ["b0", "b1"],
            "agent": ["good", "fine", "poor", "weak"],
            "model": ["m0", "m1"],
        },
        "cells": CELLS,
    }
    assert status["progress"] == f"{CELLS + 1}/{CELLS + 1}"
    rows = {r["name"]: r for r in status["candidates"]}
    assert len(rows) == CELLS and {r["phase"] for r in rows.values()} == {"Finished"}
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
    # size but, with two tickets among 16 candidates, no evidence (Holm-adjusted confidence near 0).
    assert winner["vsIncumbent"]["scoreEffect"] > 0 and winner["vsIncumbent"]["resolvedP"] == 0.5
    assert 0 <= winner["vsIncumbent"]["confidence"] < 0.5

    # --- approval: Manual — decided, not Ready, until a person approves -----------------------------------
    awaiting = dict(status["approval"])
    assert len(awaiting.pop("seal")) == 64  # the operator's own seal (assay_operator.seals)
    assert awaiting == {"state": "AwaitingApproval", "winner": status["winner"], "generation": 1}
    support.assert_conditions(
        done, {"Ready": "False", "Completed": "True", "AwaitingApproval": "True", "Stalled": "False"}, 1
    )
    table = control_plane.kubectl("get", "campaigns", "-n", namespace).stdout.splitlines()
    assert table[1].split()[:6] == [
        "bench",
        status["winner"],
        "true",
        "AwaitingApproval",
        f"{CELLS + 1}/{CELLS + 1}",
        "False",
    ]
    support.wait_for_events(admin, namespace, "bench", {"Decided", "AwaitingApproval"})

    control_plane.kubectl(
        "annotate", "-n", namespace, "campaign/bench", f"assay.dev/approved-by=alice@g1:{status['winner']}"
    )
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


SMALL_BRAINS, SMALL_AGENTS = 8, ("okay", "mute")
"""16 cells with each kind of ineligible cell of the largest grid (8 mute ones, b7-okay Blocked by its
gate). The 256-cell grid itself is a benchmark, bench/campaign_grid.py (its figures: docs/campaigns.md);
a 256-cell status is checked against the CRD without a cluster (tests/operator/test_campaign_grid.py)."""


def test_a_grid_with_a_mute_agent_decides(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    """Ineligible cells, each with a reason line, and the Campaign still decides (before, a large grid's
    status was refused by the apiserver and the Campaign waited for ever). The runner is the fake one: the
    figures are the canned summaries', the operator's work is real."""
    operator = operators(namespace, image=support.images().fake_runner)
    spec = support.mute_grid_spec(brains("v1"), SMALL_BRAINS, SMALL_AGENTS, max_parallel=4)
    admin.create(support.campaigns_path(namespace), campaign("grid", spec))
    done = wait_for_decision(admin, namespace, "grid", operator, timeout=900)
    status = done["status"]
    cells = SMALL_BRAINS * len(SMALL_AGENTS)
    assert status["progress"] == f"{cells + 1}/{cells + 1}" and status["grid"]["cells"] == cells
    rows = {r["name"]: r for r in status["candidates"]}
    ineligible = sorted(name for name, row in rows.items() if not row.get("eligible"))
    mute = sorted(f"b{i}-mute" for i in range(SMALL_BRAINS))
    assert ineligible == sorted([*mute, "b7-okay"])
    assert status["winner"] is not None and status["winner"] not in ineligible
    reasons = status["reasons"]
    assert all(any(r.startswith(f"{name} is ineligible") for r in reasons) for name in mute), reasons
    support.assert_conditions(done, {"Completed": "True", "Reconciling": "False"}, 1)
    assert not any("StatusRefused" in str(c) for c in status["conditions"])
