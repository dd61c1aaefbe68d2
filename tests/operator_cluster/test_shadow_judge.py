"""A shadow judge on the cluster: the example suite, with a code judge that fails every ticket marked
`shadow: true`, replayed from the v1 answers. The verdict stays Pass, and the Evaluation's status shows the
shadow judge's mean beside the others, names it in `shadowJudges` with why, and counts it out of
`judgesPassing`. And a suite ConfigMap that requires calibration, with the calibration of the example's
labelled set: the operator's split carries it to the judge pod, which gates on `policy` and shadows
`format`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.operator_support import OperatorProcess, evaluation, replay_spec
from assay_dev.operator_support.paths import SUPPORT_DESK
from assay_runner.cli import main

pytestmark = pytest.mark.cluster

STRICT = {
    "name": "strict",
    "type": "code",
    "weight": 0.5,
    "threshold": 1.0,
    "floor": 1.0,
    "shadow": True,
    "code": 'return (0.0, "fails every answer")',
}


def shadow_suite(
    name: str, changes: dict[str, Any] | None = None, files: dict[str, str] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The example suite with the strict shadow judge (or `changes` to suite.yaml, and other `files`), and
    the example's KB, as ConfigMaps."""
    spec = yaml.safe_load((SUPPORT_DESK / "suite.yaml").read_text())
    if changes is None:
        spec["judges"].append(STRICT)
    else:
        spec.update(changes)
    data = {"suite.yaml": yaml.safe_dump(spec), "tickets.yaml": (SUPPORT_DESK / "tickets.yaml").read_text()}
    suite = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{name}-suite"},
        "data": {**data, **(files or {})},
    }
    articles = {p.name: p.read_text() for p in sorted((SUPPORT_DESK / "kb").iterdir())}
    kb = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-kb"}, "data": articles}
    return suite, kb


def test_a_shadow_judge_failing_every_ticket_leaves_the_verdict_pass(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    for config_map in shadow_suite("shadow"):
        admin.create(support.config_maps_path(namespace), config_map)
    spec = replay_spec(
        brains("v1"),
        "v1",
        suite={"configMap": {"name": "shadow-suite"}, "kbConfigMap": {"name": "shadow-kb"}},
    )
    admin.create(support.evaluations_path(namespace), evaluation("shadowed", spec))
    status = support.wait_for_verdict(admin, namespace, "shadowed", operator=operator)["status"]
    print({key: status.get(key) for key in ("verdict", "score", "judges", "judgesPassing", "shadowJudges")})
    assert status["verdict"] == "Pass"
    assert status["judges"]["strict"] == 0.0 and status["judges"]["policy"] == 1.0
    assert status["shadowJudges"] == {"strict": "declared shadow (shadow: true)"}
    judges_rule = next(r for r in status["rules"] if r["name"] == "judges")
    assert judges_rule["passed"] and "shadow, not deciding: strict" in judges_rule["detail"]
    # Every one of the example's own judges passes on v1 and is counted; the shadow judge is not.
    example_judges = len(yaml.safe_load((SUPPORT_DESK / "suite.yaml").read_text())["judges"])
    assert status["judgesPassing"] == example_judges


def test_a_suite_requiring_calibration_gates_the_calibrated_judge_on_the_cluster(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str], tmp_path: Path
) -> None:
    labels = SUPPORT_DESK / "calibration" / "labels.jsonl"
    assert main(["calibrate", str(SUPPORT_DESK), str(labels), "--out", str(tmp_path)]) == 0
    requirement = {"calibration": {"judges": ["policy", "format"], "minKappa": 0.6, "minLabels": 50}}
    files = {"calibration.json": (tmp_path / "calibration.json").read_text()}
    for config_map in shadow_suite("calibrated", requirement, files):
        admin.create(support.config_maps_path(namespace), config_map)
    suite = {"configMap": {"name": "calibrated-suite"}, "kbConfigMap": {"name": "calibrated-kb"}}
    admin.create(
        support.evaluations_path(namespace),
        evaluation("calibrated", replay_spec(brains("v1"), "v1", suite=suite)),
    )
    status = support.wait_for_verdict(admin, namespace, "calibrated", operator=operator)["status"]
    print({key: status.get(key) for key in ("verdict", "judges", "judgesPassing", "shadowJudges")})
    assert status["verdict"] == "Pass"
    assert list(status["shadowJudges"]) == ["format"]
    assert status["shadowJudges"]["format"].startswith("kappa -0.52 < minKappa 0.6 on 128 labels")
    assert status["judges"]["format"] == 1.0  # recorded like any judge
