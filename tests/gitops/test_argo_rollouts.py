"""The Argo Rollouts / Kargo gate's pieces fit together: the AnalysisTemplate's Job runs gate.sh from the
ConfigMap kustomize generates, finds the Evaluation template where gate.sh looks by default, passes the
`brain` argument, and runs with the gate's ServiceAccount, whose Role allows only what gate.sh does.
(gate.sh itself runs against the control plane in test_gate.py.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from tests.chart.conftest import kustomize

ROOT = Path(__file__).resolve().parents[2]
GATE = ROOT / "gitops" / "argo-rollouts"


def built(k8s_bin: Path) -> dict[str, dict[str, Any]]:
    return {o["kind"]: o for o in kustomize(k8s_bin, GATE)}


def test_the_job_runs_the_generated_script_with_the_template(k8s_bin: Path) -> None:
    objects = built(k8s_bin)
    template = objects["AnalysisTemplate"]
    assert [a["name"] for a in template["spec"]["args"]] == ["brain"]
    (metric,) = template["spec"]["metrics"]
    assert metric["count"] == 1 and metric["failureLimit"] == 0
    job = metric["provider"]["job"]["spec"]
    assert job["backoffLimit"] == 0
    pod = job["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["ASSAY_BRAIN"] == "{{args.brain}}"
    # The Job outlives the gate's own wait, so gate.sh reports the timeout (exit 2), not the Job deadline.
    assert job["activeDeadlineSeconds"] > int(env["ASSAY_TIMEOUT"].removesuffix("m")) * 60
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    config_map = objects["ConfigMap"]
    assert volumes["gate"]["configMap"]["name"] == config_map["metadata"]["name"]
    assert set(config_map["data"]) == {"gate.sh", "evaluation.yaml"}
    assert container["command"] == ["/bin/sh", f"{mounts['gate']}/gate.sh"]
    assert config_map["data"]["gate.sh"] == (GATE / "gate.sh").read_text()
    default_template = re.search(r"ASSAY_EVALUATION_TEMPLATE:-([^}]+)\}", (GATE / "gate.sh").read_text())
    assert default_template is not None
    assert default_template.group(1) == f"{mounts['gate']}/evaluation.yaml"
    assert yaml.safe_load(config_map["data"]["evaluation.yaml"])["kind"] == "Evaluation"
    # restricted: no privilege escalation, no capabilities, read-only root with /tmp writable
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert mounts["tmp"] == "/tmp" and env["HOME"] == "/tmp"
    assert pod["serviceAccountName"] == objects["ServiceAccount"]["metadata"]["name"]


def test_the_gate_role_allows_only_what_gate_sh_does(k8s_bin: Path) -> None:
    role = built(k8s_bin)["Role"]
    assert role["rules"] == [
        {
            "apiGroups": ["assay.dev"],
            "resources": ["evaluations"],
            "verbs": ["create", "get", "list", "watch"],
        }
    ]


def test_kargo_and_rollout_snippets_name_the_template() -> None:
    stage = yaml.safe_load((GATE / "kargo-stage.yaml").read_text())
    assert stage["spec"]["verification"]["analysisTemplates"] == [{"name": "assay-gate"}]
    assert [a["name"] for a in stage["spec"]["verification"]["args"]] == ["brain"]
    rollout = yaml.safe_load((GATE / "rollout-snippet.yaml").read_text())
    analysis = next(s["analysis"] for s in rollout["spec"]["strategy"]["canary"]["steps"] if "analysis" in s)
    assert analysis["templates"] == [{"templateName": "assay-gate"}]
    assert [a["name"] for a in analysis["args"]] == ["brain"]
