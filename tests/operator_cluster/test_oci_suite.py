"""`spec.suite.oci`: an Evaluation whose suite is an OCI artifact named by digest, pulled by each runner pod's
`split` init container from a real registry (go-containerregistry's, tools/registry, on loopback over TLS
from the harness's CA) with the CA the install names (ASSAY_SUITE_REGISTRY_CA_SECRET), never the author's.

- the example suite as an artifact gives the verdict, score, judges and suite digest the same suite gives
  from ConfigMaps; the artifact's digest is in the status (and `kubectl get -o wide`); the answer container
  mounts neither the keys nor the registry CA;
- a 50 MB suite (a large KB) runs to its verdict; the split container's pull and split time is printed;
- a digest the registry does not hold ends Blocked with reason SuitePullFailed, no stall.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.operator_support import OperatorProcess, evaluation, replay_spec
from assay_dev.servers.registry import Registry
from tests.operator_cluster.conftest import StartOperator
from tests.registry.test_suite_artifacts import large_suite

pytestmark = pytest.mark.cluster

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
CA_SECRET = "suite-registry-ca"


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    with Registry(tmp_path_factory.mktemp("registry")) as started:
        yield started


def push(registry: Registry, suite: Path, repo: str) -> tuple[str, float]:
    """`assay push` as users run it: the reference by digest it prints, and its wall time."""
    began = time.monotonic()
    pushed = subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", "push", str(suite), f"{registry.host}/{repo}"],
        capture_output=True,
        text=True,
        env={**os.environ, "ASSAY_REGISTRY_CA": str(registry.ca)},
        check=False,
    )
    assert pushed.returncode == 0, pushed.stderr
    return pushed.stdout.strip(), time.monotonic() - began


@pytest.fixture
def oci_operator(
    operators: StartOperator, admin: KubeApi, namespace: str, registry: Registry
) -> OperatorProcess:
    """The install's registry CA as a Secret in the namespace, named in the operator's settings."""
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": CA_SECRET},
        "stringData": {"ca.crt": registry.ca.read_text()},
    }
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", secret)
    return operators(namespace, env={"ASSAY_SUITE_REGISTRY_CA_SECRET": CA_SECRET})


def suite_config_maps(admin: KubeApi, namespace: str) -> dict[str, Any]:
    """The example suite as ConfigMaps (suite.yaml and tickets.yaml; the KB): the `suite` of a spec."""
    made = {
        "example-suite": {name: (EXAMPLE / name).read_text() for name in ("suite.yaml", "tickets.yaml")},
        "example-kb": {p.name: p.read_text() for p in sorted((EXAMPLE / "kb").glob("*.md"))},
    }
    for name, data in made.items():
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
        admin.create(support.config_maps_path(namespace), body)
    return {"configMap": {"name": "example-suite"}, "kbConfigMap": {"name": "example-kb"}}


def decision(obj: dict[str, Any]) -> dict[str, Any]:
    status = obj["status"]
    return {
        "verdict": status["verdict"],
        "score": status["score"],
        "judges": status["judges"],
        "tickets": status["tickets"],
        "suiteDigest": status["inputs"]["suiteDigest"],
        "judgesDigest": status["inputs"]["judgesDigest"],
    }


def pod_of(admin: KubeApi, namespace: str, job: str) -> dict[str, Any]:
    pods = admin.get(support.pods_path(namespace), labelSelector=f"job-name={job}")["items"]
    assert pods, f"no pod of Job {job}"
    found: dict[str, Any] = pods[0]
    return found


def split_seconds(pod: dict[str, Any]) -> float:
    """How long the pod's `split` init container ran (pull, verify, unpack, split), from its status."""
    for status in pod["status"].get("initContainerStatuses") or []:
        if status["name"] == "split":
            ended = status["state"]["terminated"]
            began, done = (datetime.fromisoformat(ended[k]) for k in ("startedAt", "finishedAt"))
            return (done - began).total_seconds()
    raise AssertionError("the pod has no split init container")


def test_oci_suite_gives_the_config_map_suites_verdict(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    registry: Registry,
    oci_operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    reference, _ = push(registry, EXAMPLE, "suites/support-desk")
    artifact = reference.rsplit("@", 1)[1]
    brain = brains("v1")
    path = support.evaluations_path(namespace)
    admin.create(path, evaluation("from-oci", replay_spec(brain, "v1", suite={"oci": reference})))
    config_map_suite = suite_config_maps(admin, namespace)
    admin.create(path, evaluation("from-configmap", replay_spec(brain, "v1", suite=config_map_suite)))
    from_oci = support.wait_for_verdict(admin, namespace, "from-oci", operator=oci_operator, timeout=240)
    from_config_map = support.wait_for_verdict(
        admin, namespace, "from-configmap", operator=oci_operator, timeout=240
    )

    assert from_oci["status"]["verdict"] == "Pass", from_oci["status"].get("message")
    assert decision(from_oci) == decision(from_config_map)
    assert from_oci["status"]["inputs"]["suiteArtifactDigest"] == artifact
    assert from_config_map["status"]["inputs"].get("suiteArtifactDigest") is None
    wide = control_plane.kubectl("get", "evaluations", "from-oci", "-n", namespace, "-o", "wide").stdout
    assert "SUITE ARTIFACT" in wide.splitlines()[0] and artifact in wide.splitlines()[1], wide

    # The trust boundary: the answer container mounts the public part only, and nothing of the registry;
    # the CA is the install's Secret, in the split init container alone.
    answer_pod = pod_of(admin, namespace, from_oci["status"]["answer"]["jobName"])["spec"]
    (answer,) = (c for c in answer_pod["containers"] if c["name"] == "answer")
    mounted = {m["name"] for m in answer["volumeMounts"]}
    assert "suite" in mounted and not mounted & {"key", "registry-ca", "split-tmp"}, mounted
    assert not any(e["name"] == "ASSAY_REGISTRY_CA" for e in answer.get("env") or [])
    (split,) = (c for c in answer_pod["initContainers"] if c["name"] == "split")
    at = split["command"].index("split")
    assert split["command"][at : at + 2] == ["split", f"oci://{reference}"]
    assert {"name": "ASSAY_REGISTRY_CA", "value": "/etc/assay/registry/ca/ca.crt"} in split["env"]
    volumes = {v["name"]: v for v in answer_pod["volumes"]}
    assert volumes["registry-ca"]["secret"]["secretName"] == CA_SECRET


def test_a_50_mb_oci_suite(
    admin: KubeApi,
    namespace: str,
    registry: Registry,
    oci_operator: OperatorProcess,
    brains: Callable[[str], str],
    tmp_path: Path,
) -> None:
    suite = large_suite(tmp_path)
    size = sum(p.stat().st_size for p in suite.rglob("*") if p.is_file())
    assert size > 50 * 1000 * 1000
    reference, pushed_in = push(registry, suite, "suites/large")
    spec = replay_spec(brains("v1"), "v1", suite={"oci": reference}, deadlineSeconds=900)
    admin.create(support.evaluations_path(namespace), evaluation("large", spec))
    done = support.wait_for_verdict(admin, namespace, "large", operator=oci_operator, timeout=600)

    status = done["status"]
    assert status["verdict"] == "Pass", status.get("message")
    assert status["inputs"]["suiteArtifactDigest"] == reference.rsplit("@", 1)[1]
    answer_split = split_seconds(pod_of(admin, namespace, status["answer"]["jobName"]))
    judge_split = split_seconds(pod_of(admin, namespace, status["jobName"]))
    print(
        f"\n50 MB suite ({size / 1e6:.1f} MB): assay push {pushed_in:.2f} s; in-pod pull+split: answer pod "
        f"{answer_split:.0f} s, judge pod {judge_split:.0f} s (kubelet times, whole seconds)"
    )


def test_a_digest_the_registry_lacks_is_blocked(
    admin: KubeApi,
    namespace: str,
    registry: Registry,
    oci_operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    push(registry, EXAMPLE, "suites/support-desk")  # the repository exists; this digest is not in it
    wrong = "sha256:" + hashlib.sha256(b"not the suite").hexdigest()
    reference = f"{registry.host}/suites/support-desk@{wrong}"
    admin.create(
        support.evaluations_path(namespace),
        evaluation("wrong-digest", replay_spec(brains("v1"), "v1", suite={"oci": reference})),
    )
    done = support.wait_for_verdict(admin, namespace, "wrong-digest", operator=oci_operator, timeout=240)

    status = done["status"]
    assert status["verdict"] == "Blocked"
    stalled = support.condition(done, "Stalled")
    assert stalled is not None and stalled["status"] == "True", stalled
    assert stalled["reason"] == "SuitePullFailed", stalled
    assert wrong in stalled["message"] and "HTTP 404" in stalled["message"], stalled["message"]
    assert support.condition_status(done, "Ready") == "False"
