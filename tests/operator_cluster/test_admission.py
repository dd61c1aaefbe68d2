"""Admission: every manifest in invalid/ is rejected by the real apiserver (OpenAPI schema, CEL rules, strict
field validation) with the message its `# expect:` lines name; a valid one is admitted. Argo Rollouts keeps
such an "expected failures" set; adding a case is adding a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_dev.cluster import ControlPlane

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


def test_kubectl_explain_documents_the_spec(control_plane: ControlPlane, crd: dict[str, Any]) -> None:
    recursive = control_plane.kubectl("explain", "evaluations.spec", "--recursive").stdout
    for field in ("brain", "suite", "agent", "concurrency", "deadlineSeconds", "answers", "thresholds"):
        assert field in recursive, field
    one = control_plane.kubectl("explain", "evaluations.spec.concurrency").stdout
    assert "Tickets answered at once." in one
