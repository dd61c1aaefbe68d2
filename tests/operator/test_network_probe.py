"""The network probe's pod (assay_operator.evaluation.build.network_probe): selected by the answer pods'
NetworkPolicy, shaped like an answer pod, and its script run for real against loopback sockets."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from assay_operator.cluster_views import Pod
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build import names, network_probe
from assay_operator.evaluation.build.egress import build_answer_policy
from assay_operator.evaluation.build.layout import TERMINATION_LOG
from assay_operator.evaluation.read import network_report
from assay_operator.evaluation.steps import network_check
from assay_operator.settings import Settings

SETTINGS = Settings(
    runner_image="quay.io/assay/runner:0.1.0",
    default_gateway="http://gateway.ai:8080/v1",
    default_mlflow_uri="http://mlflow.mlops:5000",
    network_probe_targets=("assay-operator-metrics.assay:8080",),
)
SPEC = EvaluationSpec.model_validate(
    {
        "brain": {"configMap": {"name": "brain-v1"}},
        "suite": {"configMap": {"name": "support-suite"}},
        "agent": {"kind": "chat", "model": "gpt-small"},
        "network": {"requireEnforced": True},
    }
)


def probe_job(spec: EvaluationSpec = SPEC) -> dict[str, Any]:
    return network_probe.build_probe_job(spec, "support-bot", 3, SETTINGS)


def probe_pod(spec: EvaluationSpec = SPEC) -> dict[str, Any]:
    """The pod the probe's Job makes (its template)."""
    template: dict[str, Any] = probe_job(spec)["spec"]["template"]  # type: ignore[index]
    return template


def test_the_answer_pods_policy_selects_the_probe_pod() -> None:
    policy = build_answer_policy(SPEC, "support-bot", SETTINGS).body()
    selector = policy["spec"]["podSelector"]["matchLabels"]
    labels = probe_pod()["metadata"]["labels"]
    assert selector.items() <= labels.items(), (selector, labels)
    job = probe_job()
    assert job["kind"] == "Job" and job["metadata"]["name"] == "support-bot-netprobe-g3"  # type: ignore[index]
    # The Job carries no Evaluation label: the operator's watch of run Jobs never takes it for one.
    assert names.LABEL_EVALUATION not in job["metadata"]["labels"]  # type: ignore[index]
    assert job["spec"]["backoffLimit"] == 0  # type: ignore[index]


def test_the_probe_pod_is_shaped_like_an_answer_pod() -> None:
    spec = probe_pod()["spec"]
    assert spec["automountServiceAccountToken"] is False and spec["restartPolicy"] == "Never"
    (container,) = spec["containers"]
    assert container["image"] == SETTINGS.runner_image
    assert container["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["terminationMessagePath"] == TERMINATION_LOG
    assert container["command"][-2:] == [
        "mlflow=mlflow.mlops:5000",
        "target=assay-operator-metrics.assay:8080",
    ]


def test_the_evaluations_mlflow_is_tried_before_the_operators_default() -> None:
    spec = EvaluationSpec.model_validate(
        {
            **SPEC.model_dump(by_alias=True, exclude_none=True),
            "mlflow": {"trackingUri": "https://[fd00::5]/x"},
        }
    )
    assert network_probe.targets(spec, SETTINGS)[0] == "mlflow=[fd00::5]:443"
    assert network_probe.address_of("file:///tmp/mlruns") is None


def run_script(tmp_path: Path, *arguments: str, env: dict[str, str] | None = None) -> dict[str, str]:
    report = tmp_path / "termination-log"
    script = network_probe.SCRIPT.replace(TERMINATION_LOG, str(report))
    subprocess.run([sys.executable, "-c", script, *arguments], check=True, timeout=60, env=env or {})
    found = network_report.read_report(report.read_text())
    assert found is not None, report.read_text()
    return found


def test_the_script_reports_what_connected_and_what_was_refused(tmp_path: Path) -> None:
    with socket.socket() as listening, socket.socket() as closed:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        closed.bind(("127.0.0.1", 0))  # bound, not listening: the kernel refuses a connection
        open_port, closed_port = listening.getsockname()[1], closed.getsockname()[1]
        environment = {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": str(open_port)}
        found = run_script(tmp_path, f"mlflow=127.0.0.1:{closed_port}", env=environment)
    assert found == {
        f"mlflow 127.0.0.1:{closed_port}": "ECONNREFUSED",
        f"apiserver 127.0.0.1:{open_port}": "connected",
    }
    assert network_report.breaches(found) == [f"apiserver 127.0.0.1:{open_port}"]


def test_a_report_that_is_not_the_probes_reads_as_none() -> None:
    assert network_report.read_report(None) is None
    assert network_report.read_report("Error: exec python: not found") is None
    assert network_report.read_report(json.dumps({"a": 1})) is None
    assert network_report.read_report(json.dumps(["connected"])) is None


NOW = datetime(2026, 12, 5, 7, 0, 0, tzinfo=UTC)


def pod(age_seconds: float, terminated: dict[str, Any] | None = None) -> Pod:
    created = (NOW - timedelta(seconds=age_seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
    state = {"terminated": terminated} if terminated is not None else {"running": {}}
    return Pod.of(
        {
            "metadata": {"name": "e-netprobe-g1", "creationTimestamp": created},
            "status": {"containerStatuses": [{"name": "probe", "state": state}]},
        }
    )


def test_a_probe_still_running_is_waited_for_until_its_time_is_up() -> None:
    assert network_report.finding(pod(5), 120, NOW).enforced is None
    late = network_report.finding(pod(121), 120, NOW)
    assert late.enforced is False and "did not report within 120 s" in late.message


def test_every_connection_refused_is_enforced_and_one_that_got_through_is_not() -> None:
    refused = {"apiserver 10.0.0.1:443": "ECONNREFUSED", "mlflow 10.0.0.9:5000": "timeout"}
    found = network_report.finding(pod(3, {"exitCode": 0, "message": json.dumps(refused)}), 120, NOW)
    assert found.enforced is True and "apiserver 10.0.0.1:443 ECONNREFUSED" in found.message
    through = {**refused, "mlflow 10.0.0.9:5000": "connected"}
    found = network_report.finding(pod(3, {"exitCode": 0, "message": json.dumps(through)}), 120, NOW)
    assert found.enforced is False and "connected to mlflow 10.0.0.9:5000" in found.message


def test_a_probe_that_wrote_no_report_fails_closed() -> None:
    for terminated in ({"exitCode": 1, "message": "Traceback ..."}, {"exitCode": 137}, {"message": "{}"}):
        found = network_report.finding(pod(3, terminated), 120, NOW)
        assert found.enforced is False and "wrote no report" in found.message, terminated


def test_only_an_evaluation_that_asks_is_probed() -> None:
    assert network_check.required(SPEC)
    plain = EvaluationSpec.model_validate(SPEC.model_dump(by_alias=True, exclude={"network"}))
    assert not network_check.required(plain)
