"""Verifying the runner image before the operator runs it (the chart's imageVerification): the image is
named by digest; the registry's manifest hashes to that digest; a cosign signature made with the install's
key names that digest; and the config and every layer hash to the digests the manifest lists. The verdict
of a digest that verified is kept for the process's life (what a digest names cannot change); a refusal is
looked at again on the next reconcile (an image signed later passes then).

Why here, in Python: cosign's Go code cannot be imported into the operator, and a verifier binary in the
operator image would add a second program and a process per check. The signature format is small and
stable: cosign v2 stores a signature as the `sha256-<hex>.sig` tag of the signed repository, an OCI manifest
whose layers are simple-signing payloads (JSON naming the manifest digest) with the base64 signature in the
layer's `dev.cosignproject.cosign/signature` annotation — the format CRI-O's `sigstoreSigned` policy reads.
The payload is checked with `cryptography` against the public key. The tests sign with the real cosign and
cross-check every case against `cosign verify`.

Reasons (the ImageVerified condition's): Verified; NotByDigest; DigestMismatch (the manifest or a blob is not
what its digest says); Unsigned (no signature for the digest); SignatureInvalid (signatures, none by this
key for this digest); and ImageUnreadable (the registry could not be read: retried, never cached).
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import urllib3
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from pydantic import BaseModel, ValidationError
from urllib3 import BaseHTTPResponse

from assay_operator import image_mirrors
from assay_operator.oci_documents import (
    Descriptor,
    ImageManifest,
    SignatureManifest,
    SimpleSigningPayload,
)
from assay_operator.registry_api import CHUNK, DIGEST, MANIFEST_TYPES, RepositoryAuth, sha256_digest

Document = TypeVar("Document", bound=BaseModel)

VERIFIED = "Verified"
NOT_BY_DIGEST = "NotByDigest"
DIGEST_MISMATCH = "DigestMismatch"
UNSIGNED = "Unsigned"
SIGNATURE_INVALID = "SignatureInvalid"
UNREADABLE = "ImageUnreadable"

SIMPLE_SIGNING = "application/vnd.dev.cosign.simplesigning.v1+json"
SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature"
SIGNATURE_TYPE = "cosign container image signature"
MAX_MANIFEST = 4 * 1024 * 1024
MAX_PAYLOAD = 64 * 1024


@dataclass(frozen=True)
class Verdict:
    reason: str
    message: str

    @property
    def verified(self) -> bool:
        return self.reason == VERIFIED

    @property
    def final(self) -> bool:
        """False when the registry could not be read: try again later."""
        return self.reason != UNREADABLE


class _Refused(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.verdict = Verdict(reason, message)


@dataclass(frozen=True)
class Reference:
    host: str
    repository: str
    digest: str

    @classmethod
    def parse(cls, reference: str) -> Reference:
        name, at, digest = reference.partition("@")
        if not at or not DIGEST.fullmatch(digest):
            raise _Refused(NOT_BY_DIGEST, f"{reference}: not named by digest (NAME@sha256:...)")
        first, slash, rest = name.partition("/")
        if slash and ("." in first or ":" in first or first == "localhost"):
            host, repository = first, rest
        else:  # Docker Hub's short names
            host, repository = "registry-1.docker.io", name if slash else f"library/{name}"
        if ":" in repository.rsplit("/", 1)[-1]:
            repository = repository.rsplit(":", 1)[0]
        return cls(host=host, repository=repository, digest=digest)


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


def _read(kind: type[Document], data: bytes, what: str) -> Document:
    """The document, or a refusal naming what of it is wrong (the registry's bytes are not to be trusted)."""
    try:
        return kind.model_validate_json(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'the document'}: {error['msg']}"
            for error in exc.errors(include_url=False)[:3]
        )
        raise _Refused(DIGEST_MISMATCH, f"{what}: not a readable {kind.__name__} ({problems})") from None


class _Session(RepositoryAuth):
    """Reads of one repository, answering a registry's anonymous bearer-token challenge once. urllib3 (the
    Kubernetes client's HTTP library, already in the operator image)."""

    def __init__(self, pool: urllib3.PoolManager, ref: Reference) -> None:
        super().__init__(ref.host, ref.repository)
        self.pool = pool
        self.ref = ref

    def _get(self, path: str, accept: str | None = None, *, stream: bool = False) -> BaseHTTPResponse:
        try:
            response = self.pool.request(
                "GET", self.url(path), headers=self.headers(accept), preload_content=not stream
            )
            if response.status == 401 and self._answer(response):
                response = self.pool.request(
                    "GET", self.url(path), headers=self.headers(accept), preload_content=not stream
                )
        except urllib3.exceptions.HTTPError as exc:
            raise _Refused(UNREADABLE, f"{self.ref.host}: {type(exc).__name__}: {exc}") from None
        return response

    def manifest(self, reference: str, *, missing_ok: bool = False) -> bytes | None:
        response = self._get(f"manifests/{reference}", ", ".join(MANIFEST_TYPES))
        if response.status == 404 and missing_ok:
            return None
        if response.status != 200:
            raise _Refused(
                UNREADABLE,
                f"{self.ref.host}/{self.ref.repository}: manifest {reference}: HTTP {response.status}",
            )
        if len(response.data) > MAX_MANIFEST:
            raise _Refused(DIGEST_MISMATCH, f"manifest {reference}: over {MAX_MANIFEST} bytes")
        return response.data

    def blob(self, descriptor: Descriptor, what: str, limit: int) -> bytes:
        digest, size = descriptor.digest, descriptor.size
        if size > limit:
            raise _Refused(DIGEST_MISMATCH, f"{what}: descriptor {digest!r} of {size} bytes refused")
        response = self._get(f"blobs/{digest}")
        if response.status != 200:
            raise _Refused(UNREADABLE, f"{what}: blob {digest}: HTTP {response.status}")
        if sha256_digest(response.data) != digest or len(response.data) != size:
            raise _Refused(DIGEST_MISMATCH, f"{what}: blob {digest} does not hash to its digest")
        return response.data

    def check_blob(self, descriptor: Descriptor, what: str) -> None:
        """Stream a blob and hash it (a layer can be hundreds of MB)."""
        digest, size = descriptor.digest, descriptor.size
        hasher, read = hashlib.sha256(), 0
        response = self._get(f"blobs/{digest}", stream=True)
        try:
            if response.status != 200:
                raise _Refused(UNREADABLE, f"{what}: blob {digest}: HTTP {response.status}")
            for chunk in response.stream(CHUNK):
                read += len(chunk)
                if read > size:
                    break
                hasher.update(chunk)
        except urllib3.exceptions.HTTPError as exc:
            raise _Refused(UNREADABLE, f"{what}: blob {digest}: {type(exc).__name__}: {exc}") from None
        finally:
            response.release_conn()
        got = f"sha256:{hasher.hexdigest()}"
        if got != digest or read != size:
            raise _Refused(
                DIGEST_MISMATCH, f"{what}: blob {digest}: the registry sent {read} bytes hashing to {got}"
            )

    def _answer(self, response: BaseHTTPResponse) -> bool:
        request = self.token_request(response.headers.get("WWW-Authenticate", ""))
        if request is None:
            return False
        realm, params = request
        answer = self.pool.request("GET", realm, fields=params)
        return answer.status == 200 and self.take_token(answer.data)
