"""`assay gate RESULT.json`: re-apply a gate to a stored result with new thresholds; nothing re-runs.

The file is checked first (`assay_runner.core.integrity`): an edited or malformed result is bad input
(exit 2). An online result (`assay judge`, `mode: online`) is never a release verdict: exit 2. With
`--verify --suite DIR`, the deterministic judges are run again on the stored answers and any disagreement
blocks (exit 1); without it the result carries a warning that the verdicts were taken as stored.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from assay_runner.commands import options
from assay_runner.commands.options import Subcommands
from assay_runner.errors import InputError, Problem

# Said with every plain re-gate: its Pass rests on verdicts a hand could have edited consistently.
NOT_REJUDGED = (
    "the judges' verdicts are the file's own, not judged again: `assay gate --verify --suite DIR` "
    "judges the stored answers again and blocks on any disagreement"
)


def add_parser(commands: Subcommands) -> None:
    gate = commands.add_parser("gate", help="re-apply a gate to a stored result.json (nothing re-runs)")
    gate.add_argument("result")
    gate.add_argument("--min-score", type=options.unit_float)
    gate.add_argument("--ticket-floor", type=options.unit_float)
    gate.add_argument("--min-pass-hat-k", type=options.unit_float)
    gate.add_argument("--threshold", type=options.threshold, action="append", metavar="JUDGE=VALUE")
    gate.add_argument(
        "--verify",
        action="store_true",
        help="re-run the deterministic judges on the stored answers (needs --suite); block on disagreement",
    )
    gate.add_argument("--suite", help="the suite the result was made with (for --verify)")
    gate.add_argument("--out", type=Path)
    gate.add_argument("--quiet", "-q", action="store_true")
    gate.set_defaults(handler=run)


def run(args: argparse.Namespace) -> options.Finished:
    import asyncio

    from assay_runner.core.regate import regate
    from assay_runner.io.results import read_result
    from assay_runner.views.table import print_result

    if args.verify and not args.suite:
        raise InputError("--verify needs --suite DIR (the suite the result was made with)")
    stored = read_result(Path(args.result))
    if stored.mode != "release":
        raise InputError(
            [Problem(args.result, "mode", "an online result (assay judge) is never a release verdict")]
        )
    result = regate(
        stored,
        min_score=args.min_score,
        ticket_floor=args.ticket_floor,
        thresholds=dict(args.threshold or []),
        min_pass_hat_k=args.min_pass_hat_k,
    )
    if args.verify:
        from assay_runner.run.verify import disagreements, verified
        from assay_runner.suite import load_suite

        result = verified(result, asyncio.run(disagreements(stored, load_suite(args.suite))))
    else:
        result = result.model_copy(update={"warnings": [*result.warnings, NOT_REJUDGED]})
    finished = options.Finished(options.finish(result, out=args.out))
    if not args.quiet:
        print_result(finished.result)
    return finished
