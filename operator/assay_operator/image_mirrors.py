"""Digest mirrors in the shape of OpenShift's ImageDigestMirrorSet (config.openshift.io/v1,
`spec.imageDigestMirrors`): an image named by digest under `source` may be fetched from each of `mirrors` in
turn, then from the source itself unless `mirrorSourcePolicy: NeverContactSource`. As in CRI-O's
registries.conf, the most specific source that matches the image's name (the name itself, or a prefix of
it ending at a `/`) decides; a digest names the same content wherever it is fetched, so every candidate is
verified the same way.

The operator reads them (ASSAY_IMAGE_DIGEST_MIRRORS, the chart's imageVerification.digestMirrors) to verify
the runner image where a disconnected cluster's nodes pull it. The local kubelet (assay_dev.cluster.mirrors)
reads the same list with its own code, as CRI-O would: tests/unit/test_mirror_rules_agree.py holds the two
readings to the same candidates."""

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
    """Where to fetch `reference` (NAME[:TAG]@sha256:...), in order, as CRI-O resolves it: a reference not
    by digest is not mirrored (ImageDigestMirrorSet applies to digests only); a tag beside the digest is
    dropped (the digest names the content); entries with the same source add their mirrors in order, and
    one NeverContactSource among them wins."""
    name, at, digest = reference.partition("@")
    if not at:
        return [reference]
    repository = _without_tag(name)
    matching = [m for m in mirrors if m.matches(repository)]
    if not matching:
        return [reference]
    source = max((m.source.rstrip("/") for m in matching), key=len)
    chosen = [m for m in matching if m.source.rstrip("/") == source]
    rest = repository[len(source) :]
    found = [f"{mirror.rstrip('/')}{rest}@{digest}" for m in chosen for mirror in m.mirrors]
    if all(m.mirror_source_policy == "AllowContactingSource" for m in chosen):
        found.append(reference)
    return list(dict.fromkeys(found))


def _without_tag(name: str) -> str:
    """NAME without its :TAG (a registry's :PORT is not a tag: it comes before the first `/`)."""
    host, slash, path = name.partition("/")
    last = path.rpartition("/")[2]
    if slash and ":" in last:
        return f"{host}/{path.rpartition(':')[0]}"
    return name
