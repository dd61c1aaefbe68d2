"""Issue 37: whether the cluster enforces the answer pods' boundary, asked of the cluster itself. An
Evaluation with `spec.network.requireEnforced` runs only once the operator's network probe (a pod shaped like
an answer pod, which the Evaluation's NetworkPolicy selects) found every forbidden connection refused; its
NetworkEnforced condition and the assay_network_policy_enforced gauge say what the probe found.

On a networked local cluster of its own (test_network_boundary.py's fixtures: pods on their own network,
kube-router's NetworkPolicy controller enforcing): with kube-router running the condition is True and the
Evaluation runs to its verdict; with kube-router stopped (its process ended, as a cluster whose CNI enforces
nothing) the condition is False naming what got through, and the Evaluation is Blocked with no answer Job.
The probe tries the apiserver (where the pod's environment says) and the Evaluation's MLflow (a real server,
listening at the node's address); the second case, where both connect, shows that each listens, so the
first case's refusals are the policy's.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, LocalKubelet
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import Images, OperatorProcess, evaluation
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_dev.servers.mlflow_server import mlflow_server
from assay_operator.evaluation.build import names
from tests.operator_cluster.test_network_boundary import GOOD, PROBE, REFUSED, network_of, support_suite

pytestmark = pytest.mark.cluster


def network_condition(status: dict[str, Any]) -> dict[str, Any]:
    found = [c for c in status.get("conditions") or [] if c["type"] == "NetworkEnforced"]
    assert found, status
    condition: dict[str, Any] = found[0]
    return condition


def gauge(operator: OperatorProcess, namespace: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{operator.metrics_port}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    wanted = f'assay_network_policy_enforced{{namespace="{namespace}"}} '
    lines = [line.removeprefix(wanted) for line in text.splitlines() if line.startswith(wanted)]
    assert lines, text[-2000:]
    return lines[-1]


def answer_jobs(admin: Any, namespace: str, name: str) -> list[str]:
    listed = admin.get(
        f"/apis/batch/v1/namespaces/{namespace}/jobs?labelSelector={names.LABEL_EVALUATION}={name}"
    )
    return [item["metadata"]["name"] for item in listed.get("items") or []]


@pytest.mark.timeout(600)  # two Evaluations and MLflow on a second control plane
def test_the_probe_finds_the_boundary_enforced_with_the_enforcer_running_and_not_once_it_stopped(
    networked_plane: ControlPlane,
    networked_kubelet: LocalKubelet,
    networked_images: Images,
    net_namespace: str,
    tmp_path: Path,
) -> None:
    admin, namespace = networked_plane.api, net_namespace
    network = network_of(networked_kubelet)
    node_ip = network.node_ip
    support.install_crd(admin)
    support.grant_operator(admin, namespace)
    operator = OperatorProcess(networked_plane, [namespace], tmp_path / "operator.log").start()
    try:
        with (
            ChatServer(lambda body: Reply(content=GOOD)) as gateway,
            mlflow_server(tmp_path) as mlflow_url,
        ):
            gateway_port = int(gateway.url.rsplit(":", 1)[1].split("/")[0])
            mlflow_port = int(mlflow_url.rsplit(":", 1)[1].split("/")[0])
            network.expose(gateway_port, gateway_port)
            network.expose(mlflow_port, mlflow_port)
            for suffix, data in support_suite().items():
                config_map = {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": f"probe-{suffix}"},
                }
                admin.create(support.config_maps_path(namespace), {**config_map, "data": data})
            admin.create(support.config_maps_path(namespace), support.brain_config_map("brain-v1", "v1"))
            spec = {
                "brain": {"configMap": {"name": "brain-v1"}},
                "suite": {"configMap": {"name": "probe-suite"}, "kbConfigMap": {"name": "probe-kb"}},
                "agent": {
                    "kind": "command",
                    "model": "m",
                    "command": ["python", PROBE, "--answer"],
                    "timeoutSeconds": 120,
                },
                "gateway": f"http://{node_ip}:{gateway_port}",
                "mlflow": {"trackingUri": f"http://{node_ip}:{mlflow_port}"},
                "resources": dict(support.SMALL),
                "deadlineSeconds": 600,
                "network": {"requireEnforced": True},
            }
            mlflow_target = f"mlflow {node_ip}:{mlflow_port}"
            apiserver_target = f"apiserver {node_ip}:{networked_plane.port}"

            # kube-router running: every forbidden connection refused, the run goes on to its verdict.
            admin.create(support.evaluations_path(namespace), evaluation("enforced", spec))
            enforced = support.wait_for_verdict(admin, namespace, "enforced", operator=operator, timeout=420)
            condition = network_condition(enforced["status"])
            print("enforcer running:", json.dumps(condition))
            print("  verdict:", enforced["status"].get("verdict"), "gauge:", gauge(operator, namespace))
            running_gauge = gauge(operator, namespace)
            assert condition["status"] == "True" and condition["reason"] == "Enforced", condition
            for target in (mlflow_target, apiserver_target):
                assert any(f"{target} {outcome}" in condition["message"] for outcome in REFUSED), condition
            assert "connected" not in condition["message"], condition
            assert enforced["status"]["verdict"] == "Pass", enforced["status"]
            assert answer_jobs(admin, namespace, "enforced"), "no answer Job ran"

            # kube-router stopped: nothing programs rules for a new pod, the probe's connections get through,
            # and the Evaluation is refused and never runs.
            enforcer = networked_kubelet.enforcer
            assert enforcer is not None
            networked_kubelet.enforcer = None  # pods no longer wait for an enforcer's rules
            enforcer.stop()  # type: ignore[attr-defined]
            admin.create(support.evaluations_path(namespace), evaluation("unenforced", spec))
            refused = support.wait_for_verdict(admin, namespace, "unenforced", operator=operator, timeout=300)
            status = refused["status"]
            condition = network_condition(status)
            print("enforcer stopped:", json.dumps(condition))
            print("  verdict:", status.get("verdict"), "gauge:", gauge(operator, namespace))
            stopped_gauge = gauge(operator, namespace)
            probe = names.network_probe_name("unenforced", 1)
            wait_until(
                lambda: (
                    admin.get(
                        f"/apis/batch/v1/namespaces/{namespace}/jobs?fieldSelector=metadata.name={probe}"
                    )["items"]
                    == []
                    and admin.get(f"/api/v1/namespaces/{namespace}/pods?labelSelector=job-name={probe}")[
                        "items"
                    ]
                    == []
                ),
                timeout=60,
                what="the probe's Job and pod removed",
            )
    finally:
        operator.stop()
    # Nothing went wrong but the refusal itself (kopf logs a handler's PermanentError as an error).
    unexpected = [line for line in operator.problems() if "failed permanently" not in line]
    assert not unexpected, operator.log_tail(100)
    assert running_gauge == "1.0", running_gauge
    assert condition["status"] == "False" and condition["reason"] == "NetworkNotEnforced", condition
    assert f"{mlflow_target} connected" in condition["message"], condition
    assert f"{apiserver_target} connected" in condition["message"], condition
    assert status["verdict"] == "Blocked", status
    stalled = [c for c in status["conditions"] if c["type"] == "Stalled"]
    assert stalled and stalled[0]["status"] == "True" and stalled[0]["reason"] == "NetworkNotEnforced", status
    assert answer_jobs(admin, namespace, "unenforced") == [], "an answer Job was made"
    assert stopped_gauge == "0.0", stopped_gauge
