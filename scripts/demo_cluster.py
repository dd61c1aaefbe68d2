"""`make demo`: the real product on a local control plane, start to finish, then everything stopped.

1. build (first time only, ~30 min on 2 cores) or find the control plane, and the operator and runner images
   (`make images`; cached by content); start etcd, kube-apiserver, the controller managers, the local
   kubelet (pods under runc) and a real MLflow server with MLflow's basic-auth app (a writer account for
   the runner, a named reader; anonymous calls refused);
2. `kubectl apply` the CRD and `helm install` the chart with the images by digest: the operator runs from
   its image as the chart's Deployment, and each Evaluation's pod from the runner image;
3. apply the example brains as ConfigMaps and create two Evaluations of the bundled support-desk suite
   (the replay agent with the example's answers; the model judge replayed from cassettes: offline);
4. show `kubectl get evaluations` as they run and finish — one Pass, one Blocked;
5. run a Campaign (v1 challenging the released v0) and show its decision;
6. fetch each run's HTML report from MLflow as the named reader and print where to look.
Needs root (the local kubelet runs pods under runc).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from assay_dev.cluster import ControlPlane, locate_binaries
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
from assay_dev.cluster.ports import free_port
from assay_dev.operator_support.manifests import secret
from assay_dev.servers.mlflow_server import MlflowAuth, mlflow_server

REPO = Path(__file__).resolve().parents[1]

NAMESPACE = "assay-demo"
OUT = REPO / "out" / "demo-cluster"
CANDIDATES = {"support-v1": "v1", "support-v0": "v0"}
# The runner's MLflow credential: a Secret in the Evaluations' namespace, named by the chart's defaults.
MLFLOW_SECRET, MLFLOW_SECRET_KEY = "mlflow-writer", "credential"


def say(text: str) -> None:
    print(f"\n\033[1m== {text}\033[0m", flush=True)


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
            say("starting etcd, kube-apiserver, kube-controller-manager, the local kubelet and provisioner")
            with (
                ControlPlane(bin_dir, work) as cp,
                workload_controllers(cp),
                local_node(cp, images.runner.base_image),
            ):
                run_demo(cp, bin_dir, images, mlflow_url, auth)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say("stopped everything the demo started")
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


def run_demo(cp: ControlPlane, bin_dir: Path, images: LocalImages, mlflow_url: str, auth: MlflowAuth) -> None:
    cp.create_namespace(NAMESPACE)
    cp.api.create(
        f"/api/v1/namespaces/{NAMESPACE}/secrets",
        secret(MLFLOW_SECRET, MLFLOW_SECRET_KEY, auth.writer.credential),
    )
    say("kubectl apply --server-side -f crds/  &&  helm install assay charts/assay")
    install_crds(cp)
    mlflow_values = (
        *("--set", f"defaults.mlflowTrackingUri={mlflow_url}"),
        *("--set", f"defaults.mlflowTokenSecret={MLFLOW_SECRET}/{MLFLOW_SECRET_KEY}"),
    )
    install = helm_install_args(NAMESPACE, free_port(), free_port(), images, mlflow_values)
    subprocess.run(
        [str(bin_dir / "helm"), *install], check=True, env={**os.environ, "KUBECONFIG": str(cp.kubeconfig)}
    )
    print(cp.kubectl("get", "deployment,pods", "-n", NAMESPACE).stdout)

    say("two Evaluations of the support-desk suite: brain v1 and brain v0")
    for name, version in CANDIDATES.items():
        cp.api.create(
            f"/api/v1/namespaces/{NAMESPACE}/configmaps", brain_config_map(f"brain-{version}", version)
        )
        cp.api.create(
            f"/apis/assay.dev/v1alpha1/namespaces/{NAMESPACE}/evaluations",
            example_evaluation(name, f"brain-{version}", version),
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
        verdict = cp.kubectl(
            "get",
            "evaluation",
            name,
            "-n",
            NAMESPACE,
            "-o",
            "jsonpath={.status.verdict} score={.status.score} judges={.status.judges} "
            "message={.status.message}",
        ).stdout
        print(f"{name}: {verdict}\n  kubectl wait --for=condition=Ready -> exit {ready.returncode}")

    say("a Campaign: brain v1 against the released v0, ranked by the release rule's own key")
    cp.api.create(f"/apis/assay.dev/v1alpha1/namespaces/{NAMESPACE}/campaigns", example_campaign())
    watch(cp, "campaigns", expected=1)
    decision = cp.kubectl(
        "get",
        "campaign",
        "brains",
        "-n",
        NAMESPACE,
        "-o",
        'jsonpath={range .status.reasons[*]}{@}{"\\n"}{end}',
    ).stdout
    print(decision)

    say(f"reports and MLflow runs, read as {auth.readers[0].username} (anonymous calls get 401)")
    from mlflow import MlflowClient

    os.environ["MLFLOW_TRACKING_USERNAME"] = auth.readers[0].username
    os.environ["MLFLOW_TRACKING_PASSWORD"] = auth.readers[0].password
    client = MlflowClient(tracking_uri=mlflow_url)
    for name, version in CANDIDATES.items():
        run_id = cp.kubectl(
            "get", "evaluation", name, "-n", NAMESPACE, "-o", "jsonpath={.status.mlflow.runId}"
        ).stdout
        if not run_id:
            print(f"{name}: no MLflow run recorded")
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


if __name__ == "__main__":
    sys.exit(main())
