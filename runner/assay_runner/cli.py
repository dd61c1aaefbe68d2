"""The `assay` command line: one module per command under `assay_runner.commands`, dispatched from here.

Exit codes are a contract (`errors.ExitCode`): 0 verdict Pass, 1 verdict Blocked, 2 bad input or could not
run, 3 `assay judge` found nothing wrong with an ad-hoc answer (online, never a release verdict). A verdict
command (score, run, gate) returns the result it finished (`options.Finished`) and exits 0 only when its
verdict is Pass — `run` in a Job, configured with `blockedExitCode: 0`, is the one documented exception
for a Blocked result. The command modules import only the standard library at the top (the parser is
built without pydantic); everything heavy (models, MLflow, the HTTP client, rich) is imported by the
handler that needs it, so start-up stays fast.

A reader that stops reading (`assay validate SUITE | head -1`) ends the command quietly with 141, the code a
shell reports for a command killed by SIGPIPE — no traceback, and no half-written verdict passed off as
complete.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence

from assay_runner import __version__
from assay_runner.commands import (
    answer,
    compare,
    gate,
    gateway_sidecar,
    judge,
    judges_check,
    report,
    run,
    score,
    split,
    validate,
)
from assay_runner.commands.options import Finished
from assay_runner.errors import AssayError, ExitCode, InputError

Handler = Callable[[argparse.Namespace], "int | Finished"]
TERMINATED = 128 + signal.SIGTERM
"""The exit code of a command SIGTERM ended before it could stop cleanly (the code a shell reports)."""


class Terminated(BaseException):
    """SIGTERM came while no phase was listening for it (start-up, or after the phase ended)."""


def _terminate(_signum: int, _frame: object) -> None:
    raise Terminated


def terminate_on_sigterm() -> None:
    """End on SIGTERM, as a process does by default — which the first process of a container (its PID
    namespace's init) does not: the kernel drops a signal init has no handler for, so a pod deleted while
    the runner starts would wait out its whole grace period. The phases that stop cleanly on SIGTERM put
    this handler back when they end (`commands.run.until_stopped`)."""
    signal.signal(signal.SIGTERM, _terminate)


COMMANDS = (validate, split, answer, score, run, judge, gate, compare, judges_check, report, gateway_sidecar)
VERDICT_COMMANDS = frozenset({"score", "run", "gate"})


def _stdout_is_devnull() -> bool:
    """rich answers a broken pipe by pointing stdout at /dev/null and raising SystemExit(1)."""
    try:
        return os.path.samestat(os.fstat(sys.stdout.fileno()), os.stat(os.devnull))
    except (OSError, ValueError):
        return False


def _reader_gone() -> int:
    """Stop writing to a pipe nobody reads (the interpreter's last flush would raise again)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return ExitCode.READER_GONE


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
    try:
        outcome = handler(args)
    except InputError as exc:
        print(f"assay: error: bad input\n{exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except AssayError as exc:
        print(f"assay: error: {exc}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("assay: interrupted", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except Terminated:
        print("assay: terminated (SIGTERM)", file=sys.stderr)
        return TERMINATED
    except BrokenPipeError:
        return _reader_gone()
    except SystemExit as exc:  # only argparse may end the process, and it ran before the handler
        if _stdout_is_devnull() and exc.code == 1:
            return _reader_gone()
        print(f"assay: error: could not run (something called sys.exit({exc.code!r}))", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except Exception:  # could not run: say so loudly, never exit 0
        traceback.print_exc()
        print("assay: error: could not run (see the traceback above)", file=sys.stderr)
        return ExitCode.BAD_INPUT
    return exit_code(args.command, outcome)


def exit_code(command: str, outcome: int | Finished) -> int:
    """A verdict command's exit code comes from the result it finished, never from a bare number: exit 0
    stands only on a result written in this process (`options.Finished`)."""
    if isinstance(outcome, Finished):
        return int(outcome.exit_code)
    if command in VERDICT_COMMANDS:
        print("assay: error: could not run (no result with a Pass verdict was written)", file=sys.stderr)
        return ExitCode.BAD_INPUT
    return outcome


def console() -> None:
    """The `assay` console script: `main()` with the collector schedule of a short-lived process, owning
    its process (so the phases that run agents may sweep what agents leave behind), ended by SIGTERM even
    as a container's first process."""
    terminate_on_sigterm()
    from assay_runner.collector import SCHEDULE
    from assay_runner.processes import CONTAINMENT

    # Pydantic scans every installed distribution's entry points for plugins on first use (~20 ms here);
    # Assay uses none. PYDANTIC_DISABLE_PLUGINS set to anything else (even empty) keeps the scan.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    SCHEDULE.begin_startup()
    CONTAINMENT.owner = True
    code = main()
    SCHEDULE.before_exit()
    sys.exit(code)


if __name__ == "__main__":
    console()
