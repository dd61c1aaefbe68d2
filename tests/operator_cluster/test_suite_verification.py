"""A suite from an OCI artifact verified by the operator before any Job, when the install verifies (issue
41): the runner image and the example suite in one registry (tools/registry, TLS from the harness's CA),
the suite signed by the install's cosign key in one repository and pushed unsigned to another. The signed
suite runs to its verdict with SuiteVerified True; the unsigned one ends Blocked with SuiteVerified False,
reason Unsigned, and no Job is ever made for it. The operator reads the registry with the install's CA
(ASSAY_REGISTRY_CA_FILE), the runner pods with suiteRegistry's Secret: here the same CA."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi, LocalKubelet
from assay_dev.images import registry_images, signing
from assay_dev.operator_support import Images, condition, evaluation, replay_spec
from assay_dev.servers.registry import Registry
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
CA_SECRET = "suite-registry-ca"


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory, kubelet: LocalKubelet) -> Iterator[Registry]:
    with Registry(tmp_path_factory.mktemp("registry")) as started:
        kubelet.trust_registry(started.host, started.ca)
        yield started


def push_suite(registry: Registry, repository: str) -> str:
    """`assay push` of the example suite: the reference by digest it prints."""
    pushed = subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", "push", str(EXAMPLE), f"{registry.host}/{repository}"],
        capture_output=True,
        text=True,
        env={**os.environ, "ASSAY_REGISTRY_CA": str(registry.ca)},
        check=False,
    )
    assert pushed.returncode == 0, pushed.stderr
    return pushed.stdout.strip()


def test_a_signed_suite_runs_and_an_unsigned_one_never_does(
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    registry: Registry,
    images: Images,
    tmp_path: Path,
) -> None:
    key = registry_images.key_pair(tmp_path / "key")
    runner = registry_images.push_signed(registry, images.test_runner, "assay/assay-runner", key)
    signed = push_suite(registry, "suites/signed")
    signing.sign(signed, key.private, ca=registry.ca)
    unsigned = push_suite(registry, "suites/unsigned")  # the same bytes, no signature in this repository
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": CA_SECRET},
        "stringData": {"ca.crt": registry.ca.read_text()},
    }
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", secret)
    env = {
        "ASSAY_IMAGE_VERIFICATION_KEY_FILE": str(key.public),
        "ASSAY_REGISTRY_CA_FILE": str(registry.ca),
        "ASSAY_SUITE_REGISTRY_CA_SECRET": CA_SECRET,
    }
    operator = operators(namespace, image=runner, env=env)
    brain = brains("v1")
    path = support.evaluations_path(namespace)
    admin.create(path, evaluation("unsigned-suite", replay_spec(brain, "v1", suite={"oci": unsigned})))
    admin.create(path, evaluation("signed-suite", replay_spec(brain, "v1", suite={"oci": signed})))
    refused = support.wait_for_verdict(admin, namespace, "unsigned-suite", operator=operator, timeout=240)
    passed = support.wait_for_verdict(admin, namespace, "signed-suite", operator=operator, timeout=300)

    assert passed["status"]["verdict"] == "Pass", passed["status"].get("message")
    suite_verified = condition(passed, "SuiteVerified")
    assert suite_verified is not None and suite_verified["status"] == "True", suite_verified
    assert suite_verified["reason"] == "Verified" and signed in suite_verified["message"]
    image_verified = condition(passed, "ImageVerified")
    assert image_verified is not None and image_verified["status"] == "True", image_verified
    assert passed["status"]["inputs"]["suiteArtifactDigest"] == signed.rsplit("@", 1)[1]

    status = refused["status"]
    assert status["verdict"] == "Blocked"
    suite_refused = condition(refused, "SuiteVerified")
    assert suite_refused is not None, status
    assert (suite_refused["status"], suite_refused["reason"]) == ("False", "Unsigned"), suite_refused
    assert (
        unsigned.rsplit("@", 1)[1] in suite_refused["message"]
        and "suites/unsigned" in suite_refused["message"]
    )
    stalled = condition(refused, "Stalled")
    assert stalled is not None and (stalled["status"], stalled["reason"]) == ("True", "Unsigned"), stalled
    assert not status.get("jobName")
    jobs = admin.get(support.jobs_path(namespace))["items"]
    owners = {ref["name"] for job in jobs for ref in job["metadata"].get("ownerReferences") or []}
    assert "signed-suite" in owners and "unsigned-suite" not in owners, owners
