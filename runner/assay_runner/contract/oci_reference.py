"""An OCI suite artifact's reference, parsed by one rule for both sides: the runner (`assay pull`, an
`oci://` suite) and the operator (an Evaluation's `suite.oci`, refused at admission by the same words).
Pure: no registry client here (io/suite_artifact.py talks to registries)."""

from __future__ import annotations

import re
from dataclasses import dataclass

OCI_SCHEME = "oci://"
REGISTRY_CA_ENV = "ASSAY_REGISTRY_CA"
"""A CA bundle (PEM) to verify a private registry's certificate with, when `--registry-ca` is not given."""
DIGEST_PATTERN = r"sha256:[0-9a-f]{64}"
PINNED_PATTERN = rf"@{DIGEST_PATTERN}$"
"""What a reference must end with to name its content (the CRD's CEL rule checks it too)."""
NOT_PINNED = "a suite artifact is named by digest: add @sha256:... (a tag could name other content tomorrow)"

_DIGEST = re.compile(rf"^{DIGEST_PATTERN}$")
_REPOSITORY = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*")
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")


@dataclass(frozen=True)
class Reference:
    """REGISTRY/REPOSITORY[:TAG][@sha256:HEX], split."""

    registry: str
    repository: str
    tag: str | None
    digest: str | None

    @property
    def name(self) -> str:
        return f"{self.registry}/{self.repository}"

    def pinned(self, digest: str) -> str:
        return f"{self.name}@{digest}"


def split_reference(text: str) -> Reference:
    """A registry reference: REGISTRY[:PORT]/REPOSITORY, then `:TAG`, `@sha256:...`, or both (`oci://` may
    lead). ValueError saying what is wrong otherwise."""
    rest = text.removeprefix(OCI_SCHEME)
    digest: str | None = None
    if "@" in rest:
        rest, digest = rest.split("@", 1)
        if not _DIGEST.fullmatch(digest):
            raise ValueError(f"digest {digest!r} is not sha256: and 64 lower-case hex digits")
    registry, slash, path = rest.partition("/")
    if not slash or not path or not ("." in registry or ":" in registry or registry == "localhost"):
        raise ValueError("is not REGISTRY/REPOSITORY[:TAG][@sha256:...] (the registry host first)")
    tag: str | None = None
    last = path.rsplit("/", 1)[-1]
    if ":" in last:
        path, tag = path.rsplit(":", 1)
    if not _REPOSITORY.fullmatch(path):
        raise ValueError(f"repository {path!r} is not a valid OCI repository name (lower case)")
    if tag is not None and not _TAG.fullmatch(tag):
        raise ValueError(f"tag {tag!r} is not a valid OCI tag")
    return Reference(registry, path, tag, digest)


def pinned_reference_problem(text: str) -> str | None:
    """What is wrong with `text` as a suite artifact named by digest, else None."""
    try:
        ref = split_reference(text)
    except ValueError as exc:
        return f"{text!r} {exc}" if str(exc).startswith("is ") else f"{text!r}: {exc}"
    return None if ref.digest is not None else f"{text!r}: {NOT_PINNED}"
