"""`make demo`: the real product on a local control plane, start to finish, then everything stopped.

1. build (first time only, ~30 min on 2 cores) or find the control plane, and the operator and runner images
   (`make images`; cached by content); start etcd, kube-apiserver, the controller managers, the local
   kubelet (pods under runc) and a real MLflow server with MLflow's basic-auth app (a writer account for
   the runner, a named reader; anonymous calls refused);
2. the node is networked (docs/runtime.md): every pod, the operator's too, has a network namespace of its
   own on the node's bridge (the real CNI plugins), and kube-router's policy controller enforces
   NetworkPolicy; the pods reach the apiserver and MLflow at the node's address, as a cluster's pods reach
   services outside the cluster, never through the host's network;
3. `kubectl apply` the CRD and `helm install` the chart with the images by digest: the operator runs from
   its image as the chart's Deployment, and each Evaluation's pod from the runner image; the chart's
   NetworkPolicy lets judge pods reach MLflow (by address) and DNS, the operator's own lets answer pods reach
   DNS and the gateway only (these replay recorded answers: they need none);
4. apply the example brains as ConfigMaps and create two Evaluations of the bundled support-desk suite
   (the replay agent with the example's answers; the model judge replayed from cassettes: offline), each
   requiring an enforced boundary (spec.network.requireEnforced: the operator's network probe first);
5. show `kubectl get evaluations` as they run and finish — one Pass, one Blocked — and what the probe found;
6. run a Campaign (v1 challenging the released v0) and show its decision;
7. fetch each run's HTML report from MLflow as the named reader and print where to look.
Needs root (the local kubelet runs pods under runc, and wires their network namespaces).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from assay_dev.cluster import ControlPlane, LocalKubelet, locate_binaries
from assay_dev.cluster.assay_install import (
    CRDS,
    LocalImages,
    brain_config_map,
    example_campaign,
    example_evaluation,
    helm_install_args,
    local_images,
    workload_controllers,
)
from assay_dev.cluster.crds import wait_established
from assay_dev.cluster.node import local_node
from assay_dev.operator_support.manifests import secret
from assay_dev.servers.mlflow_server import MlflowAuth, mlflow_server

REPO = Path(__file__).resolve().parents[1]

NAMESPACE = "assay-demo"
OUT = REPO / "out" / "demo-cluster"
CANDIDATES = {"support-v1": "v1", "support-v0": "v0"}
# Each Evaluation runs only once the operator's network probe found its answer pods' boundary enforced.
REQUIRE_ENFORCED = {"network": {"requireEnforced": True}}
# The runner's MLflow credential: a Secret in the Evaluations' namespace, named by the chart's defaults.
MLFLOW_SECRET, MLFLOW_SECRET_KEY = "mlflow-writer", "credential"


@dataclass(frozen=True)
class DemoMlflow:
    """The demo's MLflow server, on the host's loopback: the demo reads the reports there; the pods reach it
    at the node's address (forwarded to that port), as a cluster's pods reach an MLflow outside the
    cluster, and the chart's judge policy allows that address and port."""

    host_url: str
    address: str
    port: int

    @classmethod
    def exposed(cls, node: LocalKubelet, host_url: str) -> DemoMlflow:
        network = node.network
        port = urlsplit(host_url).port
        if network is None or port is None:
            raise SystemExit(f"the demo's node must be networked and MLflow's URL name a port: {host_url}")
        network.expose(port, port)
        return cls(host_url, network.services_ip, port)

    @property
    def pods_url(self) -> str:
        return f"http://{self.address}:{self.port}"


STARTED = time.monotonic()


def say(text: str) -> None:
    """A step's heading, with the seconds since the demo started."""
    print(f"\n\033[1m== {text}\033[0m  [{time.monotonic() - STARTED:.0f} s]", flush=True)


def watch(
    cp: ControlPlane, kind: str = "evaluations", expected: int = len(CANDIDATES), timeout: float = 600
) -> None:
    shown = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        table = cp.kubectl("get", kind, "-n", NAMESPACE).stdout
        without_age = "\n".join(line.rsplit(None, 1)[0] for line in table.splitlines() if line.strip())
        if without_age != shown:  # print on a change, not every time AGE ticks
            print(table, flush=True)
            shown = without_age
        done = cp.kubectl(
            "get",
            kind,
            "-n",
            NAMESPACE,
            "-o",
            'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Completed")].status} {end}',
        )
        if done.stdout.split() == ["True"] * expected:
            return
        time.sleep(2)
    raise SystemExit(f"the {kind} did not finish in time")


def main() -> int:
    if os.geteuid() != 0:
        print(
            "make demo needs root: the local kubelet runs pods under runc",
            file=sys.stderr,
        )
        return 2
    say("control plane binaries (built once, then cached)")
    bin_dir = locate_binaries()
    say("the operator and runner images (make images; built once per content, then cached)")
    images = local_images()
    print(f"operator: {images.operator.reference}\nrunner:   {images.runner.reference}")
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    work = Path(tempfile.mkdtemp(prefix="assay-demo-"))
    try:
        auth = MlflowAuth()
        with mlflow_server(OUT, auth) as mlflow_url:
            say(
                "starting etcd, kube-apiserver, kube-controller-manager, the local kubelet (networked, "
                "kube-router enforcing NetworkPolicy) and provisioner"
            )
            with (
                ControlPlane(bin_dir, work) as cp,
                workload_controllers(cp),
                local_node(cp, images.runner.base_image, networked=True) as node,
            ):
                missing = run_demo(cp, bin_dir, images, DemoMlflow.exposed(node, mlflow_url), auth)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say("stopped everything the demo started")
    if missing:
        print(f"no MLflow run for {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


def install_crds(cp: ControlPlane, directory: Path = CRDS) -> None:
    """`kubectl apply` every CRD in `directory`, then wait until each is Established and served — not with
    `kubectl wait --for=condition=Established`, which fails at once while a new CRD has no conditions."""
    cp.kubectl("apply", "--server-side", "-f", str(directory))
    names = [
        doc["metadata"]["name"]
        for path in sorted(directory.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc and doc.get("kind") == "CustomResourceDefinition"
    ]
    wait_established(cp.api, names)


def run_demo(
    cp: ControlPlane, bin_dir: Path, images: LocalImages, mlflow: DemoMlflow, auth: MlflowAuth
) -> list[str]:
    """Everything once the node is up; the Evaluations that recorded no MLflow run."""
    cp.create_namespace(NAMESPACE)
    cp.api.create(
        f"/api/v1/namespaces/{NAMESPACE}/secrets",
        secret(MLFLOW_SECRET, MLFLOW_SECRET_KEY, auth.writer.credential),
    )
    say("kubectl apply --server-side -f crds/  &&  helm install assay charts/assay")
    install_crds(cp)
    mlflow_values = (
        *("--set", f"defaults.mlflowTrackingUri={mlflow.pods_url}"),
        *("--set", f"defaults.mlflowTokenSecret={MLFLOW_SECRET}/{MLFLOW_SECRET_KEY}"),
        # NetworkPolicy has no host names: the judge pods' policy allows MLflow by its address and port.
        *("--set", f"networkPolicy.mlflow.cidrs[0]={mlflow.address}/32"),
        *("--set", f"networkPolicy.mlflow.ports[0]={mlflow.port}"),
    )
    # The operator's pod has a network of its own: the chart's health and metrics ports.
    install = helm_install_args(NAMESPACE, None, None, images, mlflow_values)
    subprocess.run(
        [str(bin_dir / "helm"), *install], check=True, env={**os.environ, "KUBECONFIG": str(cp.kubeconfig)}
    )
    # The operator's pod has an IP of its own on the node's bridge and reaches the apiserver at the node's
    # address (its KUBERNETES_SERVICE_HOST), as in-cluster clients do.
    print(cp.kubectl("get", "deployment,pods,networkpolicies", "-n", NAMESPACE, "-o", "wide").stdout)

    say("two Evaluations of the support-desk suite: brain v1 and brain v0")
    for name, version in CANDIDATES.items():
        cp.api.create(
            f"/api/v1/namespaces/{NAMESPACE}/configmaps", brain_config_map(f"brain-{version}", version)
        )
        cp.api.create(
            f"/apis/assay.dev/v1alpha1/namespaces/{NAMESPACE}/evaluations",
            with_spec(example_evaluation(name, f"brain-{version}", version), REQUIRE_ENFORCED),
        )
    say("kubectl get evaluations (watching)")
    watch(cp)

    say("the verdicts, as GitOps tools read them")
    for name in CANDIDATES:
        ready = cp.kubectl(
            "wait",
            "--for=condition=Ready",
            f"evaluation/{name}",
            "-n",
            NAMESPACE,
            "--timeout=1s",
            check=False,
        )
        verdict = jsonpath(
            cp,
            f"evaluation/{name}",
            "{.status.verdict} score={.status.score} judges={.status.judges} message={.status.message}",
        )
        print(f"{name}: {verdict}\n  kubectl wait --for=condition=Ready -> exit {ready.returncode}")

    say("the answer pods' network boundary, as the operator's network probe found it")
    for name in CANDIDATES:
        print(f"{name}: {boundary(cp, name)}")

    say("a Campaign: brain v1 against the released v0, ranked by the release rule's own key")
    cp.api.create(f"/apis/assay.dev/v1alpha1/namespaces/{NAMESPACE}/campaigns", example_campaign())
    watch(cp, "campaigns", expected=1)
    decision = jsonpath(cp, "campaign/brains", '{range .status.reasons[*]}{@}{"\\n"}{end}')
    print(decision)

    say(f"reports and MLflow runs, read as {auth.readers[0].username} (anonymous calls get 401)")
    from mlflow import MlflowClient

    os.environ["MLFLOW_TRACKING_USERNAME"] = auth.readers[0].username
    os.environ["MLFLOW_TRACKING_PASSWORD"] = auth.readers[0].password
    client = MlflowClient(tracking_uri=mlflow.host_url)
    missing: list[str] = []
    for name, version in CANDIDATES.items():
        run_id = jsonpath(cp, f"evaluation/{name}", "{.status.mlflow.runId}")
        if not run_id:
            recorded = jsonpath(cp, f"evaluation/{name}", "{.status.mlflow}")
            print(f"{name}: no MLflow run recorded ({recorded or 'no status.mlflow'})")
            missing.append(name)
            continue
        target = OUT / version
        target.mkdir(parents=True, exist_ok=True)
        for artifact in ("report.html", "result.json"):
            client.download_artifacts(run_id, artifact, str(target))
        print(f"{name}: MLflow run {run_id}; report {target / 'report.html'}")
    print(
        f"\nMLflow store: {OUT / 'mlflow.db'} (open it with: .venv/bin/mlflow ui --backend-store-uri "
        f"sqlite:///{OUT / 'mlflow.db'})"
    )
    return missing


def jsonpath(cp: ControlPlane, resource: str, path: str) -> str:
    """`kubectl get RESOURCE -o jsonpath=PATH` in the demo's namespace: what a user types to read a status."""
    return cp.kubectl("get", resource, "-n", NAMESPACE, "-o", f"jsonpath={path}").stdout


def with_spec(manifest: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    return {**manifest, "spec": {**manifest["spec"], **extra}}


def boundary(cp: ControlPlane, name: str) -> str:
    """The Evaluation's NetworkEnforced condition as one line: status, reason, what each forbidden connection
    of the probe's answer-shaped pod did."""
    found = jsonpath(cp, f"evaluation/{name}", '{.status.conditions[?(@.type=="NetworkEnforced")]}')
    if not found:
        return "NetworkEnforced: no condition (the probe did not run)"
    condition = json.loads(found)
    return f"NetworkEnforced={condition['status']} ({condition['reason']}): {condition['message']}"


if __name__ == "__main__":
    sys.exit(main())
