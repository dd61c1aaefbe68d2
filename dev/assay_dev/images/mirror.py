"""Mirroring an image by digest to a second registry, byte for byte (as `oc mirror` or `skopeo copy
--all --preserve-digests` do): the manifest and every blob it lists, each verified against its digest on the
way, and the image's cosign signature and attestations (the `sha256-<hex>.sig` / `.att` tags), so the same
digest, the same signature and the same verification hold at the mirror. For the disconnected-install test:
everything the cluster runs, copied to a registry of its own, the first one then stopped."""

from __future__ import annotations

import hashlib
import json
import ssl
import tempfile
from pathlib import Path
from typing import Any

import httpx

Obj = dict[str, Any]
ACCEPT = ", ".join(
    (
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    )
)
COSIGN_SUFFIXES = (".sig", ".att")


class MirrorError(RuntimeError):
    """A manifest or blob could not be read, did not verify, or could not be written."""


def _client(ca: Path) -> httpx.Client:
    return httpx.Client(verify=ssl.create_default_context(cafile=str(ca)), timeout=120.0)


def _split(reference: str) -> tuple[str, str, str]:
    name, _, digest = reference.partition("@")
    host, _, repository = name.partition("/")
    return host, repository, digest


class _Copier:
    def __init__(
        self, source: httpx.Client, target: httpx.Client, src: tuple[str, str], dst: tuple[str, str]
    ):
        self.source, self.target = source, target
        self.src_host, self.src_repo = src
        self.dst_host, self.dst_repo = dst

    def manifest(self, reference: str) -> tuple[bytes, str] | None:
        url = f"https://{self.src_host}/v2/{self.src_repo}/manifests/{reference}"
        response = self.source.get(url, headers={"Accept": ACCEPT})
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise MirrorError(f"{url}: HTTP {response.status_code}")
        media_type = response.headers.get("Content-Type", "application/vnd.oci.image.manifest.v1+json")
        return response.content, media_type

    def blob(self, descriptor: Obj) -> None:
        digest = str(descriptor["digest"])
        exists = self.target.head(f"https://{self.dst_host}/v2/{self.dst_repo}/blobs/{digest}")
        if exists.status_code == 200:
            return
        with tempfile.TemporaryFile() as spool:
            hasher = hashlib.sha256()
            url = f"https://{self.src_host}/v2/{self.src_repo}/blobs/{digest}"
            with self.source.stream("GET", url, follow_redirects=True) as response:
                if response.status_code != 200:
                    raise MirrorError(f"{url}: HTTP {response.status_code}")
                for chunk in response.iter_bytes(1 << 20):
                    hasher.update(chunk)
                    spool.write(chunk)
            if f"sha256:{hasher.hexdigest()}" != digest:
                raise MirrorError(f"{url}: does not hash to its digest")
            spool.seek(0)
            started = self.target.post(f"https://{self.dst_host}/v2/{self.dst_repo}/blobs/uploads/")
            if started.status_code != 202:
                raise MirrorError(f"upload to {self.dst_host}/{self.dst_repo}: HTTP {started.status_code}")
            location = httpx.URL(f"https://{self.dst_host}").join(started.headers["Location"])
            done = self.target.put(
                location.copy_merge_params({"digest": digest}),
                content=spool.read(),
                headers={"Content-Type": "application/octet-stream"},
            )
            if done.status_code != 201:
                raise MirrorError(f"upload of {digest}: HTTP {done.status_code} {done.text[:200]}")

    def put_manifest(self, reference: str, body: bytes, media_type: str) -> None:
        url = f"https://{self.dst_host}/v2/{self.dst_repo}/manifests/{reference}"
        response = self.target.put(url, content=body, headers={"Content-Type": media_type})
        if response.status_code != 201:
            raise MirrorError(f"{url}: HTTP {response.status_code} {response.text[:200]}")

    def copy(self, reference: str, *, required: bool) -> bool:
        found = self.manifest(reference)
        if found is None:
            if required:
                raise MirrorError(f"{self.src_host}/{self.src_repo}: no manifest {reference}")
            return False
        body, media_type = found
        if reference.startswith("sha256:") and f"sha256:{hashlib.sha256(body).hexdigest()}" != reference:
            raise MirrorError(f"{self.src_host}/{self.src_repo}@{reference}: manifest does not hash to it")
        manifest: Obj = json.loads(body)
        for descriptor in (manifest["config"], *manifest.get("layers", [])):
            self.blob(descriptor)
        self.put_manifest(reference, body, media_type)
        return True


def mirror_image(reference: str, target_repository: str, *, source_ca: Path, target_ca: Path) -> str:
    """Copy `reference` (HOST/REPO@sha256:...) and its cosign tags to `target_repository` (HOST/REPO); the
    mirrored reference by digest (the same digest)."""
    src_host, src_repo, digest = _split(reference)
    dst_host, _, dst_repo = target_repository.partition("/")
    with _client(source_ca) as source, _client(target_ca) as target:
        copier = _Copier(source, target, (src_host, src_repo), (dst_host, dst_repo))
        copier.copy(digest, required=True)
        for suffix in COSIGN_SUFFIXES:
            copier.copy(digest.replace(":", "-") + suffix, required=False)
    return f"{target_repository}@{digest}"
