"""`assay pull REF@sha256:... DIR`: a suite artifact fetched, verified against its digest, and unpacked."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assay_runner.commands.options import Subcommands, add_registry_ca
from assay_runner.errors import ExitCode


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser("pull", help="pull a suite artifact by digest from an OCI registry")
    parser.add_argument("ref", help="REGISTRY/REPOSITORY@sha256:... (oci:// may lead)")
    parser.add_argument("dir", type=Path, help="folder to unpack the suite into (new or empty)")
    parser.add_argument(
        "--allow-tag",
        action="store_true",
        help="accept a reference without a digest (trusts the registry's tag)",
    )
    add_registry_ca(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.io.suite_artifact import parse_reference, pull, registry_ca

    pulled = pull(args.ref, args.dir, registry_ca(args.registry_ca), allow_tag=args.allow_tag)
    ref = parse_reference(args.ref)
    print(f"pulled suite {pulled.suite_name!r} ({pulled.suite_digest}) into {pulled.folder}", file=sys.stderr)
    print(ref.pinned(pulled.manifest_digest))
    return ExitCode.PASS
