"""`assay score SUITE --answers DIR [--keys FILE]`: judge answers already on disk and apply the gate.

`assay score --config FILE` is the judge phase of a split run: the same RunConfig the answer phase read
(`assay answer --config`), plus the answer keys (`keys`) and the answers tree (`answersDir`); it writes the
result, the report and the RunSummary, and logs to MLflow, as `assay run --config` does.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.commands import options
from assay_runner.commands.options import Subcommands
from assay_runner.errors import InputError

if TYPE_CHECKING:
    from assay_runner.io.tracking import RunInfo


def add_parser(commands: Subcommands) -> None:
    score = commands.add_parser("score", help="judge answers already on disk and apply the gate")
    score.add_argument("suite", nargs="?", help="suite directory (or use --config)")
    score.add_argument("--config", type=Path, help="the judge phase: a RunConfig with keys and answersDir")
    score.add_argument("--answers", help="DIR/<ticket>/answer.md or DIR/<ticket>/<rep>/answer.md")
    score.add_argument("--keys", help="answer-key file, when SUITE is only the public part (assay split)")
    score.add_argument("--repetitions", "-k", type=options.repetitions, default=1)
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


def _judge_phase(args: argparse.Namespace) -> int:
    from assay_runner.commands.run import mlflow_info
    from assay_runner.io.runconfig import read_run_config
    from assay_runner.run.scoring import judge_phase
    from assay_runner.views.table import print_result

    if args.suite is not None:
        raise InputError("give either a SUITE and flags, or --config FILE, not both")
    config = read_run_config(args.config)
    if args.answers is not None:
        config = config.model_copy(update={"answers_dir": str(Path(args.answers).absolute())})
    result = asyncio.run(judge_phase(config))
    result = options.finish(
        result,
        out=Path(config.output.dir),
        summary_path=config.output.summary_path,
        mlflow=mlflow_info(config),
    )
    if not args.quiet:
        print_result(result)
    return options.exit_for_run(result, config.output.blocked_exit_code)


def run(args: argparse.Namespace) -> int:
    from assay_runner.core.independence import judge_model_warnings
    from assay_runner.io.answers import read_manifest
    from assay_runner.run.recorded import score_answers
    from assay_runner.suite import load_suite
    from assay_runner.views.table import print_result

    if args.config is not None:
        return _judge_phase(args)
    if args.suite is None or args.answers is None:
        raise InputError("give a SUITE and --answers DIR (or --config FILE)")
    suite = load_suite(args.suite, keys=args.keys)
    tickets = suite.select(args.tickets)
    manifest = read_manifest(Path(args.answers))
    warnings = judge_model_warnings(suite, args.judge_model, manifest.model if manifest else None)
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
    result = result.model_copy(update={"warnings": warnings})
    result = options.finish(result, out=args.out, mlflow=_mlflow_info(args))
    if not args.quiet:
        print_result(result)
    return options.exit_for(result.verdict)
