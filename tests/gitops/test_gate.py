"""gitops/argo-rollouts/gate.sh against the real control plane, with the RBAC of rbac.yaml and the gate's own
ServiceAccount token: it creates an Evaluation from the template, and this test plays the operator by
patching the status. Pass exits 0, Blocked 1, no verdict before ASSAY_TIMEOUT 2. The GitOps examples'
Evaluations are also dry-run against the real CRD."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_dev.cluster import ControlPlane
from assay_dev.cluster.podspec import DEFAULT_PATH
from assay_dev.cluster.wait import wait_until
from assay_operator import conditions
from tests.chart.conftest import kustomize
from tests.gitops.test_flux import FLUX

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parents[2]
GATE = ROOT / "gitops" / "argo-rollouts"
Obj = dict[str, Any]


def evaluations_path(namespace: str, name: str = "") -> str:
    return f"/apis/assay.dev/v1alpha1/namespaces/{namespace}/evaluations" + (f"/{name}" if name else "")


class Gate:
    def __init__(self, cp: ControlPlane, k8s_bin: Path, namespace: str, **env: str) -> None:
        cp.kubectl("apply", "-n", namespace, "-f", str(GATE / "rbac.yaml"))
        self.cp, self.namespace = cp, namespace
        kubeconfig = cp.token_kubeconfig(namespace, "assay-gate")
        environment = {
            "PATH": f"{k8s_bin}:{DEFAULT_PATH}",
            "HOME": os.environ.get("HOME", "/tmp"),
            "KUBECONFIG": str(kubeconfig),
            "ASSAY_EVALUATION_TEMPLATE": str(GATE / "evaluation-template.yaml"),
            **env,
        }
        self.process = subprocess.Popen(
            ["sh", str(GATE / "gate.sh")],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def created(self) -> Obj:
        """The Evaluation the gate created (waits for it)."""

        def probe() -> Obj | None:
            if self.process.poll() is not None:
                _, stderr = self.process.communicate()
                raise AssertionError(f"gate.sh exited {self.process.returncode}: {stderr}")
            items: list[Obj] = self.cp.api.get(evaluations_path(self.namespace))["items"]
            return items[0] if items else None

        return wait_until(probe, timeout=30, what="the gate's Evaluation")

    def finish(self) -> tuple[int, str, str]:
        stdout, stderr = self.process.communicate(timeout=120)
        return self.process.returncode, stdout, stderr

    def write_status(self, name: str, status: Obj) -> None:
        self.cp.api.merge_patch(evaluations_path(self.namespace, name) + "/status", {"status": status})


def parse_conditions(stored: list[Obj]) -> list[conditions.Condition]:
    return [conditions.Condition.model_validate(c) for c in stored]


def running(generation: int) -> Obj:
    message = f"running Job x-g{generation} for generation {generation}"
    return {
        "observedGeneration": generation,
        "message": message,
        "conditions": [c.to_patch() for c in conditions.merge(None, conditions.running(message), generation)],
    }


def finished(status: Obj, verdict: str, reason: str, message: str, generation: int) -> Obj:
    desired = conditions.finished(verdict, reason, message)
    return {
        "observedGeneration": generation,
        "verdict": verdict,
        "score": 0.95 if verdict == "Pass" else 0.81,
        "tickets": {
            "total": 16,
            "passed": 16 if verdict == "Pass" else 13,
            "summary": "16/16",
            "failing": [],
        },
        "message": message,
        "conditions": [
            c.to_patch()
            for c in conditions.merge(parse_conditions(status["conditions"]), desired, generation)
        ],
    }


@pytest.mark.parametrize(
    ("verdict", "reason", "exit_code"),
    [("Pass", "Passed", 0), ("Blocked", "GateBlocked", 1), ("Blocked", "DeadlineExceeded", 1)],
)
def test_gate_exits_with_the_verdict(
    control_plane: ControlPlane,
    k8s_bin: Path,
    crd: None,
    namespace: str,
    verdict: str,
    reason: str,
    exit_code: int,
) -> None:
    gate = Gate(control_plane, k8s_bin, namespace, ASSAY_BRAIN="brain-candidate-5f7", ASSAY_TIMEOUT="90s")
    evaluation = gate.created()
    name = evaluation["metadata"]["name"]
    assert name.startswith("support-agent-gate-")
    assert evaluation["spec"]["brain"] == {"configMap": {"name": "brain-candidate-5f7"}}
    generation = evaluation["metadata"]["generation"]
    status = running(generation)
    gate.write_status(name, status)
    gate.write_status(name, finished(status, verdict, reason, f"{verdict}: {reason}", generation))
    code, stdout, stderr = gate.finish()
    assert code == exit_code, stderr
    assert f"evaluation.assay.dev/{name}: {verdict}" in stdout


def test_gate_times_out_without_a_verdict(
    control_plane: ControlPlane, k8s_bin: Path, crd: None, namespace: str
) -> None:
    gate = Gate(control_plane, k8s_bin, namespace, ASSAY_TIMEOUT="3s")
    evaluation = gate.created()
    gate.write_status(evaluation["metadata"]["name"], running(evaluation["metadata"]["generation"]))
    code, _, stderr = gate.finish()
    assert code == 2
    assert "no verdict" in stderr


def test_gate_refuses_a_brain_that_is_not_a_configmap_name(
    control_plane: ControlPlane, k8s_bin: Path, crd: None, namespace: str
) -> None:
    gate = Gate(control_plane, k8s_bin, namespace, ASSAY_BRAIN='x"}}}')
    code, _, stderr = gate.finish()
    assert code == 2 and "not a ConfigMap name" in stderr
    assert control_plane.api.get(evaluations_path(namespace))["items"] == []


def test_the_gitops_evaluations_pass_server_validation(
    control_plane: ControlPlane, k8s_bin: Path, crd: None, namespace: str
) -> None:
    built = [o for o in kustomize(k8s_bin, FLUX / "evaluation") if o["kind"] == "Evaluation"]
    template = yaml.safe_load((GATE / "evaluation-template.yaml").read_text())
    for obj in [*built, template]:
        obj["metadata"].pop("namespace", None)
        result = control_plane.kubectl(
            "create", "--dry-run=server", "-n", namespace, "-f", "-", input=yaml.safe_dump(obj), check=False
        )
        assert result.returncode == 0, result.stderr
