"""The `assay` command line.

Exit codes are a contract: 0 verdict Pass, 1 verdict Blocked, 2 bad input or could not run. Heavy modules
(MLflow, the HTTP client) are imported inside the commands that need them, so start-up stays fast.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay_runner.errors import AssayError, InputError

if TYPE_CHECKING:
    from assay_runner.contract import Result, RunConfig
    from assay_runner.gateway.access import ModelAccess
    from assay_runner.tracking import RunInfo

EXIT_PASS, EXIT_BLOCKED, EXIT_BAD_INPUT = 0, 1, 2
DEFAULT_STORE = "default"

Handler = Callable[[argparse.Namespace], int]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _unit_float(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {value}")
    return value


def _threshold(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected JUDGE=VALUE, got {text!r}")
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None


def _tickets(text: str) -> str | list[str]:
    if text in ("training", "validation", "all"):
        return text
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids:
        raise argparse.ArgumentTypeError("give training, validation, all, or comma-separated ticket ids")
    return ids


def _exit_for(verdict: str) -> int:
    return EXIT_PASS if verdict == "Pass" else EXIT_BLOCKED


def finish(result: Result, **kwargs: Any) -> Result:
    from assay_runner.outputs import finish as finish_outputs

    return finish_outputs(result, **kwargs)


def _score_mlflow_info(args: argparse.Namespace) -> RunInfo | None:
    if args.mlflow is None:
        return None
    from assay_runner.tracking import RunInfo, default_tracking_uri

    uri = default_tracking_uri() if args.mlflow == DEFAULT_STORE else args.mlflow
    return RunInfo(tracking_uri=uri, experiment=args.experiment, run_name=args.run_name)


def cmd_validate(args: argparse.Namespace) -> int:
    from assay_runner.suite import load_suite

    suite = load_suite(args.suite)
    splits = {s: sum(1 for t in suite.tickets if t.split == s) for s in ("training", "validation")}
    judges = ", ".join(f"{j.name} ({j.type_name()}, w={j.weight:g})" for j in suite.spec.judges)
    print(
        f"suite {suite.name!r} is valid: {len(suite.tickets)} tickets "
        f"({splits['training']} training, {splits['validation']} validation), {len(suite.kb)} KB articles"
    )
    print(f"judges: {judges}")
    return EXIT_PASS


def cmd_score(args: argparse.Namespace) -> int:
    from assay_runner.score import score_answers
    from assay_runner.suite import load_suite
    from assay_runner.table import print_result

    suite = load_suite(args.suite)
    tickets = suite.select(args.tickets)
    answers_dir = Path(args.answers)
    result = asyncio.run(
        score_answers(
            suite,
            answers_dir,
            tickets,
            args.repetitions,
            access=_model_access(args),
            judge_model=args.judge_model,
            concurrency=args.concurrency,
            run_name=args.run_name,
        )
    )
    result = finish(result, out=args.out, mlflow=_score_mlflow_info(args))
    if not args.quiet:
        print_result(result)
    return _exit_for(result.verdict)


def _model_access(args: argparse.Namespace) -> ModelAccess:
    """The model client from --gateway / --cassettes; without either, model judges error and block."""
    from assay_runner.gateway.access import model_access

    return model_access(args.gateway, args.cassettes, args.cassette_mode)


def run_config_from_args(args: argparse.Namespace) -> RunConfig:
    from assay_runner.contract import RunConfig
    from assay_runner.runconfig import read_run_config

    if args.config is not None:
        if args.suite is not None:
            raise InputError("give either a SUITE and flags, or --config FILE, not both")
        config = read_run_config(args.config)
        if args.no_mlflow:  # an explicit flag wins over the file
            config = config.model_copy(update={"mlflow": config.mlflow.model_copy(update={"enabled": False})})
        return config
    if args.suite is None:
        raise InputError("give a SUITE directory (or --config FILE)")
    cassettes = (
        {"dir": str(args.cassettes), "mode": args.cassette_mode or "replay"} if args.cassettes else None
    )
    # Validated as one document: building each nested model on its own would build its validator twice.
    return RunConfig.model_validate(
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
                "answers": args.answers,
            },
            "repetitions": args.repetitions,
            "concurrency": args.concurrency,
            "gateway": args.gateway or os.environ.get("ASSAY_GATEWAY_URL"),
            "judge_model": args.judge_model,
            "cassettes": cassettes,
            "mlflow": {
                "tracking_uri": args.mlflow,
                "experiment": args.experiment,
                "enabled": not args.no_mlflow,
            },
            "gate": {"require_mlflow": True if args.require_mlflow else None},
            "output": {
                "dir": str(args.out),
                "summary_path": args.summary_path,
                "keep_workspaces": args.keep_workspaces,
            },
        }
    )


async def _run_until_stopped(config: RunConfig, quiet: bool) -> Result:
    from assay_runner.agents.process import pidfd_child_watcher
    from assay_runner.orchestrator import Evaluation, run_evaluation
    from assay_runner.progress import progress_display

    evaluation = Evaluation(config=config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, evaluation.stop.set)
    try:
        with pidfd_child_watcher(), progress_display(quiet) as counts:
            evaluation.progress = counts
            return await run_evaluation(evaluation)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


def cmd_run(args: argparse.Namespace) -> int:
    config = run_config_from_args(args)
    result = asyncio.run(_run_until_stopped(config, args.quiet))
    result = finish(
        result,
        out=Path(config.output.dir),
        summary_path=config.output.summary_path,
        mlflow=_mlflow_info(config),
    )
    if not args.quiet:
        from assay_runner.table import print_result  # rich's table only after the agents ran

        print_result(result)
    return EXIT_PASS if result.verdict == "Pass" else config.output.blocked_exit_code


def cmd_judge(args: argparse.Namespace) -> int:
    from assay_runner.online import judge_online
    from assay_runner.suite import load_suite
    from assay_runner.table import print_result

    suite = load_suite(args.suite)
    try:
        answer = Path(args.answer).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--answer {args.answer}: {exc.strerror or exc}") from None
    result = asyncio.run(
        judge_online(
            suite,
            args.question,
            answer,
            exit_code=args.exit_code,
            access=_model_access(args),
            judge_model=args.judge_model,
        )
    )
    result = finish(result, out=args.out)
    if not args.quiet:
        print_result(result)
        skipped = [n for n, s in result.judges.items() if s.applicable_tickets == 0]
        if skipped:
            print(f"not run without an answer key: {', '.join(skipped)}")
    return _exit_for(result.verdict)


def _mlflow_info(config: RunConfig) -> RunInfo | None:
    if not config.mlflow.enabled:
        return None
    from assay_runner.tracking import RunInfo, default_tracking_uri, summary_params

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


def cmd_compare(args: argparse.Namespace) -> int:
    from assay_runner.compare import candidate_name, standing
    from assay_runner.decision import decide, decision_json, parse_key
    from assay_runner.regate import read_result

    key = parse_key(args.key)
    candidates = []
    for path in map(Path, args.results):
        result = read_result(path)
        candidates.append(standing(candidate_name(result, path), result))
    names = [c.name for c in candidates]
    if len(set(names)) != len(names):
        raise InputError(f"candidate names must differ (they come from runName or the folder): {names}")
    incumbent = None
    if args.incumbent is not None:
        path = Path(args.incumbent)
        result = read_result(path)
        incumbent = standing(candidate_name(result, path), result)
    decision = decide(candidates, incumbent, key, args.on_tie)
    if args.json:
        print(json.dumps(decision_json(decision), indent=2))
    else:
        from assay_runner.compare_table import print_decision

        print_decision(decision)
    return EXIT_PASS if decision.promote else EXIT_BLOCKED


def cmd_gate(args: argparse.Namespace) -> int:
    from assay_runner.regate import read_result, regate
    from assay_runner.table import print_result

    result = regate(
        read_result(Path(args.result)),
        min_score=args.min_score,
        ticket_floor=args.ticket_floor,
        thresholds=dict(args.threshold or []),
        min_pass_hat_k=args.min_pass_hat_k,
    )
    result = finish(result, out=args.out)
    if not args.quiet:
        print_result(result)
    return _exit_for(result.verdict)


def cmd_report(args: argparse.Namespace) -> int:
    """Render result.json as one self-contained HTML page; exits 0 once written, whatever the verdict."""
    from assay_runner.regate import read_result
    from assay_runner.report import render_report

    source = Path(args.result)
    page = render_report(read_result(source))
    target = args.output or source.with_name("report.html")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"-o {target}: {exc.strerror or exc}") from None
    print(f"wrote {target}", file=sys.stderr)
    return EXIT_PASS


def cmd_judges_check(args: argparse.Namespace) -> int:
    from assay_runner.selftest import print_report, run_selftest
    from assay_runner.suite import load_suite

    report = run_selftest(load_suite(args.suite))
    print_report(report)
    return EXIT_PASS if report.ok else EXIT_BLOCKED


def _add_gateway_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gateway", help="OpenAI-compatible base URL for the model judge (and chat agent)")
    parser.add_argument(
        "--judge-model",
        default=os.environ.get("ASSAY_JUDGE_MODEL"),
        help="model for model judges that do not name one (env ASSAY_JUDGE_MODEL)",
    )
    parser.add_argument("--cassettes", type=Path, help="directory of recorded model calls")
    parser.add_argument(
        "--cassette-mode",
        choices=["off", "record", "replay", "replay-or-record"],
        default=None,
        help="default: replay when --cassettes is given, else off",
    )


def _add_validate_command(commands: Any) -> None:

    validate = commands.add_parser("validate", help="check a suite without running anything")
    validate.add_argument("suite", help="suite directory (with suite.yaml)")
    validate.set_defaults(handler=cmd_validate)


def _add_score_command(commands: Any) -> None:
    score = commands.add_parser("score", help="judge answers already on disk and apply the gate")
    score.add_argument("suite")
    score.add_argument(
        "--answers", required=True, help="DIR/<ticket>/answer.md or DIR/<ticket>/<rep>/answer.md"
    )
    score.add_argument("--repetitions", "-k", type=_positive_int, default=1)
    score.add_argument("--tickets", type=_tickets, default="all", help="training | validation | all | ids")
    score.add_argument("--concurrency", type=_positive_int, default=4)
    score.add_argument("--out", type=Path, help="write result.json and summary.json here")
    score.add_argument("--run-name", help="name of this candidate (default: the answers folder's name)")
    score.add_argument(
        "--mlflow",
        nargs="?",
        const=DEFAULT_STORE,
        metavar="TRACKING_URI",
        help="log to MLflow (default store: $MLFLOW_TRACKING_URI or ./mlflow.db)",
    )
    score.add_argument("--experiment", default="assay", help="MLflow experiment (default: assay)")
    score.add_argument("--quiet", "-q", action="store_true", help="no table on the terminal")
    _add_gateway_options(score)
    score.set_defaults(handler=cmd_score)


def _add_run_command(commands: Any) -> None:
    run = commands.add_parser("run", help="run an agent on every ticket, judge the answers, apply the gate")
    run.add_argument("suite", nargs="?", help="suite directory (or use --config)")
    run.add_argument(
        "--config", type=Path, help="a RunConfig file (YAML or JSON), as the operator renders it"
    )
    run.add_argument("--brain", help="brain directory (AGENTS.md and other files)")
    run.add_argument(
        "--agent", default="chat", choices=["command", "opencode", "claude-code", "codex", "chat", "replay"]
    )
    run.add_argument("--model", help="the agent's model, through the gateway")
    run.add_argument(
        "--command", help="argv template for --agent command, e.g. 'python agent.py {prompt_file}'"
    )
    run.add_argument("--answers", help="recorded answers for --agent replay")
    run.add_argument(
        "--timeout", type=float, default=600.0, help="seconds per ticket before the agent is killed"
    )
    run.add_argument("--tickets", type=_tickets, default="all", help="training | validation | all | ids")
    run.add_argument("--repetitions", "-k", type=_positive_int, default=1)
    run.add_argument("--concurrency", "-j", type=_positive_int, default=4)
    run.add_argument(
        "--out", type=Path, default=Path("assay-out"), help="where result.json and summary.json go"
    )
    run.add_argument("--summary-path", help="also write the RunSummary here (e.g. /dev/termination-log)")
    run.add_argument(
        "--keep-workspaces", action="store_true", help="keep each ticket's workspace for debugging"
    )
    run.add_argument("--run-name")
    run.add_argument(
        "--mlflow",
        metavar="TRACKING_URI",
        help="MLflow tracking URI (default: $MLFLOW_TRACKING_URI, else ./mlflow.db)",
    )
    run.add_argument("--experiment", default="assay", help="MLflow experiment (default: assay)")
    run.add_argument("--no-mlflow", action="store_true", help="do not log to MLflow")
    run.add_argument("--require-mlflow", action="store_true", help="block the verdict when logging fails")
    run.add_argument("--quiet", "-q", action="store_true")
    _add_gateway_options(run)
    run.set_defaults(handler=cmd_run)


def _add_judge_command(commands: Any) -> None:
    judge = commands.add_parser(
        "judge", help="judge one ad-hoc answer with no answer key (online; not a release)"
    )
    judge.add_argument("suite")
    judge.add_argument("--question", required=True, help="the question the answer replies to")
    judge.add_argument("--answer", required=True, help="file holding the answer (markdown)")
    judge.add_argument("--exit-code", type=int, help="the agent's exit code, when known")
    judge.add_argument("--out", type=Path)
    judge.add_argument("--quiet", "-q", action="store_true")
    _add_gateway_options(judge)
    judge.set_defaults(handler=cmd_judge)


def _add_gate_command(commands: Any) -> None:
    gate = commands.add_parser("gate", help="re-apply a gate to a stored result.json (nothing re-runs)")
    gate.add_argument("result")
    gate.add_argument("--min-score", type=_unit_float)
    gate.add_argument("--ticket-floor", type=_unit_float)
    gate.add_argument("--min-pass-hat-k", type=_unit_float)
    gate.add_argument("--threshold", type=_threshold, action="append", metavar="JUDGE=VALUE")
    gate.add_argument("--out", type=Path)
    gate.add_argument("--quiet", "-q", action="store_true")
    gate.set_defaults(handler=cmd_gate)


def _add_report_command(commands: Any) -> None:
    report = commands.add_parser("report", help="render a result.json as a self-contained HTML page")
    report.add_argument("result", help="a result.json from assay score, run, judge or gate")
    report.add_argument(
        "--output", "-o", type=Path, help="where the page goes (default: report.html next to the result)"
    )
    report.set_defaults(handler=cmd_report)


def _add_judges_command(commands: Any) -> None:
    judges = commands.add_parser("judges", help="judge utilities")
    judges_commands = judges.add_subparsers(dest="judges_command", required=True, metavar="COMMAND")
    check = judges_commands.add_parser(
        "check", help="self-test every judge on known-good and known-bad answers"
    )
    check.add_argument("suite")
    check.set_defaults(handler=cmd_judges_check)


def _add_compare_command(commands: Any) -> None:
    compare = commands.add_parser("compare", help="rank candidates by the release key and decide promotion")
    compare.add_argument("results", nargs="+", metavar="RESULT.json", help="one result.json per candidate")
    compare.add_argument("--incumbent", metavar="RESULT.json", help="the result of what is released now")
    compare.add_argument(
        "--key",
        default="fully-resolved,mean",
        help="ordered reductions the gate uses: fully-resolved, mean, lowest-ticket, "
        "judges-passing (default: fully-resolved,mean)",
    )
    compare.add_argument(
        "--on-tie",
        choices=["keep", "full-key"],
        default="keep",
        help="when the winner only matches the incumbent on the primary key: keep it (default) "
        "or decide on the rest of the key",
    )
    compare.add_argument("--json", action="store_true", help="print the decision as JSON")
    compare.set_defaults(handler=cmd_compare)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assay", description="Evaluate AI agents and gate their release.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_validate_command(commands)
    _add_score_command(commands)
    _add_run_command(commands)
    _add_judge_command(commands)
    _add_gate_command(commands)
    _add_compare_command(commands)
    _add_judges_command(commands)
    _add_report_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except InputError as exc:
        print(f"assay: error: bad input\n{exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except AssayError as exc:
        print(f"assay: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("assay: interrupted", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception:  # could not run: say so loudly, never exit 0
        traceback.print_exc()
        print("assay: error: could not run (see the traceback above)", file=sys.stderr)
        return EXIT_BAD_INPUT


def console() -> None:
    """The `assay` console script: `main()` with the collector schedule of a short-lived process."""
    from assay_runner import collector

    # Pydantic scans every installed distribution's entry points for plugins on first use (~20 ms here);
    # Assay uses none. PYDANTIC_DISABLE_PLUGINS set to anything else (even empty) keeps the scan.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    collector.pause()
    code = main()
    collector.before_exit()
    sys.exit(code)


if __name__ == "__main__":
    console()
