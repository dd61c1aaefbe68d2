"""The cluster-state gauges (pure parts): where an Evaluation stands, and what the collector exports."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry, generate_latest

from assay_operator import metrics
from assay_operator.evaluation.read.state import SeenEvaluation, evaluation_state
from assay_operator.metrics import EvaluationsCollector, EvaluationState

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "gitops" / "argocd" / "resource_customizations" / "assay.dev" / "Evaluation" / "testdata"


def fixture(name: str) -> dict[str, Any]:
    obj: dict[str, Any] = yaml.safe_load((FIXTURES / f"{name}.yaml").read_text())
    return obj


@pytest.mark.parametrize(
    ("name", "phase", "verdict"),
    [
        ("healthy_pass", "Finished", "Pass"),
        ("degraded_blocked", "Finished", "Blocked"),
        ("degraded_invalid_spec", "Finished", "Blocked"),
        ("progressing_running", "Running", "None"),
        ("progressing_waiting_for_brain", "Pending", "None"),
        ("degraded_brain_not_found", "Stalled", "None"),
        ("progressing_stale_generation", "Pending", "None"),  # a Pass of generation 1 does not count for 2
        ("progressing_no_status", "Pending", "None"),
    ],
)
def test_phase_and_verdict_of_the_current_generation(name: str, phase: str, verdict: str) -> None:
    got = evaluation_state(SeenEvaluation.of(fixture(name)))
    assert (got.phase, got.verdict) == (phase, verdict)
    assert (got.deadline_at is None) == (phase == "Finished")


def test_the_deadline_runs_from_the_start_of_the_run() -> None:
    running = fixture("progressing_running")
    started = datetime.fromisoformat(running["status"]["startTime"].replace("Z", "+00:00"))
    assert evaluation_state(SeenEvaluation.of(running)).deadline_at == started + timedelta(
        seconds=1800
    )  # the default
    running["spec"]["deadlineSeconds"] = 60
    assert evaluation_state(SeenEvaluation.of(running)).deadline_at == started + timedelta(seconds=60)


def test_the_collector_exports_every_pair_and_the_overdue_count() -> None:
    collector = EvaluationsCollector()
    registry = CollectorRegistry()
    registry.register(collector)
    past, future = datetime.now(UTC) - timedelta(minutes=1), datetime.now(UTC) + timedelta(hours=1)
    collector.record("a", EvaluationState("Finished", "Pass", None))
    collector.record("b", EvaluationState("Running", "None", past))
    collector.record("c", EvaluationState("Pending", "None", future))
    collector.record("d", EvaluationState("Finished", "Blocked", None))
    collector.record("d", None)  # deleted
    text = generate_latest(registry).decode()
    for line in (
        'assay_evaluations_by_phase{phase="Finished",verdict="Pass"} 1.0',
        'assay_evaluations_by_phase{phase="Finished",verdict="Blocked"} 0.0',
        'assay_evaluations_by_phase{phase="Running",verdict="None"} 1.0',
        'assay_evaluations_by_phase{phase="Pending",verdict="None"} 1.0',
        'assay_evaluations_by_phase{phase="Stalled",verdict="None"} 0.0',
        "assay_evaluations_past_deadline 1.0",
    ):
        assert line in text, text


def test_every_label_set_exists_at_start() -> None:
    metrics.initialise()
    text = generate_latest().decode()
    for verdict, reason in metrics.VERDICT_REASONS:
        assert f'assay_evaluations_total{{reason="{reason}",verdict="{verdict}"}}' in text
    assert 'assay_errors_total{kind="api"}' in text
