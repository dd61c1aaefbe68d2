"""Images by digest through a real registry (tools/registry on loopback over TLS), signed with a cosign key
pair (cosign v2 from the Go module proxy, tools/cosign): the operator's verifier
(assay_operator.image_verification) and the local kubelet's pull (assay_dev.cluster.registry_pull) against
a signed image, an unsigned one, one signed by another key, and one with a byte of a layer changed in the
registry; each verdict cross-checked with `cosign verify`. Also the SBOM attestation and a signed suite
artifact."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_dev.cluster.mirrors import parse_mirror_sets, pull_with_mirrors
from assay_dev.cluster.registry_pull import PullError, RegistryPuller
from assay_dev.images import mirror, registry_images, signing
from assay_dev.servers.registry import Registry
from assay_operator import image_mirrors
from assay_operator import image_verification as iv
from tests.conftest import ClusterImages
from tests.support.signed_images import SignedImages, push_signed_images

pytestmark = pytest.mark.builds  # the registry, cosign and the images

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pushed(tmp_path_factory: pytest.TempPathFactory, cluster_images: ClusterImages) -> Iterator[SignedImages]:
    work = tmp_path_factory.mktemp("signed-images")
    with Registry(work / "registry", serve_as_stored=True) as registry:
        yield push_signed_images(registry, cluster_images.runner, work, "assay-runner")


def verdict(pushed: SignedImages, reference: str) -> iv.Verdict:
    return iv.ImageVerifier(pushed.key.public.read_bytes(), str(pushed.registry.ca)).verify(reference)


def cosign_accepts(pushed: SignedImages, reference: str) -> bool:
    try:
        signing.verify(reference, pushed.key.public, ca=pushed.registry.ca)
    except signing.SigningError:
        return False
    return True


def test_a_signed_image_verifies(pushed: SignedImages) -> None:
    found = verdict(pushed, pushed.signed)
    assert found.reason == iv.VERIFIED, found.message
    assert cosign_accepts(pushed, pushed.signed)


def test_an_unsigned_image_is_refused(pushed: SignedImages) -> None:
    found = verdict(pushed, pushed.unsigned)
    assert found.reason == iv.UNSIGNED, found.message
    assert "no cosign signature" in found.message
    assert not cosign_accepts(pushed, pushed.unsigned)


def test_an_image_signed_by_another_key_is_refused(pushed: SignedImages) -> None:
    found = verdict(pushed, pushed.other_signer)
    assert found.reason == iv.SIGNATURE_INVALID, found.message
    assert not cosign_accepts(pushed, pushed.other_signer)


def test_a_changed_layer_is_refused_though_its_signature_holds(pushed: SignedImages) -> None:
    found = verdict(pushed, pushed.tampered)
    assert found.reason == iv.DIGEST_MISMATCH, found.message
    assert "layer" in found.message
    # cosign checks the signature of the manifest digest only: the changed layer is the verifier's to find.
    assert cosign_accepts(pushed, pushed.tampered)


def test_a_tag_or_another_digest_is_refused(pushed: SignedImages) -> None:
    by_tag = pushed.signed.partition("@")[0] + ":latest"
    assert verdict(pushed, by_tag).reason == iv.NOT_BY_DIGEST
    other = pushed.signed.partition("@")[0] + "@sha256:" + "0" * 64
    assert verdict(pushed, other).reason == iv.UNREADABLE  # the registry has no such manifest


def test_the_kubelet_pulls_by_digest_and_refuses_a_changed_layer(
    pushed: SignedImages, tmp_path: Path
) -> None:
    puller = RegistryPuller({pushed.registry.host: pushed.registry.ca}, tmp_path / "pulled")
    fetched = puller.pull(pushed.signed)
    assert fetched.reference.digest == pushed.signed.partition("@")[2]
    assert fetched.spec.entrypoint, "the image's config was read from the registry"
    manifest = registry_images.manifest(pushed.registry, pushed.signed)
    for layer in manifest["layers"]:
        assert (tmp_path / "pulled" / "blobs" / "sha256" / layer["digest"].partition(":")[2]).exists()
    with pytest.raises(PullError, match="does not verify"):
        puller.pull(pushed.tampered)


@pytest.mark.parametrize("folder", ["assay-cp-smr0x5c_", "UPPER", "a--b__"])
def test_the_kubelet_pulls_into_a_folder_whose_name_is_no_image_reference(
    pushed: SignedImages, tmp_path: Path, folder: str
) -> None:
    """A control plane's folder is random (`tempfile.mkdtemp`): one ending in "_" made buildah's pull of the
    OCI layout fail, as buildah named the image after the path, so a pod could not start by chance."""
    puller = RegistryPuller({pushed.registry.host: pushed.registry.ca}, tmp_path / folder / "pulled")
    fetched = puller.pull(pushed.signed)
    assert fetched.reference.digest == pushed.signed.partition("@")[2]


def test_the_sbom_is_attested_and_verifies(pushed: SignedImages, tmp_path: Path) -> None:
    sbom = tmp_path / "runner.spdx.json"
    sbom.write_text('{"spdxVersion": "SPDX-2.3", "name": "assay-runner", "packages": []}')
    signing.attest_sbom(pushed.signed, sbom, pushed.key.private, ca=pushed.registry.ca)
    output = signing.verify_sbom(pushed.signed, pushed.key.public, ca=pushed.registry.ca)
    envelope = json.loads(output.splitlines()[0])
    statement = json.loads(base64.b64decode(envelope["payload"]))
    assert statement["predicateType"] == "https://spdx.dev/Document"
    assert statement["predicate"]["name"] == "assay-runner"
    assert statement["subject"][0]["digest"]["sha256"] == pushed.signed.partition("@sha256:")[2]
    with pytest.raises(signing.SigningError):
        signing.verify_sbom(pushed.signed, pushed.other_key.public, ca=pushed.registry.ca)


def test_a_signed_suite_artifact_verifies(pushed: SignedImages) -> None:
    pushed_suite = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay_runner.cli",
            "push",
            str(REPO / "examples" / "support-desk"),
            f"{pushed.registry.host}/suites/support-desk:v1",
            "--registry-ca",
            str(pushed.registry.ca),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )
    assert pushed_suite.returncode == 0, pushed_suite.stderr
    reference = pushed_suite.stdout.strip()
    assert verdict(pushed, reference).reason == iv.UNSIGNED
    signing.sign(reference, pushed.key.private, ca=pushed.registry.ca)
    assert verdict(pushed, reference).reason == iv.VERIFIED
    assert cosign_accepts(pushed, reference)


def test_make_push_records_signed_references_the_release_bundle_pins(
    pushed: SignedImages, cluster_images: ClusterImages, tmp_path: Path
) -> None:
    """`python -m assay_dev.images push` (make push) on a record of built images: each pushed by digest,
    signed and its SBOM attested; the record it writes has images.json's shape, so the release bundle pins
    the registry's references (relatedImages, the Deployment, ASSAY_RUNNER_IMAGE)."""
    sbom = tmp_path / "sbom.spdx.json"
    sbom.write_text('{"spdxVersion": "SPDX-2.3", "name": "assay", "packages": []}')
    built = {"operator": cluster_images.operator, "runner": cluster_images.runner}
    record = tmp_path / "images.json"
    record.write_text(
        json.dumps({"images": {n: {"reference": r, "sbom": str(sbom)} for n, r in built.items()}})
    )
    out = tmp_path / "pushed.json"
    registry = pushed.registry
    command = [sys.executable, "-m", "assay_dev.images", "push", "--registry", f"{registry.host}/release"]
    command += ["--ca", str(registry.ca), "--sign-key", str(pushed.key.private)]
    command += ["--record", str(record), "--out", str(out)]
    ran = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900)
    assert ran.returncode == 0, ran.stderr
    references = {n: e["reference"] for n, e in json.loads(out.read_text())["images"].items()}
    assert set(references) == {"operator", "runner"}
    for name, reference in references.items():
        assert reference.startswith(f"{registry.host}/release/assay-{name}@sha256:")
        assert verdict(pushed, reference).reason == iv.VERIFIED
        signing.verify_sbom(reference, pushed.key.public, ca=registry.ca)

    bundle = tmp_path / "bundle"
    generated = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "gen_olm_bundle.py"),
            "--pinned",
            str(out),
            "--out",
            str(bundle),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert generated.returncode == 0, generated.stderr
    csv = next((bundle / "manifests").glob("*.clusterserviceversion.yaml")).read_text()
    for reference in references.values():
        assert reference in csv
    assert "features.operators.openshift.io/disconnected: 'true'" in csv or (
        'features.operators.openshift.io/disconnected: "true"' in csv
    )


def test_a_digest_mirror_serves_the_same_signed_image(pushed: SignedImages, tmp_path: Path) -> None:
    """The signed image mirrored byte for byte (manifest, blobs, signature) to a second registry: verified
    and pulled there through an ImageDigestMirrorSet-shaped list; a mirror without it falls back to the
    source only when the list allows contacting the source."""
    with Registry(tmp_path / "mirror", name="assay-test-mirror") as mirror_registry:
        source_name = pushed.signed.partition("@")[0]
        mirrored = mirror.mirror_image(
            pushed.signed,
            f"{mirror_registry.host}/mirrored/assay-runner",
            source_ca=pushed.registry.ca,
            target_ca=mirror_registry.ca,
        )
        assert mirrored.partition("@")[2] == pushed.signed.partition("@")[2]
        bundle = tmp_path / "ca-bundle.pem"
        bundle.write_text(pushed.registry.ca.read_text() + mirror_registry.ca.read_text())

        def verifier(mirrors: str, policy: str) -> iv.ImageVerifier:
            entry = {"source": source_name, "mirrors": [mirrors], "mirrorSourcePolicy": policy}
            idms = {"apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet"}
            parsed = image_mirrors.parse(json.dumps({**idms, "spec": {"imageDigestMirrors": [entry]}}))
            return iv.ImageVerifier(pushed.key.public.read_bytes(), str(bundle), mirrors=parsed)

        at_mirror = verifier(mirrored.partition("@")[0], "NeverContactSource").verify(pushed.signed)
        assert at_mirror.reason == iv.VERIFIED and mirror_registry.host in at_mirror.message
        empty = f"{mirror_registry.host}/empty/assay-runner"
        assert verifier(empty, "NeverContactSource").verify(pushed.signed).reason == iv.UNREADABLE
        fallback = verifier(empty, "AllowContactingSource").verify(pushed.signed)
        assert fallback.reason == iv.VERIFIED and pushed.registry.host in fallback.message

        registries = {pushed.registry.host: pushed.registry.ca, mirror_registry.host: mirror_registry.ca}
        entry = {
            "source": source_name,
            "mirrors": [mirrored.partition("@")[0]],
            "mirrorSourcePolicy": "NeverContactSource",
        }
        idms = {"apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet"}
        node_list = [{**idms, "spec": {"imageDigestMirrors": [entry]}}]
        puller = RegistryPuller(registries, tmp_path / "pulled")
        _, fetched = pull_with_mirrors(
            pushed.signed, parse_mirror_sets(node_list, "the node's list"), puller.pull
        )
        assert fetched.reference.host == mirror_registry.host
