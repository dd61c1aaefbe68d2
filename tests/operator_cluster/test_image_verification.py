"""The runner image from a registry by digest, verified by the operator before any Job (issue 41): the
tests' runner image pushed to a real registry (tools/registry, TLS from the harness's CA) and signed with a
cosign key pair; the node pulls it from there by digest (manifest and layers verified) and the Evaluation
reaches its verdict. An image with one byte of one layer changed in the registry, an unsigned one and one
signed by another key are refused: the Evaluation ends Blocked with the ImageVerified condition naming why,
and no Job is ever made. And a disconnected cluster: the image mirrored by digest to a second registry, the
first stopped, node and operator following one ImageDigestMirrorSet-shaped list."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi, LocalKubelet
from assay_dev.images import mirror, registry_images
from assay_dev.operator_support import Images, condition, evaluation, replay_spec
from assay_dev.servers.registry import Registry
from assay_operator import image_mirrors
from tests.operator_cluster.conftest import StartOperator
from tests.support.signed_images import SignedImages, push_signed_images

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def published(
    tmp_path_factory: pytest.TempPathFactory, kubelet: LocalKubelet, images: Images
) -> Iterator[SignedImages]:
    work = tmp_path_factory.mktemp("published")
    with Registry(work / "registry", serve_as_stored=True) as registry:
        kubelet.trust_registry(registry.host, registry.ca)
        yield push_signed_images(registry, images.test_runner, work, "assay/assay-runner")


def test_a_signed_runner_image_is_pulled_from_the_registry_and_runs(
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    published: SignedImages,
    kubelet: LocalKubelet,
) -> None:
    operator = operators(namespace, image=published.signed, env=published.verifying())
    admin.create(support.evaluations_path(namespace), evaluation("signed", replay_spec(brains("v1"))))
    done = support.wait_for_verdict(admin, namespace, "signed", operator=operator, timeout=300)
    assert done["status"]["verdict"] == "Pass", done["status"].get("message")
    verified = condition(done, "ImageVerified")
    assert verified is not None and verified["status"] == "True" and verified["reason"] == "Verified"
    assert published.signed in verified["message"]
    # Every container ran the image the node pulled from the registry, by its digest.
    pods = admin.get(support.pods_path(namespace))["items"]
    image_ids = {s["imageID"] for p in pods for s in (p.get("status") or {}).get("containerStatuses") or []}
    assert image_ids == {published.signed}, image_ids
    manifest = registry_images.manifest(published.registry, published.signed)
    pulled = kubelet.work_dir / "pulled-images" / "blobs" / "sha256"
    assert all((pulled / layer["digest"].partition(":")[2]).exists() for layer in manifest["layers"])


@pytest.mark.parametrize(
    ("which", "reason"),
    [("tampered", "DigestMismatch"), ("unsigned", "Unsigned"), ("other_signer", "SignatureInvalid")],
)
def test_a_runner_image_that_fails_verification_never_runs(
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    published: SignedImages,
    which: str,
    reason: str,
) -> None:
    image = getattr(published, which)
    operator = operators(namespace, image=image, env=published.verifying())
    admin.create(support.evaluations_path(namespace), evaluation("refused", replay_spec(brains("v1"))))
    done = support.wait_for_verdict(admin, namespace, "refused", operator=operator)
    status = done["status"]
    assert status["verdict"] == "Blocked"
    verified = condition(done, "ImageVerified")
    assert verified is not None and (verified["status"], verified["reason"]) == ("False", reason), verified
    assert image.partition("@")[2] in verified["message"]
    stalled = condition(done, "Stalled")
    assert stalled is not None and (stalled["status"], stalled["reason"]) == ("True", reason)
    assert "jobName" not in status or not status.get("jobName")
    assert admin.get(support.jobs_path(namespace))["items"] == []
    assert admin.get(support.pods_path(namespace))["items"] == []


def test_a_disconnected_cluster_pulls_and_verifies_the_runner_image_at_its_mirror(
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    published: SignedImages,
    kubelet: LocalKubelet,
    images: Images,
    tmp_path: Path,
) -> None:
    """The signed runner image in a source registry, mirrored by digest (with its signature) to a second
    registry; the source stopped. The node and the operator follow the same ImageDigestMirrorSet-shaped list
    (NeverContactSource): the image is verified and pulled at the mirror, and the Evaluation passes."""
    key = published.key
    with Registry(tmp_path / "source", name="assay-test-source") as source:
        original = registry_images.push_signed(source, images.test_runner, "release/assay-runner", key)
        with Registry(tmp_path / "mirror", name="assay-test-mirror") as mirror_registry:
            mirrored = mirror.mirror_image(
                original,
                f"{mirror_registry.host}/disconnected/assay-runner",
                source_ca=source.ca,
                target_ca=mirror_registry.ca,
            )
            source.__exit__(None, None, None)  # stopped: only the mirror can serve the image now
            digest_mirrors = [
                {
                    "source": original.partition("@")[0],
                    "mirrors": [mirrored.partition("@")[0]],
                    "mirrorSourcePolicy": "NeverContactSource",
                }
            ]
            kubelet.trust_registry(mirror_registry.host, mirror_registry.ca)
            kubelet.mirror_digests(image_mirrors.parse(json.dumps(digest_mirrors)))
            try:
                env = {
                    "ASSAY_IMAGE_VERIFICATION_KEY_FILE": str(key.public),
                    "ASSAY_REGISTRY_CA_FILE": str(mirror_registry.ca),
                    "ASSAY_IMAGE_DIGEST_MIRRORS": json.dumps(digest_mirrors),
                }
                operator = operators(namespace, image=original, env=env)
                path = support.evaluations_path(namespace)
                admin.create(path, evaluation("mirrored", replay_spec(brains("v1"))))
                done = support.wait_for_verdict(admin, namespace, "mirrored", operator=operator, timeout=300)
            finally:
                kubelet.mirror_digests([])
    assert done["status"]["verdict"] == "Pass", done["status"].get("message")
    verified = condition(done, "ImageVerified")
    assert verified is not None and verified["status"] == "True", verified
    assert mirrored in verified["message"]
    pods = admin.get(support.pods_path(namespace))["items"]
    image_ids = {s["imageID"] for p in pods for s in (p.get("status") or {}).get("containerStatuses") or []}
    # As CRI-O reports a mirrored pull: under the name the pod asked for (the source, stopped since, so the
    # bytes came from the mirror; the digest is the same).
    assert image_ids == {original}, image_ids


def test_without_verification_the_node_still_refuses_a_changed_layer(
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    published: SignedImages,
) -> None:
    """An install that does not verify (no key) makes the Job, but the node's pull hashes every layer: the
    changed one is refused (ErrImagePull naming the blob), the operator reports it in StartBlocked and the
    run ends Stalled with ImagePullFailed, no container of that image ever started."""
    grace = 20
    operator = operators(
        namespace, image=published.tampered, env={"ASSAY_POD_START_GRACE_SECONDS": str(grace)}
    )
    admin.create(support.evaluations_path(namespace), evaluation("unverified", replay_spec(brains("v1"))))
    reported = support.wait_for_evaluation(
        admin,
        namespace,
        "unverified",
        lambda obj: (condition(obj, "StartBlocked") or {}).get("status") == "True",
        timeout=120,
        what="StartBlocked",
        operator=operator,
    )
    blocked = condition(reported, "StartBlocked")
    assert blocked is not None and blocked["reason"] == "ImagePullFailed", blocked
    assert "does not verify" in blocked["message"] and published.tampered in blocked["message"]
    assert condition(reported, "ImageVerified") is None  # this install does not verify
    done = support.wait_for_verdict(admin, namespace, "unverified", timeout=grace + 90, operator=operator)
    assert done["status"]["verdict"] == "Blocked"
    stalled = condition(done, "Stalled")
    assert stalled is not None and (stalled["status"], stalled["reason"]) == ("True", "ImagePullFailed")
    pods = admin.get(support.pods_path(namespace))["items"]
    started = [
        s for p in pods for s in (p.get("status") or {}).get("containerStatuses") or [] if s.get("imageID")
    ]
    assert started == [], started
