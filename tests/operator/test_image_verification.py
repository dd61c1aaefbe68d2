"""The operator's image verification, without a registry: the settings (a verified runner image is named
by digest), the cosign simple-signing payload checked against a public key, references, and the Blocked
status with the ImageVerified condition. The registry cases (signed, unsigned, another key, a changed
layer) are tests/registry/test_image_signing.py; the cluster's are tests/operator_cluster."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from assay_operator import conditions
from assay_operator import image_verification as iv
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.evaluation.read import reconcile
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
