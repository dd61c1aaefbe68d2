"""`assay gate RESULT.json`: re-apply a gate to a stored result with new thresholds; nothing re-runs.

The file is checked first (`assay_runner.core.integrity`): an edited or malformed result is bad input
(exit 2). An online result (`assay judge`, `mode: online`) is never a release verdict: exit 2. With
`--verify --suite DIR`, result.json's evidence MACs are checked under the run's evidence key and the
deterministic judges are run again on the stored answers: a result that is unauthenticated (no MAC, no key
here, a MAC that does not verify: the cells named) or any disagreement blocks (exit 1, the `verified` rule
failing with the reason); without it the result carries a warning that the verdicts were taken as stored.
The re-gated result it writes is not a run's result: it carries no evidence of its own.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.commands import options
from assay_runner.commands.options import Subcommands
from assay_runner.errors import InputError, Problem

if TYPE_CHECKING:
    from assay_runner.run.verify import Against

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
        "--max-answer-seconds", type=options.positive_float, help="every cell's agent wall time"
    )
    gate.add_argument(
        "--answer-seconds-percentile",
        type=options.percentile_limit,
        metavar="PERCENTILE:SECONDS",
        help="that percentile (nearest rank) of the cells' agent wall times, e.g. 95:60",
    )
    gate.add_argument("--max-ticket-cost-usd", type=options.positive_float, help="every cell's priced cost")
    gate.add_argument("--max-run-cost-usd", type=options.positive_float, help="the run's total priced cost")
    add_verify_options(gate)
    gate.add_argument("--out", type=Path)
    gate.add_argument("--quiet", "-q", action="store_true")
    gate.set_defaults(handler=run)


def add_verify_options(parser: argparse.ArgumentParser) -> None:
    """`--verify` and what it verifies against: the same for `assay gate` and `assay compare`."""
    add = parser.add_argument
    add(
        "--verify",
        action="store_true",
        help="judge the stored answers again (code judges included) and check the selection and the answers "
        "against the suite, the request and the tree; block on any disagreement (needs --suite or --config)",
    )
    add("--suite", help="the suite the result was made with (for --verify)")
    add("--keys", help="its answer-key file, when --suite is only the public part")
    add("--config", type=Path, help="the RunConfig the run read (for --verify: suite, overrides, request)")
    add("--answers", type=Path, help="the answers tree the result was judged from (for --verify)")
    add(
        "--evidence-key",
        metavar="FILE",
        help="the run's evidence key file (for --verify; default: the RunConfig's, else the local key "
        "store's)",
    )


def verification(args: argparse.Namespace) -> Against | None:
    from assay_runner.run.verify import against

    if not args.verify:
        if args.suite or args.config or args.answers or args.evidence_key:
            raise InputError(
                "--suite, --config, --answers and --evidence-key are what --verify checks against: "
                "add --verify"
            )
        return None
    return against(args.suite, args.keys, args.config, args.answers, args.evidence_key)


def run(args: argparse.Namespace) -> options.Finished:
    import asyncio

    from assay_runner.core.regate import regate
    from assay_runner.io.results import read_result
    from assay_runner.views.table import print_result

    checks = verification(args)
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
        limits={
            "max_answer_seconds": args.max_answer_seconds,
            "answer_seconds_percentile": args.answer_seconds_percentile,
            "max_ticket_cost_usd": args.max_ticket_cost_usd,
            "max_run_cost_usd": args.max_run_cost_usd,
        },
    )
    if checks is not None:
        from assay_runner.run.verify import verified, verify

        result = verified(result, asyncio.run(verify(stored, checks)))
    else:
        result = result.model_copy(update={"warnings": [*result.warnings, NOT_REJUDGED]})
    result = result.model_copy(update={"evidence": None})  # re-gated here: no longer the run's own result
    finished = options.Finished(options.finish(result, out=args.out))
    if not args.quiet:
        print_result(finished.result)
    return finished
