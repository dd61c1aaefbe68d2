"""`assay run SUITE --brain DIR --agent KIND`: a whole evaluation, agents then judges then the gate.

The flags (or a RunConfig file, as the operator renders it) become one `RunConfig`; SIGINT and SIGTERM stop
the evaluation cleanly (finished cells are kept, the rest are recorded as incomplete).

One process holds the agents and the answer keys: a local run is not a trust boundary (an agent with a
file tool can read the suite). `assay answer` and `assay score --config` are the two halves the cluster
runs on either side of one (see docs/trust-model.md).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from assay_runner.commands import options
from assay_runner.commands.options import Finished, Subcommands
from assay_runner.errors import InputError

if TYPE_CHECKING:
    from assay_runner.contract import RunConfig, Usage
    from assay_runner.run.answer_loop import Control
    from assay_runner.run.preparation import Prepared

T = TypeVar("T")


def add_parser(commands: Subcommands) -> None:
    run_parser = commands.add_parser(
        "run", help="run an agent on every ticket, judge the answers, apply the gate"
    )
    add = run_parser.add_argument
    add("suite", nargs="?", help="suite directory or oci://REGISTRY/REPO@sha256:... (or use --config)")
    add("--config", type=Path, help="a RunConfig file (YAML or JSON), as the operator renders it")
    add("--out", type=Path, default=Path("assay-out"), help="where result.json and summary.json go")
    add("--summary-path", help="also write the RunSummary here (e.g. /dev/termination-log)")
    add(
        "--mlflow",
        metavar="TRACKING_URI",
        help="MLflow tracking URI (default: $MLFLOW_TRACKING_URI, else ./mlflow.db)",
    )
    add("--experiment", default="assay", help="MLflow experiment (default: assay)")
    add("--no-mlflow", action="store_true", help="do not log to MLflow")
    add("--require-mlflow", action="store_true", help="block the verdict when logging fails")
    add(
        "--resume",
        type=Path,
        metavar="DIR",
        help="an earlier run's --out folder: keep its cells judged without error (same inputs), run the rest",
    )
    options.add_agent_options(run_parser)
    options.add_registry_ca(run_parser)
    run_parser.set_defaults(handler=run)


def run_config_from_args(args: argparse.Namespace) -> RunConfig:
    from assay_runner.contract import checked_gateway_url
    from assay_runner.io.runconfig import read_run_config

    if args.config is not None:
        if args.suite is not None:
            raise InputError("give either a SUITE and flags, or --config FILE, not both")
        config = read_run_config(args.config)
        from assay_runner.run.isolation import protect

        protect(args.config)  # the agents' sandbox keeps it out of reach
        if args.no_mlflow:  # an explicit flag wins over the file
            config = config.model_copy(update={"mlflow": config.mlflow.model_copy(update={"enabled": False})})
        if config.gateway is None and os.environ.get(options.GATEWAY_ENV):
            # The operator passes the gateway as environment, not in the file: the CLI presets need it too.
            gateway = checked_gateway_url(os.environ[options.GATEWAY_ENV], f"${options.GATEWAY_ENV}")
            config = config.model_copy(update={"gateway": gateway})
        if getattr(args, "isolation", None) == "required":  # a flag may ask for more, never for less
            config = config.model_copy(update={"isolation": "required"})
        return options.with_evidence_key(config, args.evidence_key)
    if args.suite is None:
        raise InputError("give a SUITE directory (or --config FILE)")
    cassettes = (
        {"dir": str(args.cassettes), "mode": args.cassette_mode or "replay"} if args.cassettes else None
    )
    # Validated as one document: building each nested model on its own would build its validator twice.
    return options.config_from_flags(
        {
            "run_name": args.run_name,
            "suite": args.suite,
            "brain": args.brain,
            "tickets": args.tickets,
            "agent": {
                "kind": args.agent,
                "model": args.model,
                "timeout_seconds": args.timeout,
                "command": shlex.split(args.command) if args.command else None,
                "continue_command": shlex.split(args.continue_command) if args.continue_command else None,
                "answers": args.answers,
            },
            "repetitions": args.repetitions,
            "concurrency": args.concurrency,
            "gateway": args.gateway or os.environ.get(options.GATEWAY_ENV),
            "judge_model": args.judge_model,
            "cassettes": cassettes,
            "mlflow": {
                "tracking_uri": args.mlflow,
                "experiment": args.experiment,
                "enabled": not args.no_mlflow,
            },
            "gate": {"require_mlflow": True if args.require_mlflow else None},
            "prices": dict(args.price),
            "max_cost_usd": args.max_cost_usd,
            "isolation": getattr(args, "isolation", None) or "best-effort",
            "output": {
                "dir": str(args.out),
                "summary_path": args.summary_path,
                "keep_workspaces": args.keep_workspaces,
            },
            "evidence": {"key_file": str(Path(args.evidence_key).absolute()) if args.evidence_key else None},
        }
    )


def prepare_cell_groups(config: RunConfig) -> None:
    """A program agent's first cells' cgroups, made on a thread of their own while the rest of start-up runs
    (`cgroup.CellGroups.prepare`: one per slot), so that the first agents start together."""
    from assay_runner.cgroup import CELL_GROUPS
    from assay_runner.vocabulary import PROGRAM_KINDS

    if config.agent.kind in PROGRAM_KINDS:
        CELL_GROUPS.prepare(config.concurrency)


async def until_stopped(
    prepared: Prepared,
    quiet: bool,
    phase: Callable[[Prepared, Control], Awaitable[T]],
    control: Control | None = None,
) -> T:
    """Run `phase` (the whole evaluation, or the answer phase) with progress on the terminal; SIGINT and
    SIGTERM ask it to stop cleanly (finished cells are kept), and `control.signal` says which did."""
    import asyncio

    from assay_runner.agents.process import pidfd_child_watcher
    from assay_runner.processes import CONTAINMENT
    from assay_runner.run.answer_loop import Control
    from assay_runner.views.progress import progress_display

    CONTAINMENT.contain()  # in the `assay` command: agents' orphans come to this process, to be swept
    control = control or Control()
    loop = asyncio.get_running_loop()
    stopping = (signal.SIGINT, signal.SIGTERM)
    before = {sig: signal.getsignal(sig) for sig in stopping}
    for sig in stopping:
        loop.add_signal_handler(sig, control.interrupt, int(sig))
    try:
        with pidfd_child_watcher(), progress_display(quiet) as counts:
            control.counts = counts
            return await phase(prepared, control)
    finally:
        for sig in stopping:
            loop.remove_signal_handler(sig)  # which leaves SIGTERM at its default: ignored by a container's
            if before[sig] is not None:  # init, so the handler it had before is put back
                signal.signal(sig, before[sig])


def _preflight(config: RunConfig) -> Usage | None:
    """For the CLI presets: the CLI is installed and the gateway speaks its protocol (else exit code 2)."""
    from assay_runner.vocabulary import PRESET_KINDS

    agent = config.agent
    if agent.kind not in PRESET_KINDS or not config.gateway or not agent.model:
        return None  # nothing to check, or build_agent reports what is missing
    from assay_runner.agents.preflight import preflight

    return preflight(agent.kind, config.gateway, agent.model)


def run(args: argparse.Namespace) -> Finished:
    import asyncio

    from assay_runner.contract.oci_reference import OCI_SCHEME
    from assay_runner.core.independence import judge_model_warnings
    from assay_runner.io.destinations import check_destinations
    from assay_runner.io.evidence_keys import named_key, new_stored_key
    from assay_runner.run.preparation import prepare

    config = run_config_from_args(args)
    prepare_cell_groups(config)
    artifact = None
    if config.suite.startswith(OCI_SCHEME):  # the registry client and tar only for a suite that needs them
        from assay_runner.io.suite_artifact import resolve_suite

        folder, artifact = resolve_suite(config.suite, getattr(args, "registry_ca", None))
        # Pulled by digest into the cache: from here on a folder like any other.
        config = config.model_copy(update={"suite": folder})
    named = named_key(config.evidence.key_file)
    check_destinations(Path(config.output.dir), config.output.summary_path)
    prepared = prepare(config, suite_artifact=artifact)
    # Checked before any agent runs: a suite that requires an independent judge fails fast.
    warnings = judge_model_warnings(prepared.suite, config.judge_model, config.agent.model)
    from assay_runner.run.spending import check_run_prices

    # Every model priced (with a price table or a budget) before the preflight's call, the run's first spend.
    check_run_prices(prepared)
    preflight_usage = _preflight(config)
    from assay_runner.run.evaluation import run_evaluation

    earlier = None
    if args.resume is not None:
        from assay_runner.run.evidence import authenticated_result

        earlier = authenticated_result(
            args.resume / "result.json" if args.resume.is_dir() else args.resume, named
        )
    key = named or new_stored_key()  # the run's evidence key: it authenticates result.json
    phase = partial(run_evaluation, resume=earlier)
    result = asyncio.run(until_stopped(prepared, args.quiet, phase))
    result = result.model_copy(update={"warnings": [*result.warnings, *warnings]})
    if preflight_usage is not None:
        # The preflight call is the run's too: its tokens (and their price) join the run's usage.
        extra = preflight_usage.priced(prepared.agent_price)
        result = result.model_copy(update={"usage": result.usage.plus(extra)})
    finished = options.finish_run(result, config, key)
    if not args.quiet:
        from assay_runner.views.table import print_result  # rich's table only after the agents ran

        print_result(finished.result)
    return finished
