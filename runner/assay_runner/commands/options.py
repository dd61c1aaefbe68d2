"""What several commands share: argument types, the agent and gateway options, and how a verdict command
hands its finished result to the command line (which turns it into the exit code, `cli.exit_code`)."""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay_runner.errors import ExitCode
from assay_runner.vocabulary import AGENT_KINDS, CASSETTE_MODES, ISOLATION_LEVELS

if TYPE_CHECKING:
    from assay_runner.contract import Result, RunConfig
    from assay_runner.core.evidence import EvidenceKey
    from assay_runner.gateway.access import ModelAccess
    from assay_runner.io.tracking import RunInfo

GATEWAY_ENV = "ASSAY_GATEWAY_URL"
DEFAULT_STORE = "default"  # `--mlflow` with no value: $MLFLOW_TRACKING_URI, else ./mlflow.db

# What `add_subparsers()` returns; argparse does not export the type.
Subcommands = Any


MAX_REPETITIONS = 100  # as RunConfig.repetitions

FLAGS = {
    "suite": "SUITE",
    "run_name": "--run-name",
    "brain": "--brain",
    "keys": "--keys",
    "answers_dir": "--answers",
    "tickets": "--tickets",
    "repetitions": "--repetitions",
    "concurrency": "--concurrency",
    "agent.model": "--model",
    "agent.command": "--command",
    "agent.continue_command": "--continue-command",
    "agent.answers": "--answers",
    "agent.timeout_seconds": "--timeout",
    "gateway": f"--gateway (or ${GATEWAY_ENV})",
    "judge_model": "--judge-model",
    "cassettes.dir": "--cassettes",
    "mlflow.tracking_uri": "--mlflow",
    "mlflow.experiment": "--experiment",
    "prices": "--price",
    "max_cost_usd": "--max-cost-usd",
    "output.dir": "--out",
    "output.summary_path": "--summary-path",
    "evidence.key_file": "--evidence-key",
    "limits.max_answer_bytes": "--max-answer-bytes",
    "limits.max_side_files_bytes": "--max-side-files-bytes",
    "limits.max_side_files": "--max-side-files",
}
"""The flag (or argument) each RunConfig field comes from when a command builds one from its flags."""


def config_from_flags(document: dict[str, Any]) -> RunConfig:
    """A RunConfig made of a command's flags, refused as bad input naming each flag that is wrong (every
    one at once), as a RunConfig file's fields are."""
    from pydantic import ValidationError

    from assay_runner.contract import RunConfig
    from assay_runner.errors import InputError, Problem

    try:
        return RunConfig.model_validate(document)
    except ValidationError as exc:
        problems = []
        for item in exc.errors(include_url=False):
            where = ".".join(str(part) for part in item["loc"] if not str(part).startswith("function-"))
            flag = next(
                (f for field, f in FLAGS.items() if where == field or where.startswith(f"{field}.")), where
            )
            message = item["msg"].removeprefix("Value error, ")
            problems.append(Problem("command line", flag, f"{message} (got {item.get('input')!r})"))
        raise InputError(problems) from None


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


def positive_float(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text}")
    return value


def percentile_limit(text: str) -> dict[str, float]:
    """`P:SECONDS` (`95:60`): the P-th percentile of the cells' wall times at most SECONDS."""
    percentile, sep, seconds = text.partition(":")
    try:
        p, limit = float(percentile), positive_float(seconds)
    except (ValueError, argparse.ArgumentTypeError):
        p, limit = math.nan, math.nan
    if not sep or not (0 < p <= 100) or not math.isfinite(limit):
        raise argparse.ArgumentTypeError(
            f"expected PERCENTILE:SECONDS (percentile in (0, 100]), got {text!r}"
        )
    return {"percentile": p, "maxSeconds": limit}


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


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """What running agents takes, the same for `assay run` and `assay answer` (one definition, so the two
    cannot drift apart): the agent, the tickets and repetitions, concurrency, prices, the gateway."""
    add = parser.add_argument
    add("--brain", help="brain directory (AGENTS.md and other files)")
    add("--agent", default="chat", choices=AGENT_KINDS)
    add("--model", help="the agent's model, through the gateway")
    add("--command", help="argv template for --agent command, e.g. 'python agent.py {prompt_file}'")
    add(
        "--continue-command",
        help="argv template of a conversation's later turns for --agent command, with {message} and "
        "{session}, e.g. 'python agent.py --resume {session} {message}'",
    )
    add("--answers", help="recorded answers for --agent replay")
    add("--timeout", type=float, default=600.0, help="seconds per ticket before the agent is killed")
    add("--tickets", type=tickets, default="all", help="training | validation | all | ids")
    add("--repetitions", "-k", type=repetitions, default=1)
    add("--concurrency", "-j", type=positive_int, default=4)
    add("--keep-workspaces", action="store_true", help="keep each ticket's workspace for debugging")
    add(
        "--isolation",
        choices=ISOLATION_LEVELS,
        default=None,
        help="required: refuse to start where the kernel cannot sandbox each agent fully (Landlock ABI 6); "
        "default best-effort: what the kernel has, recorded per cell",
    )
    add("--run-name")
    add("--quiet", "-q", action="store_true")
    add_cost_options(parser)
    add_gateway_options(parser)
    add_evidence_option(parser)


def add_evidence_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--evidence-key",
        metavar="FILE",
        help="the run's evidence key file (32+ random bytes no agent can read; default: a key of the local "
        "key store, $XDG_STATE_HOME/assay/evidence/, made by the phase that starts the run)",
    )


def with_evidence_key(config: RunConfig, key_file: str | None) -> RunConfig:
    """`--evidence-key FILE` over the RunConfig's `evidence.keyFile`."""
    if key_file is None:
        return config
    evidence = config.evidence.model_copy(update={"key_file": str(Path(key_file).absolute())})
    return config.model_copy(update={"evidence": evidence})


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


@dataclass(frozen=True)
class Finished:
    """What a verdict command (`run`, `score`, `gate`) returns: the result it finished in this process (its
    outputs written). The command line exits 0 only on one whose verdict is Pass — or Blocked from a
    RunConfig that asked for exit 0 (`output.blockedExitCode: 0`: a Job, where only "could not run" may fail
    the pod and the verdict travels in the RunSummary)."""

    result: Result
    blocked_exit_code: int = ExitCode.BLOCKED

    @property
    def exit_code(self) -> ExitCode:
        if self.result.verdict == "Pass":
            return ExitCode.PASS
        if self.blocked_exit_code == ExitCode.PASS and self.result.mode == "release":
            return ExitCode.PASS
        return ExitCode.BLOCKED


def finish(result: Result, **kwargs: Any) -> Result:
    """Write the result's outputs (and log it to MLflow when asked); the result with its MLflow reference."""
    from assay_runner.run.outputs import finish as finish_outputs

    return finish_outputs(result, **kwargs)


def mlflow_info(config: RunConfig) -> RunInfo | None:
    """Where a RunConfig's result is logged (None: not logged)."""
    if not config.mlflow.enabled:
        return None
    from assay_runner.io.tracking import RunInfo, default_tracking_uri, summary_params

    agent = config.agent
    params = summary_params(
        selection=config.tickets if isinstance(config.tickets, str) else ",".join(config.tickets),
        agent=agent.kind,
        model=agent.model,
        concurrency=config.concurrency,
        judgeModel=config.judge_model,
        gateway=config.gateway,
        timeoutSeconds=agent.timeout_seconds,
    )
    return RunInfo(
        tracking_uri=config.mlflow.tracking_uri or default_tracking_uri(),
        experiment=config.mlflow.experiment,
        run_name=config.run_name,
        params=params,
    )


def finish_run(result: Result, config: RunConfig, key: EvidenceKey | None) -> Finished:
    """A RunConfig's result finished where the config says (files, summary path, MLflow), authenticated with
    the run's evidence key (None: unauthenticated)."""
    finished = finish(
        result,
        out=Path(config.output.dir),
        summary_path=config.output.summary_path,
        mlflow=mlflow_info(config),
        key=key,
    )
    return Finished(finished, blocked_exit_code(finished, config.output.blocked_exit_code))


JOB_ENVIRONMENT = "ASSAY_JOB"
"""Set to 1 by the operator in the Job's judge container: there, and only there, `output.blockedExitCode: 0`
is honoured (a RunConfig file handed to `assay run --config` in CI must not turn a Blocked verdict into
exit 0)."""


def blocked_exit_code(result: Result, configured: int) -> int:
    """`output.blockedExitCode` as it counts in this process: 0 only in the operator's Job."""
    if configured != ExitCode.PASS or os.environ.get(JOB_ENVIRONMENT) == "1":
        return configured
    if result.verdict != "Pass" and result.mode == "release":
        print(
            "assay: warning: output.blockedExitCode 0 applies only in the operator's Job "
            f"({JOB_ENVIRONMENT}=1); the Blocked verdict exits 1",
            file=sys.stderr,
        )
    return ExitCode.BLOCKED


def add_registry_ca(parser: argparse.ArgumentParser) -> None:
    """The CA bundle for a private registry (`assay push`/`pull`, an `oci://` suite)."""
    parser.add_argument(
        "--registry-ca",
        type=Path,
        metavar="FILE",
        help="CA bundle (PEM) for a private registry (default: $ASSAY_REGISTRY_CA, else the system's)",
    )
