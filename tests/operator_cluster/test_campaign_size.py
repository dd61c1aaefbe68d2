"""A Campaign of real size on the real control plane: a 16-cell grid whose Evaluations each answer in two pods
(`parallelism: 2`) under a budget and a price table given once in the Campaign, decided with cost as the
release key's last reduction. The runner is the fake one (canned summaries, its usage priced by each
Evaluation's RunConfig: images.BIND_SUMMARY), so the test measures the operator's work: the settings reach
every Evaluation and its RunConfig, each Evaluation runs its two answer pods, and the Campaign's status
shows each candidate's cost and picks the cheapest of the equally resolved cells."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ApiError, ControlPlane, KubeApi
from assay_dev.operator_support import campaign
from assay_dev.operator_support.images import CANNED_TOKENS
from assay_operator.evaluation.build.layout import ANSWER_CONFIG_KEY, RUN_CONFIG_KEY
from assay_operator.evaluation.build.names import judge_config_name, run_config_name
from assay_runner.contract import PriceConfig
from tests.operator_cluster.conftest import StartOperator
from tests.operator_cluster.test_campaign import replay, shared, unfinished_peak, wait_for_decision

pytestmark = pytest.mark.cluster
Obj = dict[str, Any]
BRAINS, AGENTS = 4, ("good", "fine")
MODELS = {"m0": "vendor/cheap", "m1": "vendor/dear"}
PRICES = {
    "vendor/cheap": {"inputPerMillion": 1.0, "outputPerMillion": 4.0},
    "vendor/dear": {"inputPerMillion": 3.0, "outputPerMillion": 15.0},
}
CELLS = BRAINS * len(AGENTS) * len(MODELS)
BUDGET, PARALLELISM, MAX_PARALLEL = 0.5, 2, 4


def cost_of(model: str) -> float:
    return round(PriceConfig.model_validate(PRICES[model]).cost_usd(*CANNED_TOKENS), 6)


def sized_grid(brain: str) -> Obj:
    agent = {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}}
    return {
        "suite": {"bundled": "support-desk"},
        "resources": dict(support.SMALL),
        "repetitions": 1,
        "maxParallel": MAX_PARALLEL,
        "parallelism": PARALLELISM,
        "maxCostUsd": BUDGET,
        "prices": PRICES,
        "key": ["fully-resolved", "mean", "cost"],
        "grid": {
            "brains": [{"name": f"b{i}", "brain": {"configMap": {"name": brain}}} for i in range(BRAINS)],
            "agents": [{"name": name, "agent": agent} for name in AGENTS],
            "models": [{"name": name, "model": model} for name, model in MODELS.items()],
        },
    }


def test_a_sixteen_cell_grid_of_two_pod_evaluations_under_a_budget_picks_the_cheapest(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    operator = operators(namespace, image=support.images().fake_runner)
    with support.recording(control_plane, support.evaluations_path(namespace)) as watch:
        admin.create(support.campaigns_path(namespace), campaign("sized", sized_grid(brains("v1"))))
        done = wait_for_decision(admin, namespace, "sized", operator, timeout=900)
        peak = unfinished_peak(watch, "sized")
    assert 1 < peak <= MAX_PARALLEL

    # --- every Evaluation: the Campaign's size and spending, in its spec, its RunConfigs and its pods -------
    children = {
        c["metadata"]["name"]: c
        for c in admin.get(support.evaluations_path(namespace))["items"]
        if (c["metadata"].get("labels") or {}).get("assay.dev/campaign") == "sized"
    }
    assert len(children) == CELLS
    for name, child in children.items():
        spec, status = child["spec"], child["status"]
        assert (spec["parallelism"], spec["maxCostUsd"], spec["prices"]) == (PARALLELISM, BUDGET, PRICES)
        answer = status["answer"]
        assert (answer["shards"], answer["shardsSucceeded"], answer["shardsFailed"]) == (2, 2, 0), name
        configs = support.config_maps_path(namespace)
        answering = json.loads(admin.get(f"{configs}/{run_config_name(name, 1)}")["data"][ANSWER_CONFIG_KEY])
        judging = json.loads(admin.get(f"{configs}/{judge_config_name(name, 1)}")["data"][RUN_CONFIG_KEY])
        for config in (answering, judging):  # the answer pods stop spending at the budget
            assert (config["maxCostUsd"], config["prices"]) == (BUDGET, PRICES), name
        model = spec["agent"]["model"]
        assert status["usage"]["costUsd"] == cost_of(model) < BUDGET, name

    # --- the decision: equal on quality, the cheaper model wins; each candidate's cost in its row ----------
    status = done["status"]
    assert status["progress"] == f"{CELLS}/{CELLS}" and status["key"] == ["fully-resolved", "mean", "cost"]
    rows = {r["name"]: r for r in status["candidates"]}
    assert len(rows) == CELLS and {r["verdict"] for r in rows.values()} == {"Pass"}
    assert len({(r["fullyResolved"], r["mean"]) for r in rows.values()}) == 1  # every cell equally resolved
    for name, row in rows.items():
        model = MODELS[name.rsplit("-", 1)[1]]
        assert row["costUsd"] == row["key"]["cost"] == cost_of(model), name
    cheap = sorted(name for name in rows if name.endswith("-m0"))
    assert status["winner"] in cheap and status["promote"] is True
    assert sorted(rows[name]["rankByKey"] for name in cheap) == list(range(1, len(cheap) + 1))
    assert any(f"cost ${cost_of('vendor/cheap'):.4f}" in r for r in status["reasons"]), status["reasons"]
    support.assert_conditions(done, {"Ready": "True", "Completed": "True", "Stalled": "False"}, 1)


ONE = {"name": "a", "brain": {"configMap": {"name": "b"}}}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"key": ["cost", "mean"]}, "cost only breaks ties"),
        ({"parallelism": 0}, "spec.parallelism"),
        ({"parallelism": 101}, "spec.parallelism"),
        ({"maxCostUsd": 0}, "spec.maxCostUsd"),
        ({"prices": {"m": {"inputPerMillion": -1, "outputPerMillion": 1}}}, "inputPerMillion"),
        ({"gatewayTokenSecretRef": {"name": "Not_A_Name"}}, "spec.gatewayTokenSecretRef.name"),
        ({"candidates": [{**ONE, "maxCostUsd": -1}]}, "spec.candidates[0].maxCostUsd"),
        ({"candidates": [{**ONE, "parallelism": 0}]}, "spec.candidates[0].parallelism"),
        ({"candidates": [{**ONE, "storage": {"size": "1Ki"}}]}, "spec.candidates[0].storage"),
        ({"candidates": [{**ONE, "storage": {"accessMode": "ReadOnlyMany"}}]}, "spec.candidates[0].storage"),
    ],
)
def test_the_apiserver_refuses_what_an_evaluation_refuses(
    admin: KubeApi, namespace: str, crd: Obj, change: Obj, message: str
) -> None:
    """The Campaign's settings of size and spending are admitted by the Evaluation's own rules, shared and
    per candidate (the CRD generated from the same models)."""
    spec = shared(agent=replay("v1"), candidates=[ONE])
    spec.update(change)
    with pytest.raises(ApiError) as refused:
        admin.create(support.campaigns_path(namespace), campaign("bad", spec))
    assert refused.value.status == 422 and message in str(refused.value), refused.value


def test_the_apiserver_admits_every_setting_shared_and_per_candidate(
    admin: KubeApi, namespace: str, crd: Obj
) -> None:
    """The control for the refusals above: the same fields, valid, are stored as given."""
    own = {
        **ONE,
        "parallelism": 4,
        "maxCostUsd": 2.0,
        "prices": {"vendor/dear": {"inputPerMillion": 2.0, "outputPerMillion": 10.0}},
        "storage": {"size": "2Gi", "accessMode": "ReadWriteMany", "storageClassName": "nfs"},
        "gatewayTokenSecretRef": {"name": "own-token", "key": "token"},
        "judgeGatewayTokenSecretRef": {"name": "judge-token", "key": "judge"},
        "resources": {"cpu": "2", "memory": "1Gi"},
        "concurrency": 8,
    }
    spec = shared(agent=replay("v1"), candidates=[own], incumbent={**ONE, "name": "live", "parallelism": 3})
    spec.update(sized_grid("b"), grid=None, candidates=[own])
    spec = {k: v for k, v in spec.items() if v is not None}
    stored = admin.create(support.campaigns_path(namespace), campaign("good", spec))["spec"]
    assert stored["candidates"][0] == own and stored["incumbent"]["parallelism"] == 3
    assert (stored["parallelism"], stored["maxCostUsd"], stored["prices"]) == (PARALLELISM, BUDGET, PRICES)
    assert stored["key"] == ["fully-resolved", "mean", "cost"]
