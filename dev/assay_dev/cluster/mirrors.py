"""The node's mirror list: where an image named by digest may be pulled from besides its own registry, in the
shape of OpenShift's ImageDigestMirrorSet (config.openshift.io/v1), which OpenShift's machine-config
operator writes into every node's /etc/containers/registries.conf:

    apiVersion: config.openshift.io/v1
    kind: ImageDigestMirrorSet
    metadata: {name: assay}
    spec:
      imageDigestMirrors:
        - source: registry.example/assay          # a registry, or a repository under one
          mirrors: [mirror.internal:5000/assay]   # tried in order, first
          mirrorSourcePolicy: NeverContactSource  # or AllowContactingSource (the default)

Resolution follows containers/image (what CRI-O pulls with): only a reference by digest is redirected (a
tag is pulled from its own registry: a mirror need not hold the same tag); the most specific source that
names the reference's repository or a parent of it, on a path-component boundary, decides; the rest of
the path is kept under each mirror; the source itself is tried last unless a set says NeverContactSource.
Sets with the same source add their mirrors in file order; one NeverContactSource among them wins.
Wildcard sources (`*.example.com`) are refused here rather than half-supported.

The local kubelet reads the file at every pull, as a node does once the machine-config operator has
rolled out a new mirror set; `pull_with_mirrors` tries the candidates in order and reports every failure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

API_VERSION = "config.openshift.io/v1"
KIND = "ImageDigestMirrorSet"
ALLOW_CONTACTING_SOURCE = "AllowContactingSource"
NEVER_CONTACT_SOURCE = "NeverContactSource"
_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")
_NAME = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*$")

T = TypeVar("T")


class MirrorSetError(ValueError):
    """The mirror file is malformed: the message names the file and the entry."""


class MirrorPullError(Exception):
    """No candidate could be pulled; the message lists each one tried and why it failed."""


@dataclass(frozen=True)
class DigestMirror:
    """One source with its mirrors (sets with the same source merged)."""

    source: str
    mirrors: tuple[str, ...]
    never_contact_source: bool = False


def parse_mirror_sets(documents: Sequence[Any], where: str) -> tuple[DigestMirror, ...]:
    """ImageDigestMirrorSet objects (or a List of them) merged by source, sources in first-seen order."""
    merged: dict[str, DigestMirror] = {}
    for index, document in enumerate(_objects(documents)):
        at = f"{where}: object {index + 1}"
        if not isinstance(document, dict):
            raise MirrorSetError(f"{at}: not a mapping")
        if document.get("apiVersion") != API_VERSION or document.get("kind") != KIND:
            raise MirrorSetError(
                f"{at}: apiVersion/kind is {document.get('apiVersion')!r}/{document.get('kind')!r}, "
                f"not {API_VERSION}/{KIND}"
            )
        entries = (document.get("spec") or {}).get("imageDigestMirrors") or []
        if not isinstance(entries, list):
            raise MirrorSetError(f"{at}: spec.imageDigestMirrors is not a list")
        for position, entry in enumerate(entries):
            mirror = _entry(entry, f"{at}: spec.imageDigestMirrors[{position}]")
            known = merged.get(mirror.source)
            if known is not None:
                mirrors = known.mirrors + tuple(m for m in mirror.mirrors if m not in known.mirrors)
                never = known.never_contact_source or mirror.never_contact_source
                mirror = DigestMirror(mirror.source, mirrors, never)
            merged[mirror.source] = mirror
    return tuple(merged.values())


def load_mirror_sets(path: Path) -> tuple[DigestMirror, ...]:
    """The file's mirror sets; none when the file does not exist (a node without a mirror list)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return ()
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as error:
        raise MirrorSetError(f"{path}: not YAML: {error}") from error
    return parse_mirror_sets(documents, str(path))


def pull_candidates(reference: str, mirror_sets: Sequence[DigestMirror]) -> tuple[str, ...]:
    """The references to try, in order, for `reference`."""
    if not _DIGEST.search(reference):
        return (reference,)
    name, _, digest = reference.partition("@")
    repository = _without_tag(name)
    matching = [m for m in mirror_sets if repository == m.source or repository.startswith(m.source + "/")]
    if not matching:
        return (reference,)
    chosen = max(matching, key=lambda m: len(m.source))
    rest = repository[len(chosen.source) :]
    candidates = [f"{mirror}{rest}@{digest}" for mirror in chosen.mirrors]
    if not chosen.never_contact_source:
        candidates.append(reference)
    return tuple(dict.fromkeys(candidates))


def pull_with_mirrors(
    reference: str, mirror_sets: Sequence[DigestMirror], pull: Callable[[str], T]
) -> tuple[str, T]:
    """The first candidate `pull` succeeds on, with what it returned; every failure when none does."""
    failures: list[str] = []
    candidates = pull_candidates(reference, mirror_sets)
    for candidate in candidates:
        try:
            return candidate, pull(candidate)
        except Exception as error:  # each candidate's failure is reported; none is fatal alone
            failures.append(f"{candidate}: {error}")
    if len(candidates) == 1 and candidates[0] == reference:
        raise MirrorPullError(failures[0])
    policy = "" if reference in candidates else f" (the mirror list says {NEVER_CONTACT_SOURCE})"
    raise MirrorPullError(f"{reference}: no mirror could serve it{policy}: " + "; ".join(failures))


def _objects(documents: Sequence[Any]) -> list[Any]:
    found: list[Any] = []
    for document in documents:
        if isinstance(document, dict) and document.get("kind") == "List":
            found.extend(document.get("items") or [])
        else:
            found.append(document)
    return found


def _entry(entry: Any, at: str) -> DigestMirror:
    if not isinstance(entry, dict):
        raise MirrorSetError(f"{at}: not a mapping")
    source = entry.get("source")
    if not isinstance(source, str) or not source:
        raise MirrorSetError(f"{at}: source is missing")
    _check_name(source, f"{at}: source")
    mirrors = entry.get("mirrors") or []
    if not isinstance(mirrors, list) or not all(isinstance(m, str) for m in mirrors):
        raise MirrorSetError(f"{at}: mirrors is not a list of names")
    for mirror in mirrors:
        _check_name(mirror, f"{at}: mirror {mirror!r}")
    policy = entry.get("mirrorSourcePolicy") or ALLOW_CONTACTING_SOURCE
    if policy not in (ALLOW_CONTACTING_SOURCE, NEVER_CONTACT_SOURCE):
        raise MirrorSetError(
            f"{at}: mirrorSourcePolicy {policy!r} is not {ALLOW_CONTACTING_SOURCE} or {NEVER_CONTACT_SOURCE}"
        )
    if policy == NEVER_CONTACT_SOURCE and not mirrors:
        raise MirrorSetError(f"{at}: {NEVER_CONTACT_SOURCE} without mirrors leaves nothing to pull from")
    return DigestMirror(source, tuple(mirrors), policy == NEVER_CONTACT_SOURCE)


def _check_name(value: str, at: str) -> None:
    if value.startswith("*."):
        raise MirrorSetError(f"{at}: wildcard sources are not supported by the local kubelet")
    if not _NAME.fullmatch(value):
        raise MirrorSetError(f"{at}: {value!r} is not a registry or repository name (no tag, no digest)")


def _without_tag(name: str) -> str:
    host, slash, path = name.partition("/")
    if slash and ":" in path.rpartition("/")[2]:
        return f"{host}/{path.rpartition(':')[0]}"
    return name
