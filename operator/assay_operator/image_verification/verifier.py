"""The verification of one image by digest against the install's key (see the package's docstring): the
manifest, a cosign signature naming its digest, every blob; a verdict that verified is kept for the
process's life, a refusal looked at again next time."""

from __future__ import annotations

import base64
import threading
from collections.abc import Sequence
from typing import Any

import urllib3
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

from assay_operator import image_mirrors
from assay_operator.image_verification.repository_reads import _read, _Session
from assay_operator.image_verification.verdict import (
    DIGEST_MISMATCH,
    SIGNATURE_INVALID,
    UNREADABLE,
    UNSIGNED,
    VERIFIED,
    Reference,
    Verdict,
    _Refused,
)
from assay_operator.oci_documents import (
    ImageManifest,
    SignatureManifest,
    SimpleSigningPayload,
)
from assay_operator.registry_api import MANIFEST_TYPES, sha256_digest

SIMPLE_SIGNING = "application/vnd.dev.cosign.simplesigning.v1+json"
SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature"
SIGNATURE_TYPE = "cosign container image signature"
MAX_PAYLOAD = 64 * 1024


def load_public_key(pem: bytes) -> Any:
    key = serialization.load_pem_public_key(pem)
    if not isinstance(key, ec.EllipticCurvePublicKey | rsa.RSAPublicKey | ed25519.Ed25519PublicKey):
        raise ValueError(f"unsupported public key type {type(key).__name__} (ECDSA, RSA or Ed25519)")
    return key


def signature_verifies(key: Any, signature: bytes, payload: bytes) -> bool:
    try:
        if isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(signature, payload, ec.ECDSA(hashes.SHA256()))
        elif isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, payload, padding.PKCS1v15(), hashes.SHA256())
        else:
            key.verify(signature, payload)
    except InvalidSignature:
        return False
    return True


class ImageVerifier:
    """One install's verification: its public key (PEM), the CA file for registries with a private CA
    (None: the system's trust store) and the digest mirrors the cluster's nodes pull through."""

    def __init__(
        self,
        public_key_pem: bytes,
        ca_file: str | None = None,
        timeout: float = 60.0,
        mirrors: Sequence[image_mirrors.DigestMirror] = (),
    ) -> None:
        self.key = load_public_key(public_key_pem)
        self.mirrors = tuple(mirrors)
        self.ca_file = ca_file
        self.timeout = timeout
        self._verified: dict[str, Verdict] = {}
        self._lock = threading.Lock()

    def verify(self, reference: str) -> Verdict:
        if (known := self._verified.get(reference)) is not None:
            return known
        with self._lock:  # one check of a digest at a time: a burst of Evaluations waits for the first
            if (known := self._verified.get(reference)) is not None:
                return known
            verdict = self._first_verified(reference)
            if verdict.verified:
                self._verified[reference] = verdict
            return verdict

    def _first_verified(self, reference: str) -> Verdict:
        """The image verified at the first place it can be fetched from that verifies (its digest mirrors in
        order, then the source unless the mirrors say never); else the first refusal, else unreadable."""
        try:
            Reference.parse(reference)
        except _Refused as refused:
            return refused.verdict
        refusals: list[Verdict] = []
        for candidate in image_mirrors.candidates(reference, self.mirrors):
            try:
                return self._verify(Reference.parse(candidate), candidate)
            except _Refused as refused:
                refusals.append(refused.verdict)
        final = [v for v in refusals if v.final]
        if final:
            return final[0]
        return Verdict(UNREADABLE, "; ".join(v.message for v in refusals))

    def _pool(self) -> urllib3.PoolManager:
        """Redirects followed (registries send blobs from storage elsewhere); the CA file, else the
        system's trust store (certifi's when the system has none)."""
        return urllib3.PoolManager(
            cert_reqs="CERT_REQUIRED",
            ca_certs=self.ca_file,
            timeout=urllib3.Timeout(total=None, connect=self.timeout, read=self.timeout),
            retries=urllib3.Retry(total=3, redirect=5, raise_on_status=False),
        )

    def _verify(self, ref: Reference, reference: str) -> Verdict:
        with self._pool() as pool:
            session = _Session(pool, ref)
            manifest_bytes = session.manifest(ref.digest) or b""
            got = sha256_digest(manifest_bytes)
            if got != ref.digest:
                raise _Refused(DIGEST_MISMATCH, f"{reference}: the registry's manifest hashes to {got}")
            manifest = _read(ImageManifest, manifest_bytes, f"{reference}: manifest")
            if manifest.media_type not in MANIFEST_TYPES:
                raise _Refused(
                    DIGEST_MISMATCH, f"{reference}: not an image manifest ({manifest.media_type!r})"
                )
            signer = self._signature(session, ref, reference)
            blobs = [manifest.config, *manifest.layers]
            for index, descriptor in enumerate(blobs):
                what = "config" if index == 0 else f"layer {index}"
                session.check_blob(descriptor, f"{reference}: {what}")
        return Verdict(VERIFIED, f"{reference}: signed ({signer}); manifest and {len(blobs)} blobs verified")

    def _signature(self, session: _Session, ref: Reference, reference: str) -> str:
        tag = ref.digest.replace(":", "-") + ".sig"
        found = session.manifest(tag, missing_ok=True)
        if found is None:
            raise _Refused(UNSIGNED, f"{reference}: no cosign signature ({ref.repository}:{tag} not found)")
        signatures = _read(SignatureManifest, found, f"{reference}: signature manifest {tag}")
        layers = [layer for layer in signatures.layers if layer.media_type == SIMPLE_SIGNING]
        problems: list[str] = []
        for layer in layers:
            encoded = layer.annotations.get(SIGNATURE_ANNOTATION, "")
            try:
                signature = base64.b64decode(encoded, validate=True)
            except ValueError:
                problems.append("a signature annotation that is not base64")
                continue
            payload = session.blob(layer, f"{reference}: signature payload", MAX_PAYLOAD)
            if not signature_verifies(self.key, signature, payload):
                problems.append(f"payload {layer.digest}: not signed by this key")
                continue
            critical = _read(SimpleSigningPayload, payload, f"{reference}: signature payload").critical
            signed = critical.image.docker_manifest_digest
            if critical.type != SIGNATURE_TYPE or signed != ref.digest:
                problems.append(f"payload {layer.digest}: signed for {signed!r}, not this digest")
                continue
            return f"by the install's key, as {critical.identity.docker_reference}"
        if not layers:
            raise _Refused(UNSIGNED, f"{reference}: {tag} holds no simple-signing signature")
        raise _Refused(
            SIGNATURE_INVALID, f"{reference}: no valid signature by the install's key: {'; '.join(problems)}"
        )
