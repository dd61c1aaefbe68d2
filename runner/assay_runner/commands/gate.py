"""`assay gate RESULT.json`: re-apply a gate to a stored result with new thresholds; nothing re-runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from assay_runner.commands import options
from assay_runner.commands.options import Subcommands


def add_parser(commands: Subcommands) -> None:
    gate = commands.add_parser("gate", help="re-apply a gate to a stored result.json (nothing re-runs)")
    gate.add_argument("result")
    gate.add_argument("--min-score", type=options.unit_float)
    gate.add_argument("--ticket-floor", type=options.unit_float)
    gate.add_argument("--min-pass-hat-k", type=options.unit_float)
    gate.add_argument("--threshold", type=options.threshold, action="append", metavar="JUDGE=VALUE")
    gate.add_argument("--out", type=Path)
    gate.add_argument("--quiet", "-q", action="store_true")
    gate.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.core.regate import regate
    from assay_runner.io.results import read_result
    from assay_runner.views.table import print_result

    result = regate(
        read_result(Path(args.result)),
        min_score=args.min_score,
        ticket_floor=args.ticket_floor,
        thresholds=dict(args.threshold or []),
        min_pass_hat_k=args.min_pass_hat_k,
    )
    result = options.finish(result, out=args.out)
    if not args.quiet:
        print_result(result)
    return options.exit_for(result.verdict)
