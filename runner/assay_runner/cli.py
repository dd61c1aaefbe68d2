"""The `assay` command line: one module per command under `assay_runner.commands`, dispatched from here.

Exit codes are a contract: 0 verdict Pass, 1 verdict Blocked, 2 bad input or could not run, 3 `assay judge`
found nothing wrong with an ad-hoc answer (online, never a release verdict). A verdict command (score, run,
gate) exits 0 only when it finished (wrote) a result in this process whose verdict is Pass — `run` in a
Job, configured with `blockedExitCode: 0`, is the one documented exception for a Blocked result. Heavy modules
(MLflow, the HTTP client, rich) are imported inside the commands that need them, so start-up stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from assay_runner import __version__
from assay_runner.commands import (
    answer,
    compare,
    gate,
    judge,
    judges_check,
    options,
    report,
    run,
    score,
    split,
    validate,
)
from assay_runner.commands.options import EXIT_BAD_INPUT, EXIT_PASS
from assay_runner.errors import AssayError, InputError

Handler = Callable[[argparse.Namespace], int]
COMMANDS = (validate, split, answer, score, run, judge, gate, compare, judges_check, report)
VERDICT_COMMANDS = frozenset({"score", "run", "gate"})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assay", description="Evaluate AI agents and gate their release.")
    parser.add_argument("--version", action="version", version=f"assay {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    options.FINISHED.clear()
    options.BLOCKED_BUT_ZERO.clear()
    try:
        code = handler(args)
    except InputError as exc:
        print(f"assay: error: bad input\n{exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except AssayError as exc:
        print(f"assay: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("assay: interrupted", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as exc:  # only argparse may end the process, and it ran before the handler
        print(f"assay: error: could not run (something called sys.exit({exc.code!r}))", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception:  # could not run: say so loudly, never exit 0
        traceback.print_exc()
        print("assay: error: could not run (see the traceback above)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if code == EXIT_PASS and args.command in VERDICT_COMMANDS and not _finished_a_pass():
        print("assay: error: could not run (no result with a Pass verdict was written)", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code


def _finished_a_pass() -> bool:
    """Exit 0 stands only on a finished result: Pass, or Blocked from a RunConfig that asked for exit 0 (a
    Job's `assay run` or judge phase)."""
    if not options.FINISHED:
        return False
    last = options.FINISHED[-1]
    return last.verdict == "Pass" or any(last is blocked for blocked in options.BLOCKED_BUT_ZERO)


def console() -> None:
    """The `assay` console script: `main()` with the collector schedule of a short-lived process."""
    from assay_runner.collector import SCHEDULE

    # Pydantic scans every installed distribution's entry points for plugins on first use (~20 ms here);
    # Assay uses none. PYDANTIC_DISABLE_PLUGINS set to anything else (even empty) keeps the scan.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    SCHEDULE.begin_startup()
    code = main()
    SCHEDULE.before_exit()
    sys.exit(code)


if __name__ == "__main__":
    console()
