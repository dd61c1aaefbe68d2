"""`assay score SUITE --answers DIR [--keys FILE]`: judge answers already on disk and apply the gate.

`assay score --config FILE` is the judge phase of a split run: the same RunConfig the answer phase read
(`assay answer --config`), plus the answer keys (`keys`) and the answers tree (`answersDir`); it writes the
result, the report and the RunSummary, and logs to MLflow, as `assay run --config` does.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.commands import options
from assay_runner.commands.options import Finished, Subcommands
from assay_runner.errors import InputError

if TYPE_CHECKING:
    from assay_runner.contract import RunConfig
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
    score.add_argument(
        "--max-answer-bytes",
        type=options.positive_int,
        default=8 << 20,
        help="an answer.md larger than this is a cell error, never read (default 8 MiB)",
    )
    score.add_argument(
        "--max-side-files-bytes",
        type=options.positive_int,
        help="a cell whose side files are more than this in all is a cell error, none read (default 64 MiB)",
    )
    score.add_argument(
        "--max-side-files",
        type=int,
        help="a cell with more side files than this is a cell error, none read (default 1000)",
    )
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
    options.add_evidence_option(score)
    options.add_gateway_options(score)
    score.set_defaults(handler=run)


def _mlflow_info(args: argparse.Namespace) -> RunInfo | None:
    if args.mlflow is None:
        return None
    from assay_runner.io.tracking import RunInfo, default_tracking_uri

    uri = default_tracking_uri() if args.mlflow == options.DEFAULT_STORE else args.mlflow
    return RunInfo(tracking_uri=uri, experiment=args.experiment, run_name=args.run_name)


def _flag_config(args: argparse.Namespace) -> RunConfig:
    """`assay score SUITE --answers DIR ...` as the judge phase's RunConfig: one judge phase, two forms."""

    if args.suite is None or args.answers is None:
        raise InputError("give a SUITE and --answers DIR (or --config FILE)")
    cassettes = (
        {"dir": str(args.cassettes), "mode": args.cassette_mode or "replay"} if args.cassettes else None
    )
    answers = Path(args.answers).absolute()
    # The folder's name as UTF-8 can show it (a name that is not UTF-8 has its bytes escaped).
    folder_name = os.fsencode(answers.name).decode("utf-8", "backslashreplace")
    tracking_uri = None if args.mlflow in (None, options.DEFAULT_STORE) else args.mlflow
    return options.config_from_flags(
        {
            "suite": args.suite,
            "keys": args.keys,
            "answers_dir": str(answers),
            "run_name": args.run_name or folder_name,
            "tickets": args.tickets,
            "repetitions": args.repetitions,
            "concurrency": args.concurrency,
            "gateway": args.gateway or os.environ.get(options.GATEWAY_ENV),
            "judge_model": args.judge_model,
            "cassettes": cassettes,
            "limits": {  # a limit not given is the RunConfig's default
                "max_answer_bytes": args.max_answer_bytes,
                **({"max_side_files_bytes": args.max_side_files_bytes} if args.max_side_files_bytes else {}),
                **({"max_side_files": args.max_side_files} if args.max_side_files is not None else {}),
            },
            "evidence": {"key_file": args.evidence_key},
            # Checked here as a RunConfig's are; the flags' own RunInfo logs them (`_mlflow_info`).
            "mlflow": {"tracking_uri": tracking_uri, "experiment": args.experiment, "enabled": False},
        }
    )


def run(args: argparse.Namespace) -> Finished:
    import asyncio

    from assay_runner.io.destinations import check_destinations
    from assay_runner.io.runconfig import read_run_config
    from assay_runner.run.scoring import judge_phase
    from assay_runner.views.table import print_result

    if args.config is not None:
        if args.suite is not None:
            raise InputError("give either a SUITE and flags, or --config FILE, not both")
        config = read_run_config(args.config)
        check_destinations(Path(config.output.dir), config.output.summary_path)
        if args.answers is not None:
            config = config.model_copy(update={"answers_dir": str(Path(args.answers).absolute())})
        config = options.with_evidence_key(config, args.evidence_key)
        result, key = asyncio.run(judge_phase(config))
        finished = options.finish_run(result, config, key)
    else:
        check_destinations(args.out, out_setting="--out")
        result, key = asyncio.run(judge_phase(_flag_config(args), sealed=False))
        finished = options.Finished(options.finish(result, out=args.out, mlflow=_mlflow_info(args), key=key))

    if not args.quiet:
        print_result(finished.result)
    return finished
