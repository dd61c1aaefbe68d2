"""One runner image in a registry four ways, for the image verification tests (the registry's,
tests/registry/test_image_signing.py, and the cluster's, tests/operator_cluster/test_image_verification.py):
signed by the install's key, unsigned, signed by another key, and signed with a byte of a layer changed in
the registry afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assay_dev.images import registry_images
from assay_dev.images.registry_images import KeyPair
from assay_dev.servers.registry import Registry


@dataclass(frozen=True)
class SignedImages:
    registry: Registry
    key: KeyPair
    other_key: KeyPair
    signed: str
    unsigned: str
    other_signer: str
    tampered: str

    def verifying(self) -> dict[str, str]:
        """The operator's settings for an install that verifies (the chart's imageVerification)."""
        return {
            "ASSAY_IMAGE_VERIFICATION_KEY_FILE": str(self.key.public),
            "ASSAY_REGISTRY_CA_FILE": str(self.registry.ca),
        }


def push_signed_images(registry: Registry, image: str, work: Path, signed_repository: str) -> SignedImages:
    """`image` pushed to `registry` four ways (the signed one as `signed_repository`), with key pairs made
    under `work`."""
    key = registry_images.key_pair(work / "key")
    other = registry_images.key_pair(work / "other-key")
    return SignedImages(
        registry=registry,
        key=key,
        other_key=other,
        signed=registry_images.push_signed(registry, image, signed_repository, key),
        unsigned=registry_images.push_signed(registry, image, "unsigned/assay-runner", None),
        other_signer=registry_images.push_signed(registry, image, "other/assay-runner", other),
        tampered=registry_images.push_tampered(registry, image, "tampered/assay-runner", key),
    )
