"""`assay answer SUITE --brain DIR --agent KIND --answers-out DIR`: the answer phase alone.

The agents answer every ticket x repetition with the brain, the questions and the KB, and the answers go
into a tree `assay score --answers DIR` (or `assay score --config`) judges later. No judge runs and no
answer key is read; with `--config`, a configuration that names `keys` is refused. Exit 0 once every cell is
accounted for (answered, or recorded with the reason it is not), whatever the agents did; 2 on bad input.
Stopped by SIGTERM or SIGINT before every cell finished, it still records the unfinished cells (with why)
and seals the tree, then exits 128 + the signal's number (143, 130): an interrupted phase is not a finished
one. On the cluster that is how a deleted, evicted or preempted answer pod leaves its Job's index to be
retried, and the retry (`--resume`) keeps the cells this pod sealed and answers the rest. Killed outright
(SIGKILL: the OOM killer, a lost node), it seals no manifest, but each cell's seal is already on disk
(`io.seal_records`): the retry keeps those cells all the same.
With `output.summaryPath` in the config, a compact AnswerSummary (cells answered of this phase's and of the
run's) goes there: on the cluster, the answer pod's termination message.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from assay_runner.commands import options
from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode

if TYPE_CHECKING:
    from assay_runner.contract import RunConfig


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser(
        "answer", help="run the agents only and write their answers for `assay score`"
    )
    add = parser.add_argument
    add("suite", nargs="?", help="suite directory — its public part is enough (or use --config)")
    add("--config", type=Path, help="a RunConfig file (YAML or JSON), as the operator renders it")
    add("--answers-out", help="the answers tree to write (must be empty); default: the config's answersDir")
    add("--deadline", type=float, help="stop the whole phase after this many seconds")
    add(
        "--shard",
        type=shard,
        metavar="I/N",
        help="answer only shard I of N (0-based; the judge phase reads them all)",
    )
    add(
        "--customer",
        type=Path,
        help="the suite's customers (customers.yaml of `assay split --customer`), played by the runner on "
        "its conversational tickets; agent programs then need the kernel's sandbox",
    )
    add(
        "--resume",
        action="store_true",
        help="keep the cells an earlier attempt on the same inputs answered; answer only the rest",
    )
    options.add_agent_options(parser)
    # What `assay run`'s config builder reads and the answer phase has no use for.
    parser.set_defaults(
        handler=run,
        out=Path("assay-out"),
        summary_path=None,
        mlflow=None,
        experiment="assay",
        no_mlflow=True,
        require_mlflow=False,
    )


def shard(text: str) -> tuple[int, int]:
    index, sep, count = text.partition("/")
    if not sep or not index.isdigit() or not count.isdigit() or not int(index) < int(count):
        raise argparse.ArgumentTypeError(f"expected I/N with 0 <= I < N, e.g. 2/4; got {text!r}")
    return int(index), int(count)


def answer_config(args: argparse.Namespace) -> RunConfig:
    from assay_runner.commands.run import run_config_from_args

    config = run_config_from_args(args)
    update: dict[str, object] = {}
    if args.answers_out is not None:
        update["answers_dir"] = str(Path(args.answers_out).absolute())
    if args.deadline is not None:
        update["answer_deadline_seconds"] = args.deadline
    if args.shard is not None:
        from assay_runner.contract import ShardConfig

        index, count = args.shard
        update["shard"] = ShardConfig(index=index, count=count)
    if args.resume:
        update["resume"] = True
    if args.customer is not None:
        update["customers"] = str(Path(args.customer).absolute())
    return config.model_copy(update=update) if update else config


def run(args: argparse.Namespace) -> int:
    import asyncio

    from assay_runner.commands.run import prepare_cell_groups, until_stopped
    from assay_runner.io.destinations import check_destinations
    from assay_runner.run.answer_loop import Control
    from assay_runner.run.answering import answer_all, prepare_answers

    config = answer_config(args)
    prepare_cell_groups(config)
    if config.answers_dir is not None:
        check_destinations(Path(config.answers_dir), config.output.summary_path, out_setting="answersDir")
    prepared = prepare_answers(config)
    from assay_runner.core.independence import judge_model_warnings

    # A model customer (a conversational ticket's) plays here: held to the independence rule before any cell.
    for warning in judge_model_warnings(prepared.suite, config.judge_model, config.agent.model):
        print(f"assay: warning: {warning}", file=sys.stderr)
    control = Control()
    summary = asyncio.run(until_stopped(prepared, args.quiet, answer_all, control))
    if config.output.summary_path is not None:
        # On the cluster: the pod's termination message, the operator's view of this shard's progress.
        Path(config.output.summary_path).write_text(summary.to_json())
    if control.signal is not None and summary.stopped is not None:
        name = signal.Signals(control.signal).name
        print(
            f"assay: {name} stopped the answer phase before every cell finished ({summary.answered} of "
            f"{summary.cells} answered); the unfinished cells are recorded, and a resumed phase (--resume) "
            "answers them",
            file=sys.stderr,
        )
        return 128 + control.signal
    return ExitCode.PASS
