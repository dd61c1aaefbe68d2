"""`assay push SUITE REF`: a suite folder as an OCI artifact in a registry, printed as REF@sha256:...."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assay_runner.commands.options import Subcommands, add_registry_ca
from assay_runner.errors import ExitCode


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser("push", help="push a suite folder to an OCI registry as an artifact")
    parser.add_argument("suite", type=Path, help="suite directory (with suite.yaml)")
    parser.add_argument("ref", help="REGISTRY/REPOSITORY[:TAG]")
    add_registry_ca(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.io.suite_artifact import push, registry_ca

    pushed = push(args.suite, args.ref, registry_ca(args.registry_ca))
    print(
        f"pushed suite {pushed.suite_name!r} ({pushed.suite_digest}, layer {pushed.layer_size} bytes)",
        file=sys.stderr,
    )
    print(pushed.reference)
    return ExitCode.PASS
