"""`python -m assay_dev.images` (make images): build Assay's images with buildah, cached by content, and
print their digests. See docs/images.md.

    python -m assay_dev.images [NAME...] [--base auto|ubi|debian] [--no-sbom]
    python -m assay_dev.images push --registry HOST[:PORT][/PREFIX] [--ca FILE] [--sign-key FILE]
                                    [--record FILE] [--out FILE] [NAME...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from .bases import PREFERENCES, BaseError
from .build import DEFAULT_IMAGES, RECORD, ImageBuildError, build
from .buildah import BuildahError
from .node import NodeError
from .push import PUSHED, push_recorded
from .sbom import SbomError
from .signing import PASSWORD_VARIABLE, SigningError


def push_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m assay_dev.images push",
        description="push the built images (out/images/images.json) by digest, signed with a cosign key",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="images to push (default: all recorded)")
    parser.add_argument("--registry", required=True, help="HOST[:PORT][/PREFIX]; images go to assay-NAME")
    parser.add_argument("--ca", type=Path, help="CA file (PEM) that verifies the registry's certificate")
    parser.add_argument(
        "--sign-key", type=Path, help=f"cosign private key; its password in ${PASSWORD_VARIABLE}"
    )
    parser.add_argument("--record", type=Path, default=RECORD, help=f"what to push (default: {RECORD})")
    parser.add_argument("--out", type=Path, default=PUSHED, help=f"what was pushed (default: {PUSHED})")
    args = parser.parse_args(argv)
    try:
        pushed = push_recorded(
            args.record,
            args.registry,
            args.names,
            key=args.sign_key,
            password=os.environ.get(PASSWORD_VARIABLE, ""),
            ca=args.ca,
            out=args.out,
        )
    except (BuildahError, SigningError, ValueError, OSError) as error:
        print(f"push: {error}", file=sys.stderr)
        return 1
    for image in pushed:
        signed = f"signed in {image.sign_seconds:.1f} s" if image.signed else "not signed"
        print(f"{image.name:14} {image.reference}  pushed in {image.push_seconds:.1f} s, {signed}")
    print(f"record: {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["push"]:
        return push_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m assay_dev.images", description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"images to build (default: {' '.join(DEFAULT_IMAGES)})"
    )
    parser.add_argument(
        "--base", choices=PREFERENCES, default="auto", help="UBI, the Debian base, or UBI if it can be pulled"
    )
    parser.add_argument("--no-sbom", action="store_true", help="skip the SBOMs")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        built = build(args.names or DEFAULT_IMAGES, base=args.base, with_sbom=not args.no_sbom)
    except (ImageBuildError, BaseError, BuildahError, NodeError, SbomError) as error:
        print(f"make images: {error}", file=sys.stderr)
        return 1
    for image in built:
        how = f"built in {image.seconds:.0f} s" if image.seconds else "cached"
        print(f"{image.name:14} {image.reference}  {image.size / 1e6:.0f} MB  {image.base}  {how}")
    print(f"record: {RECORD}  ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
