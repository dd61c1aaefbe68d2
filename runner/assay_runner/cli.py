"""The `assay` command line: one module per command under `assay_runner.commands`, dispatched from here.

Exit codes are a contract: 0 verdict Pass, 1 verdict Blocked, 2 bad input or could not run. Heavy modules
(MLflow, the HTTP client, rich) are imported inside the commands that need them, so start-up stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from assay_runner.commands import (
    answer,
    compare,
    gate,
    judge,
    judges_check,
    report,
    run,
    score,
    split,
    validate,
)
from assay_runner.commands.options import EXIT_BAD_INPUT
from assay_runner.errors import AssayError, InputError

Handler = Callable[[argparse.Namespace], int]
COMMANDS = (validate, split, answer, score, run, judge, gate, compare, judges_check, report)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="assay", description="Evaluate AI agents and gate their release.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
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
    from assay_runner.run import collector

    # Pydantic scans every installed distribution's entry points for plugins on first use (~20 ms here);
    # Assay uses none. PYDANTIC_DISABLE_PLUGINS set to anything else (even empty) keeps the scan.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    collector.pause()
    code = main()
    collector.before_exit()
    sys.exit(code)


if __name__ == "__main__":
    console()
