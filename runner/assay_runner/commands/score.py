"""`assay score SUITE --answers DIR`: judge answers already on disk and apply the gate."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.commands import options
from assay_runner.commands.options import Subcommands

if TYPE_CHECKING:
    from assay_runner.io.tracking import RunInfo


def add_parser(commands: Subcommands) -> None:
    score = commands.add_parser("score", help="judge answers already on disk and apply the gate")
    score.add_argument("suite")
    score.add_argument(
        "--answers", required=True, help="DIR/<ticket>/answer.md or DIR/<ticket>/<rep>/answer.md"
    )
    score.add_argument("--repetitions", "-k", type=options.positive_int, default=1)
    score.add_argument(
        "--tickets", type=options.tickets, default="all", help="training | validation | all | ids"
    )
    score.add_argument("--concurrency", type=options.positive_int, default=4)
    score.add_argument("--out", type=Path, help="write result.json and summary.json here")
    score.add_argument("--run-name", help="name of this candidate (default: the answers folder's name)")
    score.add_argument(
        "--mlflow",
        nargs="?",
        const=options.DEFAULT_STORE,
        metavar="TRACKING_URI",
        help="log to MLflow (default store: $MLFLOW_TRACKING_URI or ./mlflow.db)",
    )
    score.add_argument("--experiment", default="assay", help="MLflow experiment (default: assay)")
    score.add_argument("--quiet", "-q", action="store_true", help="no table on the terminal")
    options.add_gateway_options(score)
    score.set_defaults(handler=run)


def _mlflow_info(args: argparse.Namespace) -> RunInfo | None:
    if args.mlflow is None:
        return None
    from assay_runner.io.tracking import RunInfo, default_tracking_uri

    uri = default_tracking_uri() if args.mlflow == options.DEFAULT_STORE else args.mlflow
    return RunInfo(tracking_uri=uri, experiment=args.experiment, run_name=args.run_name)


def run(args: argparse.Namespace) -> int:
    from assay_runner.run.recorded import score_answers
    from assay_runner.suite import load_suite
    from assay_runner.views.table import print_result

    suite = load_suite(args.suite)
    tickets = suite.select(args.tickets)
    result = asyncio.run(
        score_answers(
            suite,
            Path(args.answers),
            tickets,
            args.repetitions,
            access=options.model_access(args),
            judge_model=args.judge_model,
            concurrency=args.concurrency,
            run_name=args.run_name,
        )
    )
    result = options.finish(result, out=args.out, mlflow=_mlflow_info(args))
    if not args.quiet:
        print_result(result)
    return options.exit_for(result.verdict)
