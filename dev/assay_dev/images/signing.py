"""cosign (sigstore; tools/cosign/go.mod, v2.6.5, built from the Go module proxy by
scripts/build-go-tools.sh): key pairs, signatures of images and artifacts by digest, SBOM attestations, and
verification (the tests' cross-check of the operator's own verifier, assay_operator.image_verification).

Signing here is with a key pair and offline: nothing goes to a transparency log (`--tlog-upload=false`) and
verifying skips it (`--insecure-ignore-tlog`), so the key alone is the trust. Keyless signing (Fulcio
certificates, Rekor entries) needs the internet and is not done here. cosign v2 stores a signature as the
`sha256-<hex>.sig` tag of the signed repository (the simple-signing format CRI-O's `sigstoreSigned` policy
verifies too) and an attestation as `sha256-<hex>.att`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
GO_TOOLS = REPO / "scripts" / "build-go-tools.sh"
PASSWORD_VARIABLE = "COSIGN_PASSWORD"


class SigningError(RuntimeError):
    """cosign could not be built, or a cosign command failed (its output in the message)."""


def cosign_binary() -> Path:
    built = subprocess.run(
        ["bash", str(GO_TOOLS), "cosign"], capture_output=True, text=True, check=False, timeout=3600
    )
    if built.returncode != 0:
        raise SigningError(f"building cosign failed:\n{built.stderr[-3000:]}")
    return Path(built.stdout.strip().splitlines()[-1])


def _run(args: Sequence[str], *, ca: Path | None, password: str = "", cwd: Path | None = None) -> str:
    env = {**os.environ, PASSWORD_VARIABLE: password}
    if ca is not None:
        env["SSL_CERT_FILE"] = str(ca)  # Go's trust store for the registry: the private CA
    argv = [str(cosign_binary()), *args]
    result = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, check=False, timeout=600)
    if result.returncode != 0:
        raise SigningError(f"`cosign {' '.join(args)}` exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def generate_key_pair(folder: Path, password: str = "") -> tuple[Path, Path]:
    """cosign.key (encrypted with `password`, which may be empty) and cosign.pub in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    _run(["generate-key-pair"], ca=None, password=password, cwd=folder)
    return folder / "cosign.key", folder / "cosign.pub"


def sign(reference: str, key: Path, *, ca: Path | None = None, password: str = "") -> None:
    """Sign an image or artifact by digest (`repository@sha256:...`) with the key pair's private key."""
    _run(["sign", "--yes", "--tlog-upload=false", "--key", str(key), reference], ca=ca, password=password)


def attest_sbom(reference: str, sbom: Path, key: Path, *, ca: Path | None = None, password: str = "") -> None:
    """Attach the image's SPDX SBOM as a signed in-toto attestation (predicate type spdxjson)."""
    _run(
        [
            "attest",
            "--yes",
            "--tlog-upload=false",
            "--key",
            str(key),
            "--type",
            "spdxjson",
            "--predicate",
            str(sbom),
            reference,
        ],
        ca=ca,
        password=password,
    )


def verify(reference: str, public_key: Path, *, ca: Path | None = None) -> str:
    """cosign's own verification with the public key; raises SigningError when it refuses."""
    return _run(["verify", "--insecure-ignore-tlog=true", "--key", str(public_key), reference], ca=ca)


def verify_sbom(reference: str, public_key: Path, *, ca: Path | None = None) -> str:
    return _run(
        [
            "verify-attestation",
            "--insecure-ignore-tlog=true",
            "--type",
            "spdxjson",
            "--key",
            str(public_key),
            reference,
        ],
        ca=ca,
    )
