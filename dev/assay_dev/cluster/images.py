"""A container's image as the node sees it: looked up in the local containers/storage (where `make images`
puts Assay's images), with the parts of its OCI config a container needs, plus pull faults for tests.

There is no registry: an image that is not in the store is ErrImagePull, as a failed pull is on a node.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay_dev.images import buildah

from .podspec import ImageSpec


class UnknownImage(Exception):
    """The image is not in the local store; kubelet would show ErrImagePull."""


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


def pull(reference: str) -> PulledImage:
    if (known := _PULLED.get(reference)) is not None:
        return known
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
