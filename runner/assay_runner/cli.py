"""The `assay` command line.

Exit codes are a contract: 0 verdict Pass, 1 verdict Blocked, 2 bad input or could not run. Heavy modules
(MLflow, the HTTP client) are imported inside the commands that need them, so start-up stays fast.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from assay_runner.errors import AssayError, InputError

EXIT_PASS, EXIT_BLOCKED, EXIT_BAD_INPUT = 0, 1, 2

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


def write_outputs(result: object, out: Path | None) -> None:
    from assay_runner.contract import Result
    from assay_runner.summary import encode, summarise

    assert isinstance(result, Result)
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / "result.json").write_text(json.dumps(result.to_wire(), indent=2, ensure_ascii=False) + "\n")
    (out / "summary.json").write_bytes(encode(summarise(result)) + b"\n")
    print(f"wrote {out / 'result.json'}", file=sys.stderr)


def cmd_validate(args: argparse.Namespace) -> int:
    from assay_runner.suite import load_suite

    suite = load_suite(args.suite)
    splits = {s: sum(1 for t in suite.tickets if t.split == s) for s in ("training", "validation")}
    judges = ", ".join(f"{j.name} ({j.type_name()}, w={j.weight:g})" for j in suite.spec.judges)
    print(f"suite {suite.name!r} is valid: {len(suite.tickets)} tickets "
          f"({splits['training']} training, {splits['validation']} validation), {len(suite.kb)} KB articles")
    print(f"judges: {judges}")
    return EXIT_PASS


def cmd_score(args: argparse.Namespace) -> int:
    from assay_runner.score import score_answers
    from assay_runner.suite import load_suite
    from assay_runner.table import print_result

    suite = load_suite(args.suite)
    tickets = suite.select(args.tickets)
    answers_dir = Path(args.answers)
    client = _judge_client(args)
    result = asyncio.run(score_answers(suite, answers_dir, tickets, args.repetitions, client=client,
                                       judge_model=args.judge_model, concurrency=args.concurrency,
                                       run_name=args.run_name))
    write_outputs(result, args.out)
    if not args.quiet:
        print_result(result)
    return _exit_for(result.verdict)


def _judge_client(args: argparse.Namespace) -> object | None:
    """The model judge's client from --gateway / --cassettes; None leaves model judges erroring (blocks)."""
    factory = _client_factory()
    return factory(args) if factory is not None else None


def _client_factory() -> Callable[[argparse.Namespace], object | None] | None:
    try:
        from assay_runner.gateway.factory import client_from_args
    except ImportError:
        return None
    return client_from_args


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
    write_outputs(result, args.out)
    if not args.quiet:
        print_result(result)
    return _exit_for(result.verdict)


def cmd_judges_check(args: argparse.Namespace) -> int:
    from assay_runner.selftest import print_report, run_selftest
    from assay_runner.suite import load_suite

    report = run_selftest(load_suite(args.suite))
    print_report(report)
    return EXIT_PASS if report.ok else EXIT_BLOCKED


def _add_gateway_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gateway", help="OpenAI-compatible base URL for the model judge (and chat agent)")
    parser.add_argument("--judge-model", help="model name for model judges that do not name one")
    parser.add_argument("--cassettes", type=Path, help="directory of recorded model calls")
    parser.add_argument("--cassette-mode", choices=["off", "record", "replay", "replay-or-record"],
                        default=None, help="default: replay when --cassettes is given, else off")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assay", description="Evaluate AI agents and gate their release.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser("validate", help="check a suite without running anything")
    validate.add_argument("suite", help="suite directory (with suite.yaml)")
    validate.set_defaults(handler=cmd_validate)

    score = commands.add_parser("score", help="judge answers already on disk and apply the gate")
    score.add_argument("suite")
    score.add_argument("--answers", required=True, help="DIR/<ticket>/answer.md or DIR/<ticket>/<rep>/answer.md")
    score.add_argument("--repetitions", "-k", type=_positive_int, default=1)
    score.add_argument("--tickets", type=_tickets, default="all", help="training | validation | all | ids")
    score.add_argument("--concurrency", type=_positive_int, default=4)
    score.add_argument("--out", type=Path, help="write result.json and summary.json here")
    score.add_argument("--run-name", help="name of this candidate (default: the answers folder's name)")
    score.add_argument("--quiet", "-q", action="store_true", help="no table on the terminal")
    _add_gateway_options(score)
    score.set_defaults(handler=cmd_score)

    gate = commands.add_parser("gate", help="re-apply a gate to a stored result.json (nothing re-runs)")
    gate.add_argument("result")
    gate.add_argument("--min-score", type=_unit_float)
    gate.add_argument("--ticket-floor", type=_unit_float)
    gate.add_argument("--min-pass-hat-k", type=_unit_float)
    gate.add_argument("--threshold", type=_threshold, action="append", metavar="JUDGE=VALUE")
    gate.add_argument("--out", type=Path)
    gate.add_argument("--quiet", "-q", action="store_true")
    gate.set_defaults(handler=cmd_gate)

    judges = commands.add_parser("judges", help="judge utilities")
    judges_commands = judges.add_subparsers(dest="judges_command", required=True, metavar="COMMAND")
    check = judges_commands.add_parser("check", help="self-test every judge on known-good and known-bad answers")
    check.add_argument("suite")
    check.set_defaults(handler=cmd_judges_check)
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


if __name__ == "__main__":
    sys.exit(main())
