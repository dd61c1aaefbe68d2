"""Every status the operator writes fits the CRD's structural schema, field by field.

The apiserver prunes a status field its schema does not declare without any error, so a misspelt key would
vanish silently. Status shapes are built as typed models (`extra="forbid"`), which makes a wrong field a
ValidationError where it is built; these tests show that, and walk every shape the builders produce against
the generated CRDs, so a model and its schema cannot drift apart either.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from assay_operator.campaign import plan as campaign
from assay_operator.campaign import status as campaign_status
from assay_operator.campaign.api import CampaignSpec, CampaignStatus
from assay_operator.campaign.children import parse_children
from assay_operator.evaluation.api import EvaluationStatus, TicketsStatus
from assay_operator.evaluation.read import outcome as job_outcome
from assay_operator.evaluation.read import reconcile
from assay_runner.contract import (
    ConversationCost,
    Inputs,
    MlflowRef,
    RepetitionFigures,
    RunSummary,
    SummaryCounts,
    SummaryRule,
    Usage,
)
from tests.operator.test_campaign import as_the_operator_wrote

CRDS = Path(__file__).resolve().parents[2] / "crds"
Obj = dict[str, Any]
TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


def status_schema(plural: str) -> Obj:
    crd = yaml.safe_load((CRDS / f"assay.dev_{plural}.yaml").read_text())
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]  # type: ignore[no-any-return]


def violations(value: Any, schema: Obj, path: str = "status") -> list[str]:
    """Where `value` breaks the structural schema: undeclared fields (what the apiserver would prune), wrong
    types, values outside an enum, missing required fields, null where null is not allowed — and the bounds
    the apiserver refuses a whole patch for (maxItems, maxLength, maxProperties, pattern)."""
    if value is None:
        return [] if schema.get("nullable") else [f"{path}: null is not allowed"]
    expected = TYPES[schema["type"]]
    if not isinstance(value, expected) or (schema["type"] != "boolean" and isinstance(value, bool)):
        return [f"{path}: {type(value).__name__} where the schema says {schema['type']}"]
    found: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{path}: {value!r} is not one of {schema['enum']}")
    for bound, size in (("maxItems", len), ("maxLength", len), ("maxProperties", len)):
        if bound in schema and size(value) > schema[bound]:
            found.append(f"{path}: {size(value)} over {bound} {schema[bound]}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        found.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if schema["type"] == "array":
        for index, item in enumerate(value):
            found += violations(item, schema["items"], f"{path}[{index}]")
    if schema["type"] == "object":
        properties: Obj = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                found += violations(item, properties[key], f"{path}.{key}")
            elif isinstance(extra, dict):
                found += violations(item, extra, f"{path}.{key}")
            else:
                found.append(f"{path}.{key}: not in the CRD schema (the apiserver would prune it)")
        found += [f"{path}.{key}: required" for key in schema.get("required", []) if key not in value]
    return found


def full_summary(verdict: str = "Blocked") -> RunSummary:
    return RunSummary(
        verdict=verdict,  # type: ignore[arg-type]
        score=0.8123,
        judges={"policy": 1.0, "quality": None},
        rules=[SummaryRule(name="score", passed=False, detail="0.812 < 0.900", value=0.8123)],
        counts=SummaryCounts(tickets=4, passed_tickets=3, cells=12, errors=0, judges_passing=1),
        failing_tickets=["T-2"],
        repetitions=RepetitionFigures(
            k=3, cells=12, passing_cells=6, pass_rate=0.5, pass_at_k=0.75, pass_hat_k=0.25, fully_resolved=1
        ),
        usage=Usage(input_tokens=10, output_tokens=5, cost_usd=0.001),
        conversations=ConversationCost(
            conversations=2,
            turns=5,
            agent=Usage(input_tokens=8, output_tokens=4, cost_usd=0.0008),
            customer=Usage(input_tokens=2, output_tokens=1, cost_usd=0.0002),
        ),
        inputs=Inputs(brain_digest="sha256:b", suite_digest="sha256:s", judges_digest="sha256:j"),
        mlflow=MlflowRef(tracking_uri="http://mlflow", experiment_id="1", run_id="r", logged=True),
    )


def evaluation_shapes() -> dict[str, EvaluationStatus]:
    empty = EvaluationStatus()
    running = reconcile.running_status(empty, 2, "e-g2", "sha256:brain", "2026-12-03T00:00:00Z")
    finished = job_outcome.Outcome("succeeded", "Completed", "", full_summary())
    return {
        "waiting": reconcile.waiting_status(empty, 1, "BrainNotFound", "no brain", stalled=True),
        "invalid": reconcile.invalid_status(empty, 1, "invalid spec: brain: Field required"),
        "running": running,
        "finished": reconcile.finished_status(finished, running, 2, "2026-12-03T00:10:00Z", "e-g2"),
        "failed": reconcile.finished_status(
            job_outcome.Outcome("failed", "OOMKilled", "raise memory"), running, 2, "t", "e-g2"
        ),
    }


@pytest.mark.parametrize("shape", sorted(evaluation_shapes()))
def test_every_evaluation_status_shape_fits_the_crd(shape: str) -> None:
    patch = evaluation_shapes()[shape].to_patch()
    assert patch["observedGeneration"] in (1, 2) and patch["conditions"]
    if shape == "finished":  # the conversations' cost, agent and customer apart, is declared too
        assert patch["conversations"]["customer"] == {"inputTokens": 2, "outputTokens": 1, "costUsd": 0.0002}
    assert violations(patch, status_schema("evaluations")) == []


def campaign_shapes() -> dict[str, CampaignStatus]:
    spec = CampaignSpec.model_validate(
        {
            "suite": {"bundled": "support-desk"},
            "agent": {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}},
            "candidates": [{"name": "a", "brain": {"configMap": {"name": "brain-a"}}}],
            "incumbent": {"name": "live", "brain": {"configMap": {"name": "brain-live"}}},
        }
    )
    wanted = campaign.entries("release", spec)
    finished = {
        entry.evaluation: {
            "metadata": {"name": entry.evaluation, "generation": 1},
            "spec": entry.spec,
            "status": reconcile.finished_status(
                job_outcome.Outcome("succeeded", "Completed", "", full_summary("Pass")),
                EvaluationStatus(),
                1,
                "t",
                "x-g1",
            ).to_patch(),
        }
        for entry in wanted
    }
    empty = CampaignStatus()
    return {
        "progress": campaign_status.campaign_status(spec, wanted, {}, 1, empty),
        "decided": campaign_status.campaign_status(
            spec, wanted, parse_children(map(as_the_operator_wrote, finished.values())), 1, empty
        ),
        "conflict": campaign_status.conflict_status(empty, 1, "an Evaluation named release-a already exists"),
        "invalid": campaign_status.invalid_status(empty, 1, "invalid spec: candidates: too short"),
    }


@pytest.mark.parametrize("shape", sorted(campaign_shapes()))
def test_every_campaign_status_shape_fits_the_crd(shape: str) -> None:
    patch = campaign_shapes()[shape].to_patch()
    assert violations(patch, status_schema("campaigns")) == []


def test_the_decided_campaign_carries_rows_read_through_the_typed_evaluation_status() -> None:
    decided = campaign_shapes()["decided"]
    assert decided.incumbent is not None and decided.incumbent.phase == "Finished"
    assert decided.candidates and decided.candidates[0].key == {"fully-resolved": 1.0, "mean": 0.8123}


def test_a_misspelt_status_field_is_refused_where_the_status_is_built() -> None:
    with pytest.raises(ValidationError, match="verdcit"):
        EvaluationStatus.model_validate({"verdcit": "Pass"})
    status = reconcile.invalid_status(EvaluationStatus(), 1, "bad")
    with pytest.raises(ValueError, match="scroe"):
        status.scroe = 0.9  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="summery"):
        TicketsStatus.model_validate({"total": 1, "passed": 1, "summery": "1/1"})
    with pytest.raises(ValidationError):
        status.verdict = "Passed"  # type: ignore[assignment]  # not in the enum: assignment is validated too


def test_the_schema_walk_finds_what_the_apiserver_would_prune() -> None:
    # The check itself can fail: a key the CRD does not declare, deep inside, is reported by its path.
    patch = evaluation_shapes()["finished"].to_patch()
    patch["tickets"]["failng"] = ["T-9"]
    patch["verdict"] = "Maybe"
    del patch["rules"][0]["detail"]
    assert violations(patch, status_schema("evaluations")) == [
        "status.verdict: 'Maybe' is not one of ['Pass', 'Blocked']",
        "status.rules[0].detail: required",
        "status.tickets.failng: not in the CRD schema (the apiserver would prune it)",
    ]


HUGE = "x" * 20_000


def extreme_summary() -> RunSummary:
    """A RunSummary at and past every bound the status has: more rules than the status may list, long
    details, many failing tickets, more per-ticket scores than the status holds."""
    from assay_runner.contract import PairedTickets

    summary = full_summary("Blocked")
    rules = [SummaryRule(name=f"rule{i}", passed=i % 3 != 0, detail=HUGE, value=0.5) for i in range(40)]
    paired = PairedTickets(tickets_digest="sha256:t", scores=[0.5] * 900, resolved="0" * 900)
    return summary.model_copy(
        update={"rules": rules, "failing_tickets": [f"T-{i}" for i in range(300)], "paired": paired}
    )


def extreme_evaluation_shapes() -> dict[str, EvaluationStatus]:
    empty = EvaluationStatus()
    running = reconcile.running_status(empty, 2, "e-g2", "sha256:brain", "t", rerun=HUGE)
    return {
        "waiting": reconcile.waiting_status(empty, 1, "BrainNotFound", HUGE, stalled=True),
        "invalid": reconcile.invalid_status(empty, 1, HUGE),
        "finished": reconcile.finished_status(
            job_outcome.Outcome("succeeded", "Completed", "", extreme_summary()), running, 2, "t", "e-g2"
        ),
        "odd-job-reason": reconcile.finished_status(
            job_outcome.Outcome("failed", "not a valid/reason 42!", HUGE), running, 2, "t", "e-g2"
        ),
    }


@pytest.mark.parametrize("shape", sorted(extreme_evaluation_shapes()))
def test_an_evaluation_status_at_the_limits_still_fits(shape: str) -> None:
    """Built from inputs past every bound, the status is cut to fit by construction (and says so) instead
    of being refused by the apiserver."""
    patch = extreme_evaluation_shapes()[shape].to_patch()
    assert violations(patch, status_schema("evaluations")) == []
    assert len(json.dumps(patch)) < 64 * 1024


def test_a_cut_rules_list_keeps_the_failed_rules_and_counts_the_rest() -> None:
    status = extreme_evaluation_shapes()["finished"]
    rules = status.rules or []
    assert len(rules) == 16 and all(not r.passed for r in rules[:14])  # 14 of the 40 rules failed
    assert rules[-1].name == "more" and "25 more rules" in rules[-1].detail and status.paired is None
    assert status.rules is not None and status.rules[0].detail.endswith("…")
