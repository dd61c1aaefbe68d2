"""Mirroring Assay to a second registry for a disconnected install: every image the release bundle lists in
relatedImages and every suite artifact, copied by digest with their signatures, attestations and referrers
(tools/mirror: go-containerregistry's crane.Copy, built from the Go module proxy), and the
ImageDigestMirrorSet that sends the cluster's pulls to the copies.

    python -m assay_dev.images.mirror --to MIRROR[/PREFIX] [--ca FILE]... [--bundle DIR] [--idms FILE]
        [--never-contact-source] [REPOSITORY@sha256:...]...

Standard output: one "SOURCE DESTINATION" line per reference; `--idms` writes the mirror set (one entry per
source repository, so a mirror set never redirects more than what was copied). See docs/disconnected.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[3]
GO_TOOLS = REPO / "scripts" / "build-go-tools.sh"
CSV_SUFFIX = ".clusterserviceversion.yaml"

Obj = dict[str, Any]


class MirrorError(Exception):
    """tools/mirror could not be built or refused a copy (its message in ours), or an input is malformed."""


def mirror_binary() -> Path:
    built = subprocess.run(["bash", str(GO_TOOLS), "mirror"], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise MirrorError(f"{GO_TOOLS} mirror failed:\n{built.stderr[-3000:]}")
    return Path(built.stdout.strip().splitlines()[-1])


def mirror(
    references: Sequence[str], to: str, cas: Sequence[Path] = (), timeout: float = 3600.0
) -> dict[str, str]:
    """Copy each reference (by digest) under `to`; source -> destination, both by digest. A copy that takes
    longer than `timeout` seconds is an error, not a wait without end."""
    unpinned = [r for r in references if "@sha256:" not in r]
    if unpinned:
        raise MirrorError(f"a mirror copies references by digest; these have none: {', '.join(unpinned)}")
    argv = [str(mirror_binary()), "-to", to, *(a for ca in cas for a in ("-ca", str(ca))), *references]
    try:
        copied = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise MirrorError(f"tools/mirror did not finish in {timeout:.0f} s: {error.stderr!r}") from error
    if copied.returncode != 0:
        raise MirrorError(f"tools/mirror exited {copied.returncode}: {copied.stderr.strip()[-3000:]}")
    pairs = dict(line.split(" ", 1) for line in copied.stdout.splitlines() if line.strip())
    missing = [r for r in references if r not in pairs]
    if missing:
        raise MirrorError(f"tools/mirror did not report {', '.join(missing)}")
    return {r: pairs[r] for r in references}


def mirror_image(reference: str, target: str, *, source_ca: Path, target_ca: Path) -> str:
    """Copy one image (HOST/REPO@sha256:...) with its signatures and attestations under `target`
    (HOST[/PREFIX]); the copy's reference, by the same digest."""
    return mirror([reference], target, [source_ca, target_ca])[reference]


def related_images(bundle: Path) -> list[str]:
    """The relatedImages of the bundle's ClusterServiceVersion (what OpenShift's oc-mirror copies)."""
    found = sorted((bundle / "manifests").glob(f"*{CSV_SUFFIX}"))
    if len(found) != 1:
        raise MirrorError(f"{bundle}/manifests: expected one *{CSV_SUFFIX}, found {len(found)}")
    csv: Obj = yaml.safe_load(found[0].read_text())
    images = [str(i["image"]) for i in (csv.get("spec") or {}).get("relatedImages") or []]
    if not images:
        raise MirrorError(f"{found[0]}: no relatedImages")
    return list(dict.fromkeys(images))


def mirror_set(copies: Mapping[str, str], name: str = "assay", *, never_contact_source: bool = False) -> Obj:
    """An ImageDigestMirrorSet sending each copied repository to its copy."""
    entries: dict[str, str] = {}
    for source, destination in copies.items():
        entries[_repository(source)] = _repository(destination)
    policy = "NeverContactSource" if never_contact_source else "AllowContactingSource"
    return {
        "apiVersion": "config.openshift.io/v1",
        "kind": "ImageDigestMirrorSet",
        "metadata": {"name": name},
        "spec": {
            "imageDigestMirrors": [
                {"source": source, "mirrors": [destination], "mirrorSourcePolicy": policy}
                for source, destination in sorted(entries.items())
            ]
        },
    }


def _repository(reference: str) -> str:
    name = reference.partition("@")[0]
    host, _, path = name.partition("/")
    return f"{host}/{path.rpartition(':')[0]}" if ":" in path.rpartition("/")[2] else name


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m assay_dev.images.mirror", description=__doc__.splitlines()[0]
    )
    parser.add_argument("references", nargs="*", metavar="REPOSITORY@sha256:...", help="images or artifacts")
    parser.add_argument("--to", required=True, help="the mirror registry, HOST[:PORT][/PREFIX]")
    parser.add_argument("--ca", type=Path, action="append", default=[], help="a PEM CA to trust (repeatable)")
    parser.add_argument("--bundle", type=Path, help="a release bundle: mirror its relatedImages too")
    parser.add_argument("--idms", type=Path, help="write the ImageDigestMirrorSet here")
    parser.add_argument("--never-contact-source", action="store_true", help="mirrorSourcePolicy in --idms")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        references = [*(related_images(args.bundle) if args.bundle else []), *args.references]
        if not references:
            parser.error("nothing to mirror: give references or --bundle")
        copies = mirror(list(dict.fromkeys(references)), args.to, args.ca)
    except MirrorError as error:
        print(f"mirror: {error}", file=sys.stderr)
        return 1
    for source, destination in copies.items():
        print(f"{source} {destination}")
    if args.idms:
        args.idms.write_text(
            yaml.safe_dump(mirror_set(copies, never_contact_source=args.never_contact_source))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
