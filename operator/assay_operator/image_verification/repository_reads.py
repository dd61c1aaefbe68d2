"""Reads of one repository of a registry, its bytes not trusted: manifests (bounded in size), blobs checked
against their digests (a layer streamed and hashed), the anonymous bearer-token challenge answered once, and
every failure a refusal naming it."""

from __future__ import annotations

import hashlib
from typing import TypeVar

import urllib3
from pydantic import BaseModel, ValidationError
from urllib3 import BaseHTTPResponse

from assay_operator.image_verification.verdict import DIGEST_MISMATCH, UNREADABLE, Reference, _Refused
from assay_operator.oci_documents import (
    Descriptor,
)
from assay_operator.registry_api import CHUNK, MANIFEST_TYPES, RepositoryAuth, sha256_digest

Document = TypeVar("Document", bound=BaseModel)


MAX_MANIFEST = 4 * 1024 * 1024


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
