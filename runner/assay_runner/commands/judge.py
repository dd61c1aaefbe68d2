"""`assay judge SUITE --question TEXT --answer FILE`: online judging of one answer, never a release.

It never exits 0, because 0 means "release" to every script that runs Assay: it exits 3 when the answer
passes the judges that can run without a key, 1 when it does not, 2 on bad input. Its result.json says
`mode: online`, and `assay gate` and `assay compare` refuse it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.commands import options
from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode, InputError, not_a_file

if TYPE_CHECKING:
    from assay_runner.contract import Result


def add_parser(commands: Subcommands) -> None:
    judge = commands.add_parser(
        "judge", help="judge one ad-hoc answer with no answer key (online; not a release)"
    )
    judge.add_argument("suite")
    judge.add_argument("--question", required=True, help="the question the answer replies to")
    judge.add_argument("--answer", required=True, help="file holding the answer (markdown)")
    judge.add_argument("--exit-code", type=int, help="the agent's exit code, when known")
    judge.add_argument("--out", type=Path)
    judge.add_argument(
        "--mlflow",
        nargs="?",
        const=options.DEFAULT_STORE,
        metavar="TRACKING_URI",
        help="log the answer as an MLflow trace with the judges' feedback, tagged assay.mode=online "
        "(default store: $MLFLOW_TRACKING_URI or ./mlflow.db)",
    )
    judge.add_argument("--experiment", default="assay", help="MLflow experiment (default: assay)")
    judge.add_argument("--quiet", "-q", action="store_true")
    options.add_gateway_options(judge)
    judge.set_defaults(handler=run)


def _log_trace(result: Result, args: argparse.Namespace) -> Result:
    from assay_runner.io.tracking import RunInfo, default_tracking_uri, log_online

    uri = default_tracking_uri() if args.mlflow == options.DEFAULT_STORE else args.mlflow
    ref = log_online(result, RunInfo(tracking_uri=uri, experiment=args.experiment))
    if ref.logged:
        print(f"MLflow trace in experiment {ref.experiment_id} of {uri}", file=sys.stderr)
    else:
        print(f"assay: warning: MLflow logging failed: {ref.error}", file=sys.stderr)
    return result.model_copy(update={"mlflow": ref})


def run(args: argparse.Namespace) -> int:
    import asyncio

    from assay_runner.judges.judging import NEEDS_A_KEY
    from assay_runner.run.online import judge_online
    from assay_runner.suite import load_suite
    from assay_runner.views.table import print_result

    if not args.question.strip():
        raise InputError("--question: must not be empty")
    from assay_runner.io.destinations import check_destinations

    check_destinations(args.out, out_setting="--out")
    suite = load_suite(args.suite)
    if (unreadable := not_a_file(Path(args.answer))) is not None:  # a FIFO would hang the reader
        raise InputError(f"--answer {args.answer}: {unreadable}")
    try:
        answer = Path(args.answer).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--answer {args.answer}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"--answer {args.answer}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    result = asyncio.run(
        judge_online(
            suite,
            args.question,
            answer,
            exit_code=args.exit_code,
            access=options.model_access(args),
            judge_model=args.judge_model,
        )
    )
    if args.mlflow is not None:
        result = _log_trace(result, args)
    result = options.finish(result, out=args.out)
    if not args.quiet:
        print_result(result)
        # Only the judges skipped for want of a key: one that ran and found nothing to check (exit_code
        # with no --exit-code) is not among them.
        verdicts = result.tickets[0].repetitions[0].judges if result.tickets else {}
        skipped = [n for n, v in verdicts.items() if not v.applicable and v.reason == NEEDS_A_KEY]
        if skipped:
            print(f"not run without an answer key: {', '.join(skipped)}")
    return ExitCode.ONLINE_PASS if result.verdict == "Pass" else ExitCode.BLOCKED
