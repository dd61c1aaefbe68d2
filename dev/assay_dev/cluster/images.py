"""A container's image as the node sees it: pulled by digest from a registry the node was given
(registry_pull.py: manifest and blobs verified), or else looked up in the local containers/storage (where
`make images` puts Assay's images), with the parts of its OCI config a container needs, plus pull faults for
tests.

An image that is in neither is ErrImagePull, as a failed pull is on a node; so is one whose manifest or a
layer does not hash to its digest, and one whose registry cannot be reached.

A reference by digest may be pulled from a mirror instead (mirrors.py: the node's ImageDigestMirrorSet
list, as OpenShift's nodes honour it): the candidates are tried in order, and the image keeps the name the
pod asked for, as CRI-O reports a mirrored image.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

import httpx

from assay_dev.images import buildah

from .mirrors import DigestMirror, MirrorPullError, pull_with_mirrors
from .podspec import ImageSpec
from .registry_pull import PullError, RegistryPuller

log = logging.getLogger(__name__)


class UnknownImage(Exception):
    """The image is not in the local store, or its pull from a registry failed or did not verify; kubelet
    would show ErrImagePull."""


@dataclass(frozen=True)
class PullFault:
    """A slow or stuck pull, for tests: the pod stays ContainerCreating for `delay` seconds, or until it is
    deleted when `never`."""

    delay: float = 0.0
    never: bool = False


@dataclass(frozen=True)
class PulledImage:
    reference: str
    id: str
    digest: str
    repository: str
    spec: ImageSpec

    @property
    def image_id(self) -> str:
        """What containerStatuses[].imageID reports: the repository at its manifest digest."""
        return f"{self.repository}@{self.digest}"


_PULLED: dict[str, PulledImage] = {}
"""Images pulled by digest: what a digest names cannot change (kubelet's IfNotPresent, for every pod)."""


def pull(
    reference: str, puller: RegistryPuller | None = None, mirror_sets: Sequence[DigestMirror] = ()
) -> PulledImage:
    if (known := _PULLED.get(reference)) is not None:
        return known
    if mirror_sets:
        try:
            source, pulled = pull_with_mirrors(reference, mirror_sets, lambda c: _pull_one(c, puller))
        except MirrorPullError as error:
            raise UnknownImage(str(error)) from error
        if source != reference:
            log.info("local kubelet: %s pulled from the mirror %s", reference, source)
            pulled = replace(pulled, reference=reference, repository=_repository(reference))
    else:
        pulled = _pull_one(reference, puller)
    if "@sha256:" in reference:
        _PULLED[reference] = pulled
    return pulled


def _pull_one(reference: str, puller: RegistryPuller | None) -> PulledImage:
    if puller is not None and puller.serves(reference):
        return _from_registry(reference, puller)
    return _inspect(reference)


def _repository(reference: str) -> str:
    repository = reference.split("@", 1)[0]
    if ":" in repository.rsplit("/", 1)[-1]:
        repository = repository.rsplit(":", 1)[0]
    return repository


def _inspect(reference: str) -> PulledImage:
    try:
        info = buildah.inspect_image(reference)
    except buildah.ImageNotFound as error:
        raise UnknownImage(
            f"image {reference!r} is not in the local store (`make images` builds Assay's images): {error}"
        ) from error
    repository = _repository(reference)
    spec = ImageSpec(
        entrypoint=info.entrypoint, cmd=info.cmd, env=info.env, workdir=info.workdir, user=info.user
    )
    return PulledImage(reference=reference, id=info.id, digest=info.digest, repository=repository, spec=spec)


def _from_registry(reference: str, puller: RegistryPuller) -> PulledImage:
    try:
        fetched = puller.pull(reference)
    except (PullError, buildah.BuildahError) as error:
        raise UnknownImage(f"pulling {reference}: {error}") from error
    except httpx.TransportError as error:  # a registry that is down, unreachable or drops the connection
        raise UnknownImage(f"pulling {reference}: the registry cannot be reached: {error!r}") from error
    return PulledImage(
        reference=reference,
        id=fetched.config_digest.removeprefix("sha256:"),
        digest=fetched.reference.digest,
        repository=fetched.reference.name,
        spec=fetched.spec,
    )
