"""What several commands share: argument types, the gateway options, exit codes (0 Pass, 1 Blocked, 2)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay_runner.contract import AGENT_KINDS, CASSETTE_MODES

if TYPE_CHECKING:
    from assay_runner.contract import Result
    from assay_runner.gateway.access import ModelAccess

EXIT_PASS, EXIT_BLOCKED, EXIT_BAD_INPUT, EXIT_ONLINE_PASS = 0, 1, 2, 3
DEFAULT_STORE = "default"  # `--mlflow` with no value: $MLFLOW_TRACKING_URI, else ./mlflow.db

# What `add_subparsers()` returns; argparse does not export the type.
Subcommands = Any


MAX_REPETITIONS = 100  # as RunConfig.repetitions


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def repetitions(text: str) -> int:
    value = positive_int(text)
    if value > MAX_REPETITIONS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_REPETITIONS}, got {value}")
    return value


def unit_float(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {value}")
    return value


def threshold(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected JUDGE=VALUE, got {text!r}")
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None


def price(text: str) -> tuple[str, dict[str, float]]:
    """`MODEL=INPUT,OUTPUT` (USD per million tokens) -> (model, a PriceConfig document)."""
    model, sep, figures = text.rpartition("=")
    parts = figures.split(",")
    if not sep or not model or len(parts) != 2:
        raise argparse.ArgumentTypeError(f"expected MODEL=INPUT,OUTPUT (USD per million), got {text!r}")
    try:
        inputs, outputs = (float(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the prices are not numbers") from None
    return model, {"input_per_million": inputs, "output_per_million": outputs}


def tickets(text: str) -> str | list[str]:
    if text in ("training", "validation", "all"):
        return text
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids:
        raise argparse.ArgumentTypeError("give training, validation, all, or comma-separated ticket ids")
    return ids


def exit_for(verdict: str) -> int:
    return EXIT_PASS if verdict == "Pass" else EXIT_BLOCKED


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """What running agents takes, the same for `assay run` and `assay answer` (one definition, so the two
    cannot drift apart): the agent, the tickets and repetitions, concurrency, prices, the gateway."""
    add = parser.add_argument
    add("--brain", help="brain directory (AGENTS.md and other files)")
    add("--agent", default="chat", choices=AGENT_KINDS)
    add("--model", help="the agent's model, through the gateway")
    add("--command", help="argv template for --agent command, e.g. 'python agent.py {prompt_file}'")
    add("--answers", help="recorded answers for --agent replay")
    add("--timeout", type=float, default=600.0, help="seconds per ticket before the agent is killed")
    add("--tickets", type=tickets, default="all", help="training | validation | all | ids")
    add("--repetitions", "-k", type=repetitions, default=1)
    add("--concurrency", "-j", type=positive_int, default=4)
    add("--keep-workspaces", action="store_true", help="keep each ticket's workspace for debugging")
    add("--run-name")
    add("--quiet", "-q", action="store_true")
    add_cost_options(parser)
    add_gateway_options(parser)


def add_cost_options(parser: argparse.ArgumentParser) -> None:
    """The price table and the budget: wherever agents run (`assay run`, `assay answer`)."""
    parser.add_argument(
        "--price",
        type=price,
        action="append",
        default=[],
        metavar="MODEL=INPUT,OUTPUT",
        help="USD per million input and output tokens of MODEL (repeatable; overrides the suite's prices)",
    )
    parser.add_argument(
        "--max-cost-usd", type=float, help="budget: start no new cell once the run has spent this much"
    )


def add_gateway_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gateway", help="OpenAI-compatible base URL for the model judge (and chat agent)")
    parser.add_argument(
        "--judge-model",
        default=os.environ.get("ASSAY_JUDGE_MODEL"),
        help="model for model judges that do not name one (env ASSAY_JUDGE_MODEL)",
    )
    parser.add_argument("--cassettes", type=Path, help="directory of recorded model calls")
    parser.add_argument(
        "--cassette-mode",
        choices=CASSETTE_MODES,
        default=None,
        help="default: replay when --cassettes is given, else off",
    )


def model_access(args: argparse.Namespace) -> ModelAccess:
    """The model client from --gateway / --cassettes; without either, model judges error and block."""
    from assay_runner.gateway.access import model_access as build

    return build(args.gateway, args.cassettes, args.cassette_mode)


def finish(result: Result, **kwargs: Any) -> Result:
    """Write the result's outputs (and log it to MLflow when asked); the result with its MLflow reference."""
    from assay_runner.run.outputs import finish as finish_outputs

    finished = finish_outputs(result, **kwargs)
    FINISHED.append(finished)
    return finished


FINISHED: list[Result] = []
"""Results this process finished (outputs written), newest last: the CLI's exit 0 must rest on one."""
BLOCKED_BUT_ZERO: list[Result] = []
"""Finished Blocked results whose RunConfig asked for exit 0 (`output.blockedExitCode: 0`, in a Job: there
only "could not run" fails the pod, and the verdict travels in the RunSummary)."""


def exit_for_run(result: Result, blocked_exit_code: int) -> int:
    """The exit code of a command that read a RunConfig (`assay run`, the judge phase of `assay score`)."""
    if result.verdict == "Pass":
        return EXIT_PASS
    if blocked_exit_code == EXIT_PASS and result.mode == "release":
        BLOCKED_BUT_ZERO.append(result)
        return EXIT_PASS
    return EXIT_BLOCKED
