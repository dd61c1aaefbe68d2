"""`assay split SUITE --public DIR [--keys FILE] [--customer FILE]`: a suite cut at its trust boundary.

The public part (suite.yaml, questions, KB, judge code) is what the answer phase may see; the key file
(every ticket's answer key) is for the judge phase only; without `--keys` it is written nowhere (an answer
pod's split). `assay score --keys FILE` joins them again. The
customers file (the conversational tickets' customers, nothing else of their keys; written only when a
ticket is a conversation) is for the answer phase's runner, never its agents (`customers` in its RunConfig).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assay_runner.commands.options import Subcommands, add_registry_ca
from assay_runner.errors import ExitCode


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser("split", help="split a suite into its public part and its answer keys")
    parser.add_argument("suite", help="suite directory, or oci://REGISTRY/REPO@sha256:...")
    parser.add_argument("--public", type=Path, required=True, help="directory for the public part (empty)")
    parser.add_argument(
        "--keys",
        type=Path,
        help="file for the answer keys (keys.yaml); without it they are written nowhere (an answer pod)",
    )
    parser.add_argument(
        "--customer",
        type=Path,
        help="file for the conversational tickets' customers (customers.yaml), which the answer phase plays "
        "them from; written only when a ticket is a conversation",
    )
    parser.add_argument("--kb", type=Path, help="KB articles directory, when not the suite's own kb/")
    add_registry_ca(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.core.digests import suite_digest
    from assay_runner.io.suite_artifact import resolve_suite
    from assay_runner.suite.split import split_suite

    folder, _artifact = resolve_suite(args.suite, args.registry_ca)
    suite = split_suite(Path(folder), args.public, args.keys, args.kb, args.customer)
    customers = f", customers in {args.customer}" if args.customer and suite.has_conversations else ""
    keys = f"answer keys in {args.keys}" if args.keys else "answer keys written nowhere"
    print(
        f"split suite {suite.name!r} ({len(suite.tickets)} tickets, {suite_digest(suite)}): public part in "
        f"{args.public}, {keys}{customers}",
        file=sys.stderr,
    )
    return ExitCode.PASS
