"""Issue 37: the answer pods' network boundary, enforced and shown with real packets, on a networked local
cluster of its own (`local_node(..., networked=True)`: pods on their own network namespaces wired by the
real CNI plugins, kube-router's NetworkPolicy controller enforcing; docs/runtime.md).

The REAL operator makes its per-Evaluation NetworkPolicy (DNS and the gateway's address only); an answer
pod's agent (tests/support/agents/net_probe.py, its cell without Landlock, as `node_without_landlock` does,
so what refuses a connection is the network and not the cell's sandbox) connects to everything a cheater
would try. Each target is first shown reachable from a control pod that no policy selects, so every refusal
in the answer pod is the policy's. Then the chart's own assay-judge policy is applied, rendered by helm for
the test's namespace: a judge-shaped pod reaches the gateway and MLflow and nothing else, and a real judge
pod logs its run to MLflow through it.

Targets, each listening: the gateway (the test's model server on the host, reached at the node's address,
as a gateway outside the cluster is), a real MLflow server the judge pod logs the run to, the apiserver
(where the pods' KUBERNETES_SERVICE_HOST says), a judge pod and another answer pod (pods shaped like them,
labelled as the operator labels them, serving HTTP), the operator's metrics endpoint, and an address
outside the cluster (TEST-NET-1, network.OUTSIDE_IP).

Also here: an in-cluster client on the networked node (what the chart's operator is in `make demo`)
verifies the apiserver's certificate where its environment says the apiserver is; and how long a networked
pod takes to start (wired, its NetworkPolicy's rules in place, its container running), median and worst of
a few pods, printed for docs/runtime.md.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi, LocalKubelet
from assay_dev.cluster.netns import entered
from assay_dev.cluster.network import OUTSIDE_IP, NodeNetwork
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import Images, OperatorProcess, evaluation
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_dev.servers.mlflow_server import mlflow_server
from assay_operator.evaluation.build import names

pytestmark = pytest.mark.cluster

CHART = Path(__file__).resolve().parents[2] / "charts" / "assay"
PROBE = f"{support.AGENTS_DIR}/net_probe.py"
THIEF = f"{support.AGENTS_DIR}/mlflow_thief.py"
GOOD = (
    "## Summary\nOpen Settings > Export [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n"
    "## Next\nReply if anything is unclear.\n"
)
LISTEN_PORT = 8080
START_PODS = 8
REFUSED = ("ECONNREFUSED", "timeout")
"""How a refused connection ends: ICMP port unreachable (kube-router's REJECT), or no answer at all."""


def network_of(kubelet: LocalKubelet) -> NodeNetwork:
    assert kubelet.network is not None
    return kubelet.network


def plain_pod(
    name: str, image: str, command: list[str], labels: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {
            "restartPolicy": "Never",
            "automountServiceAccountToken": False,
            "containers": [{"name": "main", "image": image, "command": command}],
        },
    }


def running_pod(admin: KubeApi, namespace: str, name: str) -> dict[str, Any]:
    def running() -> dict[str, Any] | None:
        pod = admin.get(f"/api/v1/namespaces/{namespace}/pods/{name}")
        statuses = pod.get("status", {}).get("containerStatuses") or []
        return pod if statuses and "running" in statuses[0]["state"] else None

    found: dict[str, Any] = wait_until(running, timeout=120, what=f"pod {name} to run")
    return found


def listening(network: NodeNetwork, ip: str) -> bool:
    """Whether a pod serves on LISTEN_PORT, asked from the node's namespace (as a kubelet's probe would)."""
    with entered(network.netns):
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with probe:
        probe.settimeout(2)
        return probe.connect_ex((ip, LISTEN_PORT)) == 0


def probe_record(text: str) -> dict[str, str]:
    lines = [line for line in text.splitlines() if line.startswith("probe ")]
    assert lines, text[-3000:]
    found: dict[str, str] = json.loads(lines[-1].removeprefix("probe "))
    return found


def thief_record(text: str) -> dict[str, Any]:
    lines = [line for line in text.splitlines() if line.startswith("thief ")]
    assert lines, text[-3000:]
    found: dict[str, Any] = json.loads(lines[-1].removeprefix("thief "))
    return found


def table(title: str, found: dict[str, str], targets: dict[str, str]) -> str:
    rows = [
        f"  {name:<22} {targets.get(name, 'through the proxy'):<22} {outcome}"
        for name, outcome in found.items()
    ]
    return "\n".join([title, *rows])


@pytest.mark.timeout(600)  # two Evaluations, MLflow and a port scan on a second control plane
def test_an_answer_pod_reaches_the_gateway_through_its_sidecar_and_nothing_else(
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
            # Host services where a cluster's pods reach them: the node's address (the gateway and MLflow
            # outside the cluster, the operator's metrics), an address outside the cluster.
            network.expose(gateway_port, gateway_port)
            network.expose(mlflow_port, mlflow_port)
            network.expose(operator.metrics_port, operator.metrics_port)
            network.expose(443, gateway_port, address=OUTSIDE_IP)
            image = networked_images.test_runner
            serve = ["python", "-m", "http.server", str(LISTEN_PORT)]
            judge_labels = {
                names.LABEL_EVALUATION: "probe",
                names.LABEL_COMPONENT: names.JUDGE,
                names.LABEL_MANAGED_BY: names.MANAGED_BY,
            }
            answer_labels = {
                **judge_labels,
                names.LABEL_EVALUATION: "other",
                names.LABEL_COMPONENT: names.ANSWER,
            }
            pods_path = f"/api/v1/namespaces/{namespace}/pods"
            admin.create(pods_path, plain_pod("judge-like", image, serve, judge_labels))
            admin.create(pods_path, plain_pod("answer-like", image, serve, answer_labels))
            judge_ip = running_pod(admin, namespace, "judge-like")["status"]["podIP"]
            other_ip = running_pod(admin, namespace, "answer-like")["status"]["podIP"]
            for ip in (judge_ip, other_ip):
                wait_until(lambda ip=ip: listening(network, ip), timeout=60, what=f"{ip}:{LISTEN_PORT}")
            targets = {
                "gateway": f"{node_ip}:{gateway_port}",
                "mlflow": f"{node_ip}:{mlflow_port}",
                "apiserver": f"{node_ip}:{networked_plane.port}",
                "judge-pod": f"{judge_ip}:{LISTEN_PORT}",
                "other-answer-pod": f"{other_ip}:{LISTEN_PORT}",
                "operator-metrics": f"{node_ip}:{operator.metrics_port}",
                "outside": f"{OUTSIDE_IP}:443",
            }
            arguments = [f"{name}={address}" for name, address in targets.items()]
            # Every target listens: a pod no policy selects reaches each.
            admin.create(pods_path, plain_pod("control", image, ["python", PROBE, *arguments]))
            wait_until(
                lambda: "probe " in networked_kubelet.logs(namespace, "control"),
                timeout=120,
                what="the control pod's probe",
            )
            control = probe_record(networked_kubelet.logs(namespace, "control"))
            print(table("control pod (no NetworkPolicy selects it):", control, targets))
            assert control == dict.fromkeys(targets, "connected"), control

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
                    "command": ["python", PROBE, "--answer", *arguments],
                    "timeoutSeconds": 120,
                },
                "gateway": f"http://{node_ip}:{gateway_port}",
                "mlflow": {"trackingUri": f"http://{node_ip}:{mlflow_port}"},
                "resources": dict(support.SMALL),
                "deadlineSeconds": 600,
            }
            admin.create(support.evaluations_path(namespace), evaluation("probe", spec))
            done = support.wait_for_verdict(admin, namespace, "probe", operator=operator, timeout=420)
            status = done["status"]
            volume = support.claim_path(admin, namespace, "probe-g1-answers")
            print("probe run:", status.get("verdict"), status.get("reason"), status.get("message"))
            print("on the claim:", sorted(str(p.relative_to(volume)) for p in volume.rglob("*"))[:60])
            transcript = (volume / "shard-0" / "T-1" / "1" / "transcript").read_text()
            found = probe_record(transcript)
            print(table("answer pod (the Evaluation's NetworkPolicy selects it):", found, targets))
            print("verdict:", status.get("verdict"), "mlflow:", status.get("mlflow"))
            policy = admin.get(
                f"/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies/{names.answer_policy_name('probe')}"
            )
            print("policy egress:", json.dumps(policy["spec"]["egress"]))

            # The MLflow thief: told MLflow's URL, and scanning the node's ports besides, it goes for the
            # probe run's result.json (its key). From a control pod it gets the key; from an answer pod its
            # packets are refused, and the Evaluation is Blocked on its answer.
            thief = ["python", THIEF, "T-1", f"http://{node_ip}:{mlflow_port}"]
            admin.create(pods_path, plain_pod("thief-control", image, thief))
            wait_until(
                lambda: "thief " in networked_kubelet.logs(namespace, "thief-control"),
                timeout=180,
                what="the control pod's thief",
            )
            control_thief = thief_record(networked_kubelet.logs(namespace, "thief-control"))
            print("thief from a control pod:", json.dumps(control_thief))
            # From here on the judge pods' policy is in force too, as the chart renders it for this
            # namespace (DNS, and the gateway and MLflow at their CIDRs and ports, nothing else): the thief
            # Evaluation's judge pod logs through it, and a judge-shaped probe shows what else it refuses.
            policies = f"/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies"
            judge_policy = chart_judge_policy(networked_plane, namespace, node_ip, gateway_port, mlflow_port)
            admin.create(policies, judge_policy)
            judge_probe_labels = {**judge_labels, names.LABEL_EVALUATION: "judge-probe"}
            admin.create(
                pods_path, plain_pod("judge-probe", image, ["python", PROBE, *arguments], judge_probe_labels)
            )
            wait_until(
                lambda: "probe " in networked_kubelet.logs(namespace, "judge-probe"),
                timeout=180,
                what="the judge-shaped pod's probe",
            )
            from_judge = probe_record(networked_kubelet.logs(namespace, "judge-probe"))
            print(table("judge-shaped pod (the chart's assay-judge policy selects it):", from_judge, targets))
            thief_spec = {**spec, "agent": {**spec["agent"], "command": thief, "timeoutSeconds": 300}}
            admin.create(support.evaluations_path(namespace), evaluation("thief", thief_spec))
            thief_done = support.wait_for_verdict(admin, namespace, "thief", operator=operator, timeout=600)
            thief_volume = support.claim_path(admin, namespace, "thief-g1-answers")
            thief_transcript = (thief_volume / "shard-0" / "T-1" / "1" / "transcript").read_text()
            in_pod_thief = thief_record(thief_transcript)
            print("thief from an answer pod:", json.dumps(in_pod_thief))
            print("thief's verdict:", thief_done["status"].get("verdict"))
    finally:
        operator.stop()
    # Allowed: the model call through the cell's proxy and the pod's gateway sidecar to the gateway.
    assert found.pop("gateway-via-sidecar") == "200", found
    assert gateway.requests, "the gateway saw no call"
    # Allowed too: the gateway's own address and port (the policy's rule for the gateway URL's IP).
    assert found.pop("gateway") == "connected", found
    # Refused by the policy, each reachable from the control pod. kube-router REJECTs with ICMP port
    # unreachable, which the kernel rate-limits per destination (a burst of 6, then one a second): a refusal
    # past the burst shows as a connect that times out.
    assert set(found) == set(targets) - {"gateway"}, found
    assert all(outcome in REFUSED for outcome in found.values()), found
    # The judge pod is not held back: it logged the run to MLflow at the node's address.
    assert status["mlflow"]["logged"] is True, status["mlflow"]
    assert status["verdict"] == "Pass", status
    # The thief: the key is there for a pod no policy selects, at the URL it was told ...
    assert control_thief["key found"] is True, control_thief
    assert mlflow_port in control_thief["open ports"], control_thief
    # ... and an answer pod's packets to it are refused: no port of the node answers but the gateway's.
    assert in_pod_thief["key found"] is False, in_pod_thief
    assert in_pod_thief["open ports"] == [gateway_port], in_pod_thief
    told = in_pod_thief[f"http://{node_ip}:{mlflow_port}"]
    assert told.startswith("URLError") and "experiment" not in told, in_pod_thief
    assert thief_done["status"]["verdict"] == "Blocked", thief_done["status"]
    # The judge pods: the gateway (the model judge's) and MLflow are reached, nothing else is; the thief
    # Evaluation's real judge pod, under that policy, logged its run to MLflow.
    assert from_judge.pop("gateway") == "connected" and from_judge.pop("mlflow") == "connected", from_judge
    assert set(from_judge) == set(targets) - {"gateway", "mlflow"}, from_judge
    assert all(outcome in REFUSED for outcome in from_judge.values()), from_judge
    assert thief_done["status"]["mlflow"]["logged"] is True, thief_done["status"]["mlflow"]
    assert not operator.problems(), operator.log_tail(100)


def chart_judge_policy(
    plane: ControlPlane, namespace: str, node_ip: str, gateway_port: int, mlflow_port: int
) -> dict[str, Any]:
    """The chart's assay-judge NetworkPolicy for `namespace` (helm template), with the gateway and MLflow
    where this cluster's pods reach them: the node's address, each on its own port."""
    values = {
        "networkPolicy.gateway.cidrs[0]": f"{node_ip}/32",
        "networkPolicy.gateway.ports[0]": str(gateway_port),
        "networkPolicy.mlflow.cidrs[0]": f"{node_ip}/32",
        "networkPolicy.mlflow.ports[0]": str(mlflow_port),
    }
    rendered = subprocess.run(
        [str(plane.bin_dir / "helm"), "template", "assay", str(CHART), "--namespace", namespace]
        + ["--show-only", "templates/networkpolicy.yaml"]
        + [argument for key, value in values.items() for argument in ("--set", f"{key}={value}")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    (policy,) = [d for d in yaml.safe_load_all(rendered) if d]
    assert policy["metadata"]["name"] == "assay-judge" and policy["metadata"]["namespace"] == namespace
    return dict(policy)


def support_suite() -> dict[str, dict[str, str]]:
    """A one-ticket suite (T-1) the model's GOOD answer passes, and its KB, as ConfigMap data."""
    suite = {
        "name": "probe",
        "judges": [
            {"name": "kb", "type": "kb_citation", "weight": 0.5, "threshold": 0.9},
            {"name": "facts", "type": "must_mention", "weight": 0.5, "threshold": 0.9},
        ],
        "tickets": [
            {
                "id": "T-1",
                "split": "validation",
                "question": "How do I export my notes?",
                "key": {"kb": ["KB-1"], "mustMention": ["Settings > Export"]},
            }
        ],
    }
    return {
        "suite": {"suite.yaml": json.dumps(suite, indent=2)},
        "kb": {"KB-1.md": "# KB-1: Export\nOpen Settings > Export and pick a format.\n"},
    }


def start_times(
    admin: KubeApi, namespace: str, kubelet: LocalKubelet, image: str
) -> tuple[list[float], list[str]]:
    """Seconds from each pod's creation to its container running, one pod at a time, each selected by a
    deny-all NetworkPolicy (enforced on a networked node, ignored on the default one); and their podIPs."""
    policy = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "deny-all"},
        "spec": {"podSelector": {"matchLabels": {"probe": "start"}}, "policyTypes": ["Ingress", "Egress"]},
    }
    admin.create(f"/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies", policy)
    starts, ips = [], []
    for index in range(START_PODS):
        name = f"start-{index}"
        created = time.monotonic()
        admin.create(
            f"/api/v1/namespaces/{namespace}/pods",
            plain_pod(name, image, ["sleep", "60"], {"probe": "start"}),
        )
        running = running_pod(admin, namespace, name)
        starts.append(time.monotonic() - created)
        assert running["status"]["hostIP"] == kubelet.host_ip, running["status"]
        ips.append(running["status"]["podIP"])
        admin.delete(f"/api/v1/namespaces/{namespace}/pods/{name}", {"gracePeriodSeconds": 0})
    return starts, ips


def summary(starts: list[float]) -> str:
    return f"median {statistics.median(starts):.2f}s, worst {max(starts):.2f}s over {len(starts)} pods"


def test_networked_pod_start(
    networked_plane: ControlPlane,
    networked_kubelet: LocalKubelet,
    networked_images: Images,
    net_namespace: str,
) -> None:
    """Pod start on the networked node: created -> container running, with the pod's network wired and
    kube-router's rules for the policy selecting it in place (the kubelet waits for them)."""
    admin, namespace = networked_plane.api, net_namespace
    starts, ips = start_times(admin, namespace, networked_kubelet, networked_images.test_runner)
    assert all(ip.startswith("10.88.") and ip != networked_kubelet.host_ip for ip in ips), ips
    waits = []
    for index in range(START_PODS):
        waited = networked_kubelet.rules_wait(namespace, f"start-{index}")
        assert waited is not None
        waits.append(waited)
    print(
        f"networked pod start: {summary(starts)}; of which waiting for the policy's rules: {summary(waits)}"
    )


APISERVER_CLIENT = """
import os, ssl, urllib.error, urllib.request
secrets = "/var/run/secrets/kubernetes.io/serviceaccount"
context = ssl.create_default_context(cafile=f"{secrets}/ca.crt")
host, port = os.environ["KUBERNETES_SERVICE_HOST"], os.environ["KUBERNETES_SERVICE_PORT"]
request = urllib.request.Request(
    f"https://{host}:{port}/api/v1/namespaces/{open(f'{secrets}/namespace').read()}/pods",
    headers={"Authorization": f"Bearer {open(f'{secrets}/token').read()}"},
)
try:
    urllib.request.urlopen(request, context=context, timeout=20)
    result = "200"
except urllib.error.HTTPError as error:
    result = f"{error.code} {error.read().decode()}"
except Exception as error:
    result = f"{type(error).__name__}: {error}"
open("/dev/termination-log", "w").write(f"{host} {result}")
"""


def test_a_networked_pod_verifies_the_apiserver_where_its_environment_says(
    networked_plane: ControlPlane,
    networked_kubelet: LocalKubelet,
    networked_images: Images,
    net_namespace: str,
) -> None:
    """An in-cluster client on the networked node (the chart's operator in `make demo`) dials the apiserver
    at KUBERNETES_SERVICE_HOST, the node's address, and verifies its certificate with the service account's
    CA: the certificate names that address (certs.py). 403: authenticated as the pod's ServiceAccount,
    refused by RBAC; a certificate not naming the address ends in SSLCertVerificationError instead."""
    admin, namespace = networked_plane.api, net_namespace
    pod = plain_pod("in-cluster-client", networked_images.test_runner, ["python", "-c", APISERVER_CLIENT])
    pod["spec"]["automountServiceAccountToken"] = True
    admin.create(f"/api/v1/namespaces/{namespace}/pods", pod)

    def finished() -> dict[str, Any] | None:
        current = admin.get(f"/api/v1/namespaces/{namespace}/pods/in-cluster-client")
        return current if current["status"].get("phase") in ("Succeeded", "Failed") else None

    done = wait_until(finished, timeout=120, what="the in-cluster client to finish")
    message = done["status"]["containerStatuses"][0]["state"]["terminated"]["message"]
    print("in-cluster client:", message[:200])
    assert done["status"]["podIP"] != networked_kubelet.host_ip, done["status"]
    assert message.startswith(f"{network_of(networked_kubelet).services_ip} 403 "), message
    assert f"system:serviceaccount:{namespace}:default" in message, message


def test_default_pod_start(admin: KubeApi, namespace: str, kubelet: LocalKubelet, images: Images) -> None:
    """The same on the default node (host network), for comparison; its pods keep 127.0.0.1."""
    starts, ips = start_times(admin, namespace, kubelet, images.test_runner)
    assert kubelet.network is None and set(ips) == {"127.0.0.1"} == {kubelet.host_ip}, ips
    print(f"default pod start: {summary(starts)}")
