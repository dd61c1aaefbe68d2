"""A container's image as the node sees it: pulled by digest from a registry the node was given
(registry_pull.py: manifest and blobs verified), or else looked up in the local containers/storage (where
`make images` puts Assay's images), with the parts of its OCI config a container needs, plus pull faults for
tests.

An image that is in neither is ErrImagePull, as a failed pull is on a node; so is one whose manifest or a
layer does not hash to its digest.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay_dev.images import buildah

from .podspec import ImageSpec
from .registry_pull import PullError, RegistryPuller


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


def pull(reference: str, puller: RegistryPuller | None = None) -> PulledImage:
    if (known := _PULLED.get(reference)) is not None:
        return known
    if puller is not None and puller.serves(reference):
        pulled = _from_registry(reference, puller)
    else:
        pulled = _inspect(reference)
    if "@sha256:" in reference:
        _PULLED[reference] = pulled
    return pulled


def _inspect(reference: str) -> PulledImage:
    try:
        info = buildah.inspect_image(reference)
    except buildah.ImageNotFound as error:
        raise UnknownImage(
            f"image {reference!r} is not in the local store (`make images` builds Assay's images): {error}"
        ) from error
    repository = reference.split("@", 1)[0]
    if ":" in repository.rsplit("/", 1)[-1]:
        repository = repository.rsplit(":", 1)[0]
    spec = ImageSpec(
        entrypoint=info.entrypoint, cmd=info.cmd, env=info.env, workdir=info.workdir, user=info.user
    )
    return PulledImage(reference=reference, id=info.id, digest=info.digest, repository=repository, spec=spec)


def _from_registry(reference: str, puller: RegistryPuller) -> PulledImage:
    try:
        fetched = puller.pull(reference)
    except (PullError, buildah.BuildahError) as error:
        raise UnknownImage(f"pulling {reference}: {error}") from error
    return PulledImage(
        reference=reference,
        id=fetched.config_digest.removeprefix("sha256:"),
        digest=fetched.reference.digest,
        repository=fetched.reference.name,
        spec=fetched.spec,
    )
