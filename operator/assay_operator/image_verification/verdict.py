"""What a verification concludes: the ImageVerified condition's reasons, the verdict (final, or the
registry unreadable: try again), the refusal that carries one, and the image reference it is about (named
by digest, or refused)."""

from __future__ import annotations

from dataclasses import dataclass

from assay_operator.registry_api import DIGEST

VERIFIED = "Verified"
NOT_BY_DIGEST = "NotByDigest"
DIGEST_MISMATCH = "DigestMismatch"
UNSIGNED = "Unsigned"
SIGNATURE_INVALID = "SignatureInvalid"
UNREADABLE = "ImageUnreadable"


@dataclass(frozen=True)
class Verdict:
    reason: str
    message: str

    @property
    def verified(self) -> bool:
        return self.reason == VERIFIED

    @property
    def final(self) -> bool:
        """False when the registry could not be read: try again later."""
        return self.reason != UNREADABLE


class _Refused(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.verdict = Verdict(reason, message)


@dataclass(frozen=True)
class Reference:
    host: str
    repository: str
    digest: str

    @classmethod
    def parse(cls, reference: str) -> Reference:
        name, at, digest = reference.partition("@")
        if not at or not DIGEST.fullmatch(digest):
            raise _Refused(NOT_BY_DIGEST, f"{reference}: not named by digest (NAME@sha256:...)")
        first, slash, rest = name.partition("/")
        if slash and ("." in first or ":" in first or first == "localhost"):
            host, repository = first, rest
        else:  # Docker Hub's short names
            host, repository = "registry-1.docker.io", name if slash else f"library/{name}"
        if ":" in repository.rsplit("/", 1)[-1]:
            repository = repository.rsplit(":", 1)[0]
        return cls(host=host, repository=repository, digest=digest)
