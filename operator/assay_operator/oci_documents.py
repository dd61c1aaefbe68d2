"""The registry documents the image verifier reads, typed: an image manifest and its descriptors, cosign's
signature manifest and its simple-signing payload. Fields the verifier does not use are ignored (registries
and signers add their own); a field it does use that is missing or of the wrong type makes the document
unreadable, which the verifier reports as a refusal rather than an error of its own."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from assay_operator.registry_api import DIGEST, MANIFEST_TYPES


class _Document(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, alias_generator=to_camel, populate_by_name=True)


class Descriptor(_Document):
    """A blob as a manifest lists it: what the registry must send for it, exactly."""

    media_type: str = ""
    digest: str = Field(pattern=DIGEST.pattern)
    size: int = Field(ge=0, strict=True)
    annotations: dict[str, str] = {}


class ImageManifest(_Document):
    media_type: str = MANIFEST_TYPES[0]
    config: Descriptor
    layers: tuple[Descriptor, ...] = ()


class SignatureManifest(_Document):
    """cosign's `sha256-<hex>.sig` tag: one layer per signature."""

    layers: tuple[Descriptor, ...] = ()


class SignedImage(_Document):
    docker_manifest_digest: str = Field(alias="docker-manifest-digest")


class SignedIdentity(_Document):
    docker_reference: str = Field("", alias="docker-reference")


class Critical(_Document):
    type: str
    image: SignedImage
    identity: SignedIdentity = SignedIdentity()


class SimpleSigningPayload(_Document):
    """What a cosign signature signs: the image's manifest digest, under `critical`."""

    critical: Critical
