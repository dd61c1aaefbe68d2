"""Pushing built images to a registry by digest (`python -m assay_dev.images push`), and signing them and
attesting their SBOMs with a cosign key pair (signing.py).

`buildah push` copies the image from the local store and writes the digest the registry now names it by;
the record of what was pushed, `out/images/pushed.json`, has the shape of images.json (reference by
digest, repository, digest, SBOM), so `scripts/gen_olm_bundle.py --pinned out/images/pushed.json` and the
chart's `image.digest`/`runner.image.digest` take it as they take a local build's record.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from . import buildah, signing

REPO = Path(__file__).resolve().parents[3]
PUSHED = REPO / "out" / "images" / "pushed.json"


@dataclass(frozen=True)
class PushedImage:
    name: str
    reference: str
    """`registry/repository@sha256:...`."""
    repository: str
    digest: str
    sbom: str | None
    signed: bool
    push_seconds: float
    sign_seconds: float


def push_image(source: str, repository: str, *, ca: Path | None = None) -> tuple[str, float]:
    """Push `source` (a local reference) to `repository` (registry/name); its reference by digest and the
    push's wall time. Layers go gzipped (buildah 1.28's --disable-compression still gzips OCI layers here,
    so there is no option for it)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="assay-push-") as scratch:
        digest_file = Path(scratch) / "digest"
        args = ["push", "--quiet", "--digestfile", str(digest_file)]
        if ca is not None:  # buildah (containers/image) reads every *.crt in --cert-dir as a CA
            certs = Path(scratch) / "certs"
            certs.mkdir()
            shutil.copyfile(ca, certs / "ca.crt")
            args += ["--cert-dir", str(certs)]
        buildah.run([*args, source, f"docker://{repository}"], timeout=1800)
        digest = digest_file.read_text().strip()
    return f"{repository}@{digest}", time.monotonic() - started


def push_and_sign(
    name: str,
    source: str,
    repository: str,
    *,
    sbom: Path | None = None,
    key: Path | None = None,
    password: str = "",
    ca: Path | None = None,
) -> PushedImage:
    reference, push_seconds = push_image(source, repository, ca=ca)
    sign_seconds = 0.0
    if key is not None:
        started = time.monotonic()
        signing.sign(reference, key, ca=ca, password=password)
        if sbom is not None:
            signing.attest_sbom(reference, sbom, key, ca=ca, password=password)
        sign_seconds = time.monotonic() - started
    return PushedImage(
        name=name,
        reference=reference,
        repository=repository,
        digest=reference.partition("@")[2],
        sbom=str(sbom) if sbom is not None else None,
        signed=key is not None,
        push_seconds=push_seconds,
        sign_seconds=sign_seconds,
    )


def push_recorded(
    record: Path,
    registry: str,
    names: Sequence[str] = (),
    *,
    key: Path | None = None,
    password: str = "",
    ca: Path | None = None,
    out: Path = PUSHED,
) -> list[PushedImage]:
    """Push the images of a `make images` record to `registry` (HOST[:PORT][/PREFIX]) as
    `assay-<name>`, signing each and attesting its SBOM when a key is given; writes `out`."""
    images: dict[str, dict[str, object]] = json.loads(record.read_text())["images"]
    chosen = list(names) or list(images)
    unknown = [n for n in chosen if n not in images]
    if unknown:
        raise ValueError(f"{record}: no image(s) {', '.join(unknown)} (it has {', '.join(images)})")
    pushed: list[PushedImage] = []
    for name in chosen:
        entry = images[name]
        sbom = Path(str(entry["sbom"])) if entry.get("sbom") else None
        if sbom is not None and not sbom.is_absolute():
            sbom = REPO / sbom
        pushed.append(
            push_and_sign(
                name,
                str(entry["reference"]),
                f"{registry.rstrip('/')}/assay-{name}",
                sbom=sbom if sbom is not None and sbom.exists() else None,
                key=key,
                password=password,
                ca=ca,
            )
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"images": {p.name: asdict(p) for p in pushed}}, indent=2, sort_keys=True))
    return pushed
