"""`python -m assay_dev.images` (make images): build Assay's images with buildah, cached by content, and
print their digests. See docs/images.md.

    python -m assay_dev.images [NAME...] [--base auto|ubi|debian] [--no-sbom]
"""

from __future__ import annotations

import argparse
import sys
import time

from .bases import PREFERENCES, BaseError
from .build import DEFAULT_IMAGES, RECORD, ImageBuildError, build
from .buildah import BuildahError
from .node import NodeError
from .sbom import SbomError


def main(argv: list[str] | None = None) -> int:
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
