"""Pulling an image from a registry by digest, as a node's runtime does, verifying what it fetched: the
manifest's bytes must hash to the digest the reference names, and the config and every layer to the digests
the manifest lists. Verified blobs are kept content-addressed under the kubelet's work folder (fetched once
per node), laid out as an OCI image layout and imported into the local containers/storage (`buildah pull
oci:...`), where the runtime checks root filesystems out as for a locally built image (layers the store
holds already are reused, not copied).

Only references by digest are pulled (a tag could name other content tomorrow), over HTTPS with the CA the
node was given for that registry; anonymous access, and registries' anonymous bearer-token challenge. Digest
mirrors are the node's mirror list's (mirrors.py): it tries each candidate reference through this puller.
"""

from __future__ import annotations

import hashlib
import json
import os
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from assay_dev.images import buildah
from assay_operator.registry_api import CHUNK, DIGEST, MANIFEST_TYPES, RepositoryAuth, sha256_digest

from .podspec import ImageSpec

Obj = dict[str, Any]


class PullError(Exception):
    """The image could not be pulled or did not verify; the pod shows ErrImagePull with this message."""


@dataclass(frozen=True)
class RegistryReference:
    host: str
    repository: str
    digest: str

    @classmethod
    def parse(cls, reference: str) -> RegistryReference:
        name, at, digest = reference.partition("@")
        host, _, repository = name.partition("/")
        if not at or not DIGEST.fullmatch(digest):
            raise PullError(f"{reference!r}: a registry image is pulled by digest only (NAME@sha256:...)")
        if ":" in repository.rsplit("/", 1)[-1]:
            repository = repository.rsplit(":", 1)[0]  # name:tag@digest: the digest decides
        if not repository:
            raise PullError(f"{reference!r}: no repository after the registry host")
        return cls(host=host, repository=repository, digest=digest)

    @property
    def name(self) -> str:
        return f"{self.host}/{self.repository}"


@dataclass(frozen=True)
class Fetched:
    """A verified image: its manifest digest, its config's digest (the image ID) and its parsed config."""

    reference: RegistryReference
    config_digest: str
    config: Obj

    @property
    def spec(self) -> ImageSpec:
        config: Obj = self.config.get("config") or {}
        env = dict(item.partition("=")[::2] for item in config.get("Env") or [])
        return ImageSpec(
            entrypoint=tuple(config.get("Entrypoint") or ()),
            cmd=tuple(config.get("Cmd") or ()),
            env=env,
            workdir=str(config.get("WorkingDir") or "/"),
            user=str(config.get("User") or ""),
        )


class RegistryPuller:
    """One node's pulls: `registries` maps each registry host it may pull from to the CA file that verifies
    that registry's certificate; blobs are kept under `store`."""

    def __init__(self, registries: dict[str, Path], store: Path) -> None:
        self.registries = registries
        self.store = store
        self._lock = threading.Lock()

    def serves(self, reference: str) -> bool:
        # One registry per reference: a mirror is another reference, which the node's mirror list
        # (mirrors.py) tries through this puller in turn.
        return reference.partition("/")[0] in self.registries

    def pull(self, reference: str) -> Fetched:
        """The image from the registry the reference names, verified: PullError, or httpx's own error when
        the registry cannot be reached (the node's pull names that case)."""
        RegistryReference.parse(reference)
        if not self.serves(reference):
            raise PullError(f"{reference}: no registry of this node serves it")
        return self._pull(reference)

    def _pull(self, reference: str) -> Fetched:
        ref = RegistryReference.parse(reference)
        with self._lock, _client(self.registries[ref.host]) as client:
            session = _Session(client, ref)
            manifest_bytes = session.get(f"manifests/{ref.digest}", accept=", ".join(MANIFEST_TYPES))
            _check_digest(manifest_bytes, ref.digest, "the manifest")
            manifest: Obj = json.loads(manifest_bytes)
            if manifest.get("mediaType", MANIFEST_TYPES[0]) not in MANIFEST_TYPES:
                raise PullError(f"not an image manifest ({manifest.get('mediaType')!r})")
            config_desc: Obj = manifest.get("config") or {}
            layers: list[Obj] = manifest.get("layers") or []
            for descriptor in (config_desc, *layers):
                self._fetch_blob(session, descriptor)
            config = json.loads(self._blob_path(str(config_desc["digest"])).read_bytes())
            self._import(ref, manifest_bytes)
        return Fetched(reference=ref, config_digest=str(config_desc["digest"]), config=config)

    def _blob_path(self, digest: str) -> Path:
        return self.store / "blobs" / "sha256" / digest.removeprefix("sha256:")

    def _fetch_blob(self, session: _Session, descriptor: Obj) -> None:
        digest, size = str(descriptor.get("digest")), int(descriptor.get("size", -1))
        if not DIGEST.fullmatch(digest):
            raise PullError(f"blob digest {digest!r} is not sha256")
        target = self._blob_path(digest)
        if target.exists():
            return  # verified when written (below)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.partial")
        hasher, written = hashlib.sha256(), 0
        with session.stream(f"blobs/{digest}") as response, partial.open("wb") as out:
            for chunk in response.iter_bytes(CHUNK):
                written += len(chunk)
                if written > size >= 0:
                    break
                hasher.update(chunk)
                out.write(chunk)
        got = f"sha256:{hasher.hexdigest()}"
        if got != digest or written != size:
            partial.unlink()
            raise PullError(
                f"blob {digest} does not verify: the registry sent {written} bytes hashing to {got} (the "
                f"manifest lists {size} bytes)"
            )
        partial.rename(target)

    def _import(self, ref: RegistryReference, manifest_bytes: bytes) -> None:
        """An OCI layout of the one image (blobs linked from the store) imported into containers/storage."""
        layout = self.store / "layouts" / ref.digest.removeprefix("sha256:")
        if not layout.exists():
            staging = layout.with_name(f".{layout.name}.partial")
            blobs = staging / "blobs" / "sha256"
            blobs.mkdir(parents=True, exist_ok=True)
            manifest: Obj = json.loads(manifest_bytes)
            for descriptor in (manifest["config"], *manifest.get("layers", [])):
                name = str(descriptor["digest"]).removeprefix("sha256:")
                if not (blobs / name).exists():
                    os.link(self._blob_path(str(descriptor["digest"])), blobs / name)
            (blobs / ref.digest.removeprefix("sha256:")).write_bytes(manifest_bytes)
            media_type = manifest.get("mediaType", MANIFEST_TYPES[0])
            index = {
                "schemaVersion": 2,
                "manifests": [{"mediaType": media_type, "digest": ref.digest, "size": len(manifest_bytes)}],
            }
            (staging / "index.json").write_text(json.dumps(index))
            (staging / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
            staging.rename(layout)
        # buildah names an image pulled from `oci:PATH` "localhost/PATH", which must be a valid image
        # reference: a random temporary folder such as /tmp/assay-cp-smr0x5c_ is not (no component may end
        # in "_"), and the pull failed. From the layouts folder the name is the digest's hex, always valid.
        buildah.run(["pull", "--quiet", f"oci:{layout.name}"], timeout=600, cwd=layout.parent)


def _check_digest(data: bytes, digest: str, what: str) -> None:
    got = sha256_digest(data)
    if got != digest:
        raise PullError(f"{what} hashes to {got}, not the digest asked for ({digest})")


def _client(ca: Path) -> httpx.Client:
    context = ssl.create_default_context(cafile=str(ca))
    return httpx.Client(verify=context, timeout=httpx.Timeout(60.0), follow_redirects=True)


class _Session(RepositoryAuth):
    """Requests to one repository, answering an anonymous bearer-token challenge once."""

    def __init__(self, client: httpx.Client, ref: RegistryReference) -> None:
        super().__init__(ref.host, ref.repository)
        self.client = client
        self.ref = ref

    def get(self, path: str, *, accept: str | None = None) -> bytes:
        response = self.client.get(self.url(path), headers=self.headers(accept))
        if response.status_code == 401 and self._answer(response):
            response = self.client.get(self.url(path), headers=self.headers(accept))
        if response.status_code != 200:
            raise PullError(f"GET {path}: HTTP {response.status_code} {response.text[:120]}")
        return response.content

    def stream(self, path: str) -> Any:
        return _Stream(self, path)

    def _answer(self, response: httpx.Response) -> bool:
        request = self.token_request(response.headers.get("WWW-Authenticate", ""))
        if request is None:
            return False
        realm, params = request
        answer = self.client.get(realm, params=params)
        return answer.status_code == 200 and self.take_token(answer.content)


class _Stream:
    def __init__(self, session: _Session, path: str) -> None:
        self.session = session
        self.path = path
        self._context: Any = None

    def __enter__(self) -> httpx.Response:
        session = self.session
        self._context = session.client.stream("GET", session.url(self.path), headers=session.headers())
        response: httpx.Response = self._context.__enter__()
        if response.status_code != 200:
            response.read()
            self._context.__exit__(None, None, None)
            raise PullError(f"GET {self.path}: HTTP {response.status_code}")
        return response

    def __exit__(self, *exc: object) -> None:
        self._context.__exit__(*exc)
