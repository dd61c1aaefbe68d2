"""Digest mirrors in the shape of OpenShift's ImageDigestMirrorSet (config.openshift.io/v1,
`spec.imageDigestMirrors`): an image named by digest under `source` may be fetched from each of `mirrors` in
turn, then from the source itself unless `mirrorSourcePolicy: NeverContactSource`. As in CRI-O's
registries.conf, the most specific source that matches the image's name (the name itself, or a prefix of
it ending at a `/`) decides; a digest names the same content wherever it is fetched, so every candidate is
verified the same way.

The operator reads them (ASSAY_IMAGE_DIGEST_MIRRORS, the chart's imageVerification.digestMirrors) to verify
the runner image where a disconnected cluster's nodes pull it; the local kubelet honours the same list."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel


class DigestMirror(BaseModel):
    """One entry of an ImageDigestMirrorSet's spec.imageDigestMirrors."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)

    source: str = Field(min_length=1, pattern=r"^[^@\s]+$")
    mirrors: tuple[str, ...] = ()
    mirror_source_policy: Literal["AllowContactingSource", "NeverContactSource"] = "AllowContactingSource"

    def matches(self, name: str) -> bool:
        return name == self.source or name.startswith(self.source.rstrip("/") + "/")


MIRRORS = TypeAdapter(tuple[DigestMirror, ...])


def parse(text: str) -> tuple[DigestMirror, ...]:
    """A JSON list of imageDigestMirrors entries, or a whole ImageDigestMirrorSet object."""
    loaded = json.loads(text)
    if isinstance(loaded, dict):
        loaded = (loaded.get("spec") or {}).get("imageDigestMirrors") or []
    return MIRRORS.validate_python(loaded)


def candidates(reference: str, mirrors: Sequence[DigestMirror]) -> list[str]:
    """Where to fetch `reference` (NAME@sha256:...), in order. A reference not by digest is not mirrored
    (ImageDigestMirrorSet applies to digests only)."""
    name, at, digest = reference.partition("@")
    if not at:
        return [reference]
    matching = [m for m in mirrors if m.matches(name)]
    if not matching:
        return [reference]
    chosen = max(matching, key=lambda m: len(m.source))
    rest = name[len(chosen.source.rstrip("/")) :]
    found = [f"{mirror.rstrip('/')}{rest}@{digest}" for mirror in chosen.mirrors]
    if chosen.mirror_source_policy == "AllowContactingSource":
        found.append(reference)
    return found
