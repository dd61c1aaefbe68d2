"""Verifying the runner image before the operator runs it (the chart's imageVerification): the image is
named by digest; the registry's manifest hashes to that digest; a cosign signature made with the install's
key names that digest; and the config and every layer hash to the digests the manifest lists. The verdict
of a digest that verified is kept for the process's life (what a digest names cannot change); a refusal is
looked at again on the next reconcile (an image signed later passes then).

Why here, in Python: cosign's Go code cannot be imported into the operator, and a verifier binary in the
operator image would add a second program and a process per check. The signature format is small and
stable: cosign v2 stores a signature as the `sha256-<hex>.sig` tag of the signed repository, an OCI manifest
whose layers are simple-signing payloads (JSON naming the manifest digest) with the base64 signature in the
layer's `dev.cosignproject.cosign/signature` annotation — the format CRI-O's `sigstoreSigned` policy reads.
The payload is checked with `cryptography` against the public key. The tests sign with the real cosign and
cross-check every case against `cosign verify`.

Reasons (the ImageVerified condition's): Verified; NotByDigest; DigestMismatch (the manifest or a blob is not
what its digest says); Unsigned (no signature for the digest); SignatureInvalid (signatures, none by this
key for this digest); and ImageUnreadable (the registry could not be read: retried, never cached).

One module each: the verdict and its reasons (`verdict`), the reads of a repository (`repository_reads`), the
verifier (`verifier`); every name is re-exported here.
"""

from __future__ import annotations

from assay_operator.image_verification.repository_reads import MAX_MANIFEST, Document, _read, _Session
from assay_operator.image_verification.verdict import (
    DIGEST_MISMATCH,
    NOT_BY_DIGEST,
    SIGNATURE_INVALID,
    UNREADABLE,
    UNSIGNED,
    VERIFIED,
    Reference,
    Verdict,
    _Refused,
)
from assay_operator.image_verification.verifier import (
    MAX_PAYLOAD,
    SIGNATURE_ANNOTATION,
    SIGNATURE_TYPE,
    SIMPLE_SIGNING,
    ImageVerifier,
    load_public_key,
    signature_verifies,
)

__all__ = [
    "DIGEST_MISMATCH",
    "MAX_MANIFEST",
    "MAX_PAYLOAD",
    "NOT_BY_DIGEST",
    "SIGNATURE_ANNOTATION",
    "SIGNATURE_INVALID",
    "SIGNATURE_TYPE",
    "SIMPLE_SIGNING",
    "UNREADABLE",
    "UNSIGNED",
    "VERIFIED",
    "Document",
    "ImageVerifier",
    "Reference",
    "Verdict",
    "_Refused",
    "_Session",
    "_read",
    "load_public_key",
    "signature_verifies",
]
