"""The tests' images in a registry: pushed by digest, signed with a cosign key (or by another key, or not at
all), or with one byte of one layer changed where the registry stores it. Shared by tests/registry and
tests/operator_cluster."""

from __future__ import annotations

import json
import ssl
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay_dev.servers.registry import Registry

from . import push, signing
from .derived import derived_image

MANIFEST_ACCEPT = (
    "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json"
)


@dataclass(frozen=True)
class KeyPair:
    private: Path
    public: Path


def key_pair(folder: Path) -> KeyPair:
    private, public = signing.generate_key_pair(folder)
    return KeyPair(private, public)


def manifest(registry: Registry, reference: str) -> dict[str, Any]:
    name, _, digest = reference.partition("@")
    repository = name.partition("/")[2]
    request = urllib.request.Request(
        f"{registry.url}/v2/{repository}/manifests/{digest}", headers={"Accept": MANIFEST_ACCEPT}
    )
    context = ssl.create_default_context(cafile=str(registry.ca))
    with urllib.request.urlopen(request, context=context, timeout=60) as response:
        loaded: dict[str, Any] = json.loads(response.read())
    return loaded


def push_signed(registry: Registry, source: str, repository: str, key: KeyPair | None) -> str:
    """`source` pushed to `registry/repository`, signed by `key` when given."""
    reference, _ = push.push_image(source, f"{registry.host}/{repository}", ca=registry.ca)
    if key is not None:
        signing.sign(reference, key.private, ca=registry.ca)
    return reference


def push_tampered(registry: Registry, base: str, repository: str, key: KeyPair) -> str:
    """`base` plus a layer of its own (one small file), pushed and signed; then one byte of that layer
    changed on the registry's disk. The manifest and the signature still name the original layer."""
    unique = derived_image(
        base, "localhost/assay-test/tampered", {"/opt/assay-tampered": (b"x" * 4096, 0o644)}
    )
    reference = push_signed(registry, unique, repository, key)
    layer = manifest(registry, reference)["layers"][-1]
    stored = registry.blob_path(str(layer["digest"]))
    data = bytearray(stored.read_bytes())
    data[len(data) // 2] ^= 0x01
    stored.write_bytes(bytes(data))
    return reference
