"""The operator's image verification, without a registry: the settings (a verified runner image is named
by digest), the cosign simple-signing payload checked against a public key, references, and the Blocked
status with the ImageVerified condition. The registry cases (signed, unsigned, another key, a changed
layer) are tests/registry/test_image_signing.py; the cluster's are tests/operator_cluster."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import BaseModel

from assay_operator import conditions, image_mirrors
from assay_operator import image_verification as iv
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.evaluation.read import reconcile
from assay_operator.oci_documents import ImageManifest, SignatureManifest, SimpleSigningPayload
from assay_operator.settings import SettingsError, from_environment

DIGEST = "sha256:" + "ab" * 32


def test_verification_needs_the_runner_image_by_digest() -> None:
    key = {"ASSAY_IMAGE_VERIFICATION_KEY_FILE": "/etc/assay/cosign.pub"}
    with pytest.raises(SettingsError, match="must be named by digest"):
        from_environment({"ASSAY_RUNNER_IMAGE": "registry.example/assay-runner:1.0", **key})
    settings = from_environment(
        {
            "ASSAY_RUNNER_IMAGE": f"registry.example/assay-runner@{DIGEST}",
            "ASSAY_REGISTRY_CA_FILE": "/ca",
            **key,
        }
    )
    assert settings.image_verification_key_file == "/etc/assay/cosign.pub"
    assert settings.registry_ca_file == "/ca"
    assert from_environment({"ASSAY_RUNNER_IMAGE": "assay-runner:1.0"}).image_verification_key_file is None


def test_references() -> None:
    ref = iv.Reference.parse(f"127.0.0.1:5000/team/assay-runner:1.0@{DIGEST}")
    assert (ref.host, ref.repository, ref.digest) == ("127.0.0.1:5000", "team/assay-runner", DIGEST)
    hub = iv.Reference.parse(f"busybox@{DIGEST}")
    assert (hub.host, hub.repository) == ("registry-1.docker.io", "library/busybox")
    with pytest.raises(iv._Refused) as refused:
        iv.Reference.parse("registry.example/assay-runner:1.0")
    assert refused.value.verdict.reason == iv.NOT_BY_DIGEST
    verifier = iv.ImageVerifier(_pem(ec.generate_private_key(ec.SECP256R1())))
    assert verifier.verify("registry.example/assay-runner:latest").reason == iv.NOT_BY_DIGEST


def _pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def test_a_simple_signing_payload_verifies_with_its_key_only() -> None:
    signer, other = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    payload = json.dumps(
        {
            "critical": {
                "identity": {"docker-reference": "r/x"},
                "image": {"docker-manifest-digest": DIGEST},
                "type": iv.SIGNATURE_TYPE,
            },
            "optional": None,
        }
    ).encode()
    signature = signer.sign(payload, ec.ECDSA(hashes.SHA256()))
    assert iv.signature_verifies(iv.load_public_key(_pem(signer)), signature, payload)
    assert not iv.signature_verifies(iv.load_public_key(_pem(other)), signature, payload)
    assert not iv.signature_verifies(iv.load_public_key(_pem(signer)), signature, payload + b" ")


def test_a_refused_image_blocks_with_the_named_condition() -> None:
    status = reconcile.image_refused_status(EvaluationStatus(), 3, iv.UNSIGNED, "no cosign signature")
    assert status.verdict == "Blocked"
    assert status.observed_generation == 3
    found = {c.type: c for c in status.conditions or []}
    assert found[conditions.IMAGE_VERIFIED].status == "False"
    assert found[conditions.IMAGE_VERIFIED].reason == "Unsigned"
    assert found[conditions.STALLED].status == "True"
    assert found[conditions.STALLED].reason == "Unsigned"
    assert found[conditions.READY].status == "False"


def test_digest_mirrors_in_the_shape_of_an_image_digest_mirror_set() -> None:
    mirrors = image_mirrors.parse(
        json.dumps(
            {
                "apiVersion": "config.openshift.io/v1",
                "kind": "ImageDigestMirrorSet",
                "spec": {
                    "imageDigestMirrors": [
                        {"source": "quay.io/assay", "mirrors": ["mirror.local/assay", "backup.local/assay"]},
                        {
                            "source": "quay.io/assay/assay-runner",
                            "mirrors": ["mirror.local/runner"],
                            "mirrorSourcePolicy": "NeverContactSource",
                        },
                    ]
                },
            }
        )
    )
    operator = f"quay.io/assay/assay-operator@{DIGEST}"
    assert image_mirrors.candidates(operator, mirrors) == [
        f"mirror.local/assay/assay-operator@{DIGEST}",
        f"backup.local/assay/assay-operator@{DIGEST}",
        operator,
    ]
    # The most specific source decides; NeverContactSource leaves the source out.
    assert image_mirrors.candidates(f"quay.io/assay/assay-runner@{DIGEST}", mirrors) == [
        f"mirror.local/runner@{DIGEST}"
    ]
    # A prefix matches at a `/` only; a tag is never mirrored (digests only).
    assert image_mirrors.candidates(f"quay.io/assayx/y@{DIGEST}", mirrors) == [f"quay.io/assayx/y@{DIGEST}"]
    assert image_mirrors.candidates("quay.io/assay/y:1", mirrors) == ["quay.io/assay/y:1"]
    settings = from_environment(
        {
            "ASSAY_RUNNER_IMAGE": "r@" + DIGEST,
            "ASSAY_IMAGE_DIGEST_MIRRORS": json.dumps([{"source": "quay.io"}]),
        }
    )
    assert settings.image_digest_mirrors[0].source == "quay.io"
    with pytest.raises(SettingsError, match="ASSAY_IMAGE_DIGEST_MIRRORS"):
        from_environment({"ASSAY_RUNNER_IMAGE": "r", "ASSAY_IMAGE_DIGEST_MIRRORS": '[{"mirrors": []}]'})


@pytest.mark.parametrize(
    ("document", "kind", "named"),
    [
        (b"not json", ImageManifest, "not a readable ImageManifest"),
        (b"[]", ImageManifest, "not a readable ImageManifest"),
        (b'{"config": {"digest": "sha256:' + b"ab" * 32 + b'", "size": "12"}}', ImageManifest, "config.size"),
        (b'{"config": {"digest": "md5:00", "size": 1}}', ImageManifest, "config.digest"),
        (b'{"config": {"digest": "sha256:' + b"ab" * 32 + b'", "size": -1}}', ImageManifest, "config.size"),
        (b'{"layers": [{"mediaType": 3}]}', SignatureManifest, "layers.0"),
        (b'{"critical": {"type": "x"}}', SimpleSigningPayload, "critical.image"),
    ],
)
def test_a_registry_document_that_does_not_read_is_a_refusal_naming_the_field(
    document: bytes, kind: type[BaseModel], named: str
) -> None:
    """A registry (or whoever answers in its place) decides the bytes: a wrong type is a refusal that says
    where, never an exception out of the verifier."""
    with pytest.raises(iv._Refused) as refused:
        iv._read(kind, document, "registry.example/r@sha256:…: manifest")
    assert refused.value.verdict.reason == iv.DIGEST_MISMATCH
    assert named in refused.value.verdict.message
