"""A Campaign's Evaluations of real size: the shared settings of size and spending (parallelism, storage, the
gateway tokens, prices, a budget) reach every Evaluation, a listed candidate's own replace them, the bounds
are the Evaluation's; and cost in the decision: each candidate's cost in status, the cheaper of two equal
candidates winning when the key names `cost`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from assay_operator.campaign import plan as campaign
from assay_operator.campaign.api import CHILD_SETTINGS, ChildSettings
from assay_operator.evaluation.api import EvaluationSpec
from tests.operator.test_campaign import finished_evaluation, spec, wire_status

Obj = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]
PRICE = {"inputPerMillion": 1.0, "outputPerMillion": 4.0}
SHARED: Obj = {
    "parallelism": 2,
    "maxCostUsd": 0.5,
    "prices": {"vendor/model-a": PRICE, "vendor/model-b": {"inputPerMillion": 3.0, "outputPerMillion": 15.0}},
    "storage": {"size": "256Mi", "accessMode": "ReadWriteOnce"},
    "gatewayTokenSecretRef": {"name": "gateway-token"},
    "judgeGatewayTokenSecretRef": {"name": "judge-token", "key": "judge"},
    "resources": {"cpu": "1", "memory": "512Mi"},
}


def test_every_evaluation_gets_the_shared_size_and_spending() -> None:
    wanted = campaign.entries(
        "release", spec(**SHARED, incumbent={"name": "live", "brain": {"configMap": {"name": "b-live"}}})
    )
    assert len(wanted) == 4
    for entry in wanted:
        child = entry.spec
        assert child["parallelism"] == 2 and child["maxCostUsd"] == 0.5
        assert child["prices"] == SHARED["prices"] and child["storage"] == SHARED["storage"]
        assert child["gatewayTokenSecretRef"] == {"name": "gateway-token", "key": "token"}
        assert child["judgeGatewayTokenSecretRef"] == {"name": "judge-token", "key": "judge"}
        assert child["resources"] == {"cpu": "1", "memory": "512Mi"}
        # What the Evaluation admits: the child is valid as the apiserver would store it.
        assert entry.normal is not None and EvaluationSpec.model_validate(child).parallelism == 2


def test_a_candidates_own_settings_replace_the_shared_ones_and_prices_merge_by_model() -> None:
    own: Obj = {
        "name": "big",
        "brain": {"configMap": {"name": "b-big"}},
        "parallelism": 8,
        "maxCostUsd": 2.0,
        "prices": {"vendor/model-b": {"inputPerMillion": 2.0, "outputPerMillion": 10.0}},
        "storage": {"size": "2Gi"},
        "gatewayTokenSecretRef": {"name": "big-token"},
        "resources": {"cpu": "2"},
        "concurrency": 8,
    }
    small = {"name": "small", "brain": {"configMap": {"name": "b-small"}}}
    incumbent = {"name": "live", "brain": {"configMap": {"name": "b-live"}}, "parallelism": 4}
    wanted = campaign.entries("r", spec(**SHARED, candidates=[own, small], incumbent=incumbent))
    children = {e.candidate.name: e.spec for e in wanted}
    big, shared, live = children["big"], children["small"], children["live"]
    assert (big["parallelism"], big["maxCostUsd"], big["concurrency"]) == (8, 2.0, 8)
    assert big["storage"] == {"size": "2Gi"}  # replaced whole: its access mode is the Evaluation's default
    assert big["gatewayTokenSecretRef"] == {"name": "big-token", "key": "token"}
    assert big["judgeGatewayTokenSecretRef"] == SHARED["judgeGatewayTokenSecretRef"]  # not its own: shared
    assert big["resources"] == {"cpu": "2", "memory": "6Gi"}
    assert big["prices"] == {
        "vendor/model-a": PRICE,
        "vendor/model-b": {"inputPerMillion": 2.0, "outputPerMillion": 10.0},
    }
    assert (shared["parallelism"], shared["maxCostUsd"], shared["concurrency"]) == (2, 0.5, 4)
    assert shared["prices"] == SHARED["prices"] and shared["storage"] == SHARED["storage"]
    assert live["parallelism"] == 4 and live["maxCostUsd"] == 0.5
    # Without shared settings an Evaluation gets its own defaults, and nothing is written for them.
    plain = campaign.entries("r", spec())[0].spec
    settings = {ChildSettings.model_fields[name].alias or name for name in CHILD_SETTINGS}
    assert "maxCostUsd" in settings and not settings & set(plain)


def test_grid_cells_get_the_shared_settings() -> None:
    grid = {
        "brains": [{"name": f"b{i}", "brain": {"configMap": {"name": f"b{i}"}}} for i in range(2)],
        "agents": [{"name": "chat", "agent": {"kind": "chat"}}],
        "models": [{"name": "a", "model": "vendor/model-a"}, {"name": "b", "model": "vendor/model-b"}],
    }
    wanted = campaign.entries("g", spec(**SHARED, candidates=None, grid=grid))
    assert [e.candidate.name for e in wanted] == ["b0-chat-a", "b0-chat-b", "b1-chat-a", "b1-chat-b"]
    assert {(e.spec["parallelism"], e.spec["maxCostUsd"]) for e in wanted} == {(2, 0.5)}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"parallelism": 0}, "parallelism"),
        ({"parallelism": 101}, "parallelism"),
        ({"maxCostUsd": 0}, "maxCostUsd"),
        ({"prices": {"m": {"inputPerMillion": -1, "outputPerMillion": 1}}}, "inputPerMillion"),
        ({"gatewayTokenSecretRef": {"name": "Not_A_Name"}}, "gatewayTokenSecretRef.name"),
        ({"storage": {"accessMode": "ReadOnlyMany"}}, "storage.accessMode"),
        ({"key": ["cost", "mean"]}, "cost only breaks ties"),
        (
            {"candidates": [{"name": "a", "brain": {"configMap": {"name": "b"}}, "maxCostUsd": -1}]},
            "maxCostUsd",
        ),
        (
            {"candidates": [{"name": "a", "brain": {"configMap": {"name": "b"}}, "parallelism": 0}]},
            "parallelism",
        ),
    ],
)
def test_the_models_refuse_what_the_evaluation_refuses(change: Obj, problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        spec(**change)


def _campaign_schema() -> Obj:
    crd = yaml.safe_load((ROOT / "crds" / "assay.dev_campaigns.yaml").read_text())
    schema: Obj = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    return schema


def _bounds(schema: Obj) -> Obj:
    """A field's schema but its words and its default (the Evaluation's default applies when it is unset)."""
    return {k: v for k, v in schema.items() if k not in ("description", "default", "nullable")}


def test_the_crd_admits_the_settings_with_the_evaluations_bounds() -> None:
    """The apiserver refuses what the models refuse: the same bounds and CEL rules, shared and per candidate
    (the real apiserver's admission is in tests/operator_cluster/test_campaign_grid.py)."""
    schema = _campaign_schema()
    evaluation = yaml.safe_load((ROOT / "crds" / "assay.dev_evaluations.yaml").read_text())
    child = evaluation["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    candidate = schema["properties"]["candidates"]["items"]["properties"]
    for field in ("parallelism", "storage", "gatewayTokenSecretRef", "judgeGatewayTokenSecretRef", "prices"):
        for where in (schema["properties"], candidate, schema["properties"]["incumbent"]["properties"]):
            assert _bounds(where[field]) == _bounds(child[field]), field
    assert schema["properties"]["maxCostUsd"]["minimum"] == 0
    assert schema["properties"]["maxCostUsd"]["exclusiveMinimum"] is True
    rules = {rule["rule"]: rule["message"] for rule in schema["x-kubernetes-validations"]}
    assert rules["self.key[0] != 'cost'"].startswith("cost only breaks ties")
    assert "cost" in schema["properties"]["key"]["items"]["enum"]


def test_status_shows_each_candidates_cost_and_the_cheaper_of_two_equal_candidates_wins() -> None:
    s = spec(**SHARED, key=["fully-resolved", "mean", "cost"])
    wanted = campaign.entries("r", s)
    a, b, c = wanted
    existing = {
        e.evaluation: finished_evaluation(e, score=0.92, fully_resolved=3) for e in wanted
    }  # equal on every reduction of quality
    for entry, cost in ((a, 0.031), (b, 0.012), (c, None)):
        if cost is not None:
            usage = {"inputTokens": 9000, "outputTokens": 1200, "costUsd": cost}
            existing[entry.evaluation]["status"]["usage"] = usage
    status = wire_status(s, wanted, existing, 1)
    rows = {r["name"]: r for r in status["candidates"]}
    assert (rows["a"]["costUsd"], rows["b"]["costUsd"]) == (0.031, 0.012)
    assert "costUsd" not in rows["c"] and "cost" not in rows["c"]["key"]  # not known: ranked last on cost
    assert (status["winner"], status["promote"]) == ("b", True)
    assert [rows[n]["rankByKey"] for n in ("b", "a", "c")] == [1, 2, 3]
    assert rows["b"]["key"] == {"fully-resolved": 3.0, "mean": 0.92, "cost": 0.012}
    assert any(r.startswith("release-key winner: b (") and "cost $0.0120" in r for r in status["reasons"])
    # The same Evaluations under the default key tie, and the name decides: cost decides only when named.
    assert wire_status(spec(**SHARED), wanted, existing, 1)["winner"] == "c"
