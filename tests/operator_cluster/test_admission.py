"""Admission: every manifest in invalid/ is rejected by the real apiserver (OpenAPI schema, CEL rules, strict
field validation) with the message its `# expect:` lines name; a valid one is admitted. Argo Rollouts keeps
such an "expected failures" set; adding a case is adding a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from assay_dev.cluster import ControlPlane
from assay_operator.evaluation.api import EvaluationSpec

pytestmark = pytest.mark.cluster

INVALID = Path(__file__).with_name("invalid")
CASES = sorted(INVALID.glob("*.yaml"))

VALID = """
apiVersion: assay.dev/v1alpha1
kind: Evaluation
metadata:
  name: valid
spec:
  brain: {configMap: {name: brain-v1}}
  suite: {bundled: support-desk}
  tickets: {ids: [T-001, T-002]}
  agent: {kind: replay, answers: {bundled: support-desk/answers/v1}}
  cassettes: {bundled: support-desk/cassettes}
  gateway: http://gateway.ai:8080/v1
  gate: {minScore: 0.8, thresholds: {quality: 3.5}}
  resources: {cpu: 500m, memory: 512Mi}
  deadlineSeconds: 60
  concurrency: 32
  repetitions: 20
"""


def expectations(path: Path) -> list[str]:
    return [
        line.removeprefix("# expect:").strip()
        for line in path.read_text().splitlines()
        if line.startswith("# expect:")
    ]


def test_the_folder_is_well_formed() -> None:
    assert len(CASES) >= 20
    for path in CASES:
        assert expectations(path), f"{path.name} has no '# expect:' line"
        document = yaml.safe_load(path.read_text())
        assert document["kind"] == "Evaluation" and document["metadata"]["name"] == path.stem


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_invalid_manifest_is_rejected_at_admission(
    control_plane: ControlPlane, crd: dict[str, Any], path: Path
) -> None:
    # A server-side dry run goes through the whole admission chain and persists nothing.
    result = control_plane.kubectl("apply", "--dry-run=server", "-n", "default", "-f", str(path), check=False)
    output = result.stderr + result.stdout
    assert result.returncode != 0, f"{path.name} was admitted:\n{output}"
    for expected in expectations(path):
        assert expected in output, f"{path.name}: expected {expected!r} in:\n{output}"


def test_a_valid_manifest_at_the_bounds_is_admitted(control_plane: ControlPlane, crd: dict[str, Any]) -> None:
    result = control_plane.kubectl("apply", "--dry-run=server", "-n", "default", "-f", "-", input=VALID)
    assert "created (server dry run)" in result.stdout


QUANTITIES = [
    {"cpu": 2, "memory": 1073741824},  # int-or-string, as in a pod's resources
    {"cpu": "1e1", "memory": "1e9"},  # exponent forms
    {"cpu": "250000000n", "memory": "64Mi"},  # nano-cores; the lower memory bound
    {"cpu": "500000u", "memory": "256Gi"},  # micro-cores; the upper memory bound
    {"cpu": "10m", "memory": "2G"},
    {"cpu": "64", "memory": "6Gi"},
]


@pytest.mark.parametrize("resources", QUANTITIES, ids=[f"{q['cpu']}-{q['memory']}" for q in QUANTITIES])
def test_kubernetes_quantity_forms_are_admitted_and_accepted_by_the_operator(
    control_plane: ControlPlane, crd: dict[str, Any], resources: dict[str, Any]
) -> None:
    """Every form Kubernetes accepts, within the bounds, passes admission and the operator's own check (which
    keeps the value as written, for the Job)."""
    manifest = yaml.safe_load(VALID)
    manifest["spec"]["resources"] = resources
    result = control_plane.kubectl(
        "create", "--dry-run=server", "-n", "default", "-o", "json", "-f", "-", input=json.dumps(manifest)
    )
    admitted = json.loads(result.stdout)["spec"]
    spec = EvaluationSpec.model_validate(admitted)
    assert spec.resources is not None
    assert (spec.resources.cpu, spec.resources.memory) == (str(resources["cpu"]), str(resources["memory"]))


@pytest.mark.parametrize(
    "path", [p for p in CASES if p.stem.startswith(("cpu-", "memory-"))], ids=lambda p: p.stem
)
def test_the_operator_refuses_what_admission_refuses(path: Path) -> None:
    """An object admitted before the CRD carried these rules still fails closed, with the same message."""
    spec = yaml.safe_load(path.read_text())["spec"]
    with pytest.raises(ValidationError) as refused:
        EvaluationSpec.model_validate(spec)
    for expected in expectations(path):
        assert expected in str(refused.value)


def test_kubectl_explain_documents_the_spec(control_plane: ControlPlane, crd: dict[str, Any]) -> None:
    recursive = control_plane.kubectl("explain", "evaluations.spec", "--recursive").stdout
    for field in ("brain", "suite", "agent", "concurrency", "deadlineSeconds", "answers", "thresholds"):
        assert field in recursive, field
    one = control_plane.kubectl("explain", "evaluations.spec.concurrency").stdout
    assert "Tickets answered at once, in each answer pod." in one
