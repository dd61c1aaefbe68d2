"""A disconnected install, end to end on the local control plane (issue 41; docs/disconnected.md):

1. the operator and runner images pushed to registry A and signed with a cosign key; the example suite
   pushed there as an artifact (`assay push`) and signed;
2. the release bundle written from those references (gen_olm_bundle.py --pinned): it claims
   `disconnected: true` and passes the operator-framework's validation;
3. everything the bundle lists in relatedImages, and the suite, mirrored to registry B by digest with the
   signatures (python -m assay_dev.images.mirror), and the ImageDigestMirrorSet for it written;
4. registry A stopped. The signatures verify at B (the operator's own verifier and `cosign verify`);
5. the control: without the mirror set, a pod naming the operator image at A fails to pull (ErrImagePull,
   a `Failed` event saying the registry cannot be reached);
6. the mirror set given to the node (the local kubelet honours it as OpenShift's nodes do), the chart
   installed naming the images at A as the bundle does, and an Evaluation whose suite is the artifact at the
   mirror runs to its verdict: every image came from B, since A is gone.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay_dev.cluster import ControlPlane, LocalKubelet, assay_install
from assay_dev.cluster.ports import free_port
from assay_dev.cluster.wait import wait_until
from assay_dev.images import registry_images, signing
from assay_dev.images.mirror import mirror, mirror_set, related_images
from assay_dev.servers.registry import Registry
from assay_operator.image_verification import ImageVerifier
from tests.chart.conftest import Helm
from tests.chart.test_olm_bundle import CSV_FILE, load_generator, validate

pytestmark = pytest.mark.cluster

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "support-desk"
DISCONNECTED = "features.operators.openshift.io/disconnected"
SUITE_CA_SECRET = "mirror-registry-ca"

Obj = dict[str, Any]


@pytest.fixture(scope="module")
def workload_controllers(control_plane: ControlPlane) -> Iterator[None]:
    with assay_install.workload_controllers(control_plane):
        yield


@pytest.fixture
def mirror_list(kubelet: LocalKubelet) -> Iterator[Path]:
    """The node's mirror file, removed afterwards (the kubelet is shared by the session's tests)."""
    assert not kubelet.mirror_file.exists()
    yield kubelet.mirror_file
    kubelet.mirror_file.unlink(missing_ok=True)


def assay_push(registry: Registry, suite: Path, repository: str) -> str:
    command = ["push", str(suite), f"{registry.host}/{repository}", "--registry-ca", str(registry.ca)]
    pushed = subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", *command],
        capture_output=True,
        text=True,
        check=False,
    )
    assert pushed.returncode == 0, pushed.stderr
    return pushed.stdout.strip()


def events_of(control_plane: ControlPlane, namespace: str, pod: str) -> list[Obj]:
    events: list[Obj] = control_plane.api.get(
        f"/api/v1/namespaces/{namespace}/events", fieldSelector=f"involvedObject.name={pod}"
    )["items"]
    return events


def split_reference(reference: str) -> tuple[str, str]:
    repository, _, digest = reference.partition("@")
    return repository, digest


def test_install_and_evaluate_with_only_the_mirror_reachable(
    control_plane: ControlPlane,
    kubelet: LocalKubelet,
    helm: Helm,
    crd: None,
    workload_controllers: None,
    namespace: str,
    mirror_list: Path,
    tmp_path: Path,
) -> None:
    images = assay_install.local_images()
    key = registry_images.key_pair(tmp_path / "key")
    with Registry(tmp_path / "registry-a") as source, Registry(tmp_path / "registry-b") as target:
        # 1. Published to A, signed.
        operator = registry_images.push_signed(source, images.operator.reference, "assay/assay-operator", key)
        runner = registry_images.push_signed(source, images.runner.reference, "assay/assay-runner", key)
        suite = assay_push(source, EXAMPLE, "assay/suites/support-desk:v1")
        signing.sign(suite, key.private, ca=source.ca)

        # 2. The release bundle names them by digest and claims disconnected support, validated.
        record = tmp_path / "pushed.json"
        record.write_text(
            json.dumps({"images": {"operator": {"reference": operator}, "runner": {"reference": runner}}})
        )
        bundle = tmp_path / "bundle"
        assert load_generator().main(["--pinned", str(record), "--out", str(bundle)]) == 0
        released: Obj = yaml.safe_load((bundle / "manifests" / CSV_FILE.name).read_text())
        assert released["metadata"]["annotations"][DISCONNECTED] == "true"
        assert validate(bundle) == (0, [])
        assert related_images(bundle) == [operator, runner]

        # 3. Mirrored to B with their signatures; the mirror set for the cluster.
        began = time.monotonic()
        copies = mirror(
            [*related_images(bundle), suite], f"{target.host}/mirror", [source.ca, target.ca], timeout=600
        )
        mirrored_in = time.monotonic() - began
        idms = mirror_set(copies, never_contact_source=True)
        for reference, copy in copies.items():
            assert split_reference(copy) == (
                f"{target.host}/mirror/{split_reference(reference)[0].partition('/')[2]}",
                split_reference(reference)[1],
            )

        # 4. A goes away; the signatures verify at the mirror.
        source.__exit__(None, None, None)
        verifier = ImageVerifier(key.public.read_bytes(), ca_file=str(target.ca))
        for reference in (operator, runner):
            verdict = verifier.verify(copies[reference])
            assert verdict.verified, verdict
            signing.verify(copies[reference], key.public, ca=target.ca)
        signing.verify(copies[suite], key.public, ca=target.ca)

        kubelet.trust_registry(source.host, source.ca)
        kubelet.trust_registry(target.host, target.ca)

        # 5. The control: no mirror set, A stopped: the pull fails, and says why.
        pods = f"/api/v1/namespaces/{namespace}/pods"
        control_plane.api.create(
            pods,
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "no-mirror"},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "operator", "image": operator, "command": ["true"]}],
                },
            },
        )

        def refused() -> Obj | None:
            failed = [e for e in events_of(control_plane, namespace, "no-mirror") if e["reason"] == "Failed"]
            return failed[0] if failed else None

        event = wait_until(refused, timeout=120, what="the no-mirror pod's Failed event")
        assert event["type"] == "Warning" and event["source"]["component"] == "kubelet"
        assert event["message"].startswith(
            f"Failed to pull image: pulling {operator}: the registry cannot be"
        )
        assert "Connect" in event["message"], event["message"]
        waiting = control_plane.api.get(f"{pods}/no-mirror")["status"]["containerStatuses"][0]["state"]
        assert waiting["waiting"]["reason"] == "ErrImagePull", waiting
        control_plane.api.delete(f"{pods}/no-mirror")

        # 6. The node honours the mirror set; the chart installed as the bundle names the images.
        mirror_list.write_text(yaml.safe_dump(idms))
        control_plane.api.create(
            f"/api/v1/namespaces/{namespace}/secrets",
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": SUITE_CA_SECRET},
                "stringData": {"ca.crt": target.ca.read_text()},
            },
        )
        (operator_repository, operator_digest), (runner_repository, runner_digest) = map(
            split_reference, (operator, runner)
        )
        install = [
            "install", "assay", str(assay_install.CHART), "--namespace", namespace, "--skip-crds",
            "--set", f"image.repository={operator_repository},image.digest={operator_digest}",
            "--set", f"runner.image.repository={runner_repository},runner.image.digest={runner_digest}",
            "--set", f"operator.healthPort={free_port()},metrics.port={free_port()}",
            "--set", f"suiteRegistry.caSecret={SUITE_CA_SECRET}",
            "--wait", "--timeout=4m",
        ]  # fmt: skip
        began = time.monotonic()
        helm.run(*install, kubeconfig=control_plane.kubeconfig)
        installed_in = time.monotonic() - began
        try:
            api = control_plane.api
            api.create(
                f"/api/v1/namespaces/{namespace}/configmaps", assay_install.brain_config_map("brain", "v1")
            )
            evaluation = assay_install.example_evaluation("disconnected", "brain", "v1")
            evaluation["spec"]["suite"] = {"oci": copies[suite]}
            evaluations = f"/apis/assay.dev/v1alpha1/namespaces/{namespace}/evaluations"
            api.create(evaluations, evaluation)
            wait = ["wait", "--for=condition=Completed", "evaluation/disconnected", "-n", namespace]
            result = control_plane.kubectl(*wait, "--timeout=300s", timeout=320, check=False)
            done = api.get(f"{evaluations}/disconnected")
            assert result.returncode == 0, f"{result.stderr}\n{done.get('status')}"
            status = done["status"]
            assert status["verdict"] == "Pass", status.get("message")
            assert status["inputs"]["suiteArtifactDigest"] == split_reference(suite)[1]
            print(
                f"\nmirrored {len(copies)} references with their signatures in {mirrored_in:.1f} s; "
                f"helm install from the mirror in {installed_in:.1f} s; the Evaluation's verdict "
                f"{time.monotonic() - began:.1f} s after the install began"
            )

            # Every container ran an image the pod names at A, pulled from B (A is stopped).
            ran = {
                s["image"]: s["imageID"]
                for p in api.get(pods)["items"]
                for s in (p.get("status") or {}).get("containerStatuses") or []
            }
            assert set(ran) == {operator, runner}, ran
            assert all(image == image_id for image, image_id in ran.items()), ran
            pulled = registry_images.manifest(target, copies[runner])
            store = kubelet.work_dir / "pulled-images" / "blobs" / "sha256"
            assert all((store / layer["digest"].partition(":")[2]).exists() for layer in pulled["layers"])
        finally:
            helm.run(
                "uninstall", "assay", "--namespace", namespace, "--wait", kubeconfig=control_plane.kubeconfig
            )
