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
import atexit
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from assay_runner import __version__
from assay_runner.commands import (
    answer,
    calibrate,
    compare,
    evidence_key,
    gate,
    gateway_sidecar,
    judge,
    judges_check,
    labels,
    pull,
    push,
    report,
    run,
    score,
    split,
    validate,
)
from assay_runner.commands.options import Finished
from assay_runner.errors import AssayError, ExitCode, InputError

Handler = Callable[[argparse.Namespace], "int | Finished"]
TERMINATED = ExitCode.TERMINATED
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


COMMANDS = (
    validate,
    split,
    push,
    pull,
    answer,
    score,
    run,
    judge,
    gate,
    compare,
    judges_check,
    calibrate,
    labels,
    report,
    gateway_sidecar,
    evidence_key,
)
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


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """`command`: the one command whose arguments are built (the one the command line names,
    `named_command`); the others are listed (in `assay --help`, in an error's choices) but their arguments
    are not built, which would cost start-up a few milliseconds. None: every command is built."""
    parser = argparse.ArgumentParser(prog="assay", description="Evaluate AI agents and gate their release.")
    parser.add_argument("--version", action="version", version=f"assay {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    listing = commands if command is None else _Listing(commands, command)
    for module in COMMANDS:
        module.add_parser(listing)
    return parser


def named_command(argv: Sequence[str]) -> str | None:
    """The command the arguments name, as argparse reads them: the first argument that is not an option
    (the top level's options take no value). None after a `--`, where it is not worth telling."""
    for arg in argv:
        if arg == "--":
            return None
        if arg == "-" or not arg.startswith("-"):
            return arg
    return None


class _Listing:
    """The subcommands, with only `wanted`'s arguments built: every other command gets a parser with its
    name and help, and its module builds a stand-in that ignores every call."""

    def __init__(self, commands: argparse._SubParsersAction[argparse.ArgumentParser], wanted: str) -> None:
        self._commands = commands
        self._wanted = wanted

    def add_parser(self, name: str, **kwargs: Any) -> object:
        parser = self._commands.add_parser(name, **kwargs)
        return parser if self._wanted in (name, *kwargs.get("aliases", ())) else _Unbuilt()


class _Unbuilt:
    """A command's parser that is never used: adding arguments, groups, subcommands or defaults does
    nothing (and returns the stand-in again, for the calls that use what they return)."""

    def __getattr__(self, name: str) -> Callable[..., _Unbuilt]:
        return lambda *args, **kwargs: self


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(named_command(argv))
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
    exit_now(code)


def exit_now(code: int) -> NoReturn:
    """End the process with `code`, without the interpreter's teardown when nothing needs it.

    Tearing the interpreter down frees every object and module one by one (~10 ms after `assay run`, all
    of it between the verdict and the exit): the kernel frees them at once. What the usual exit does that
    matters is done here first: the atexit functions (logging's flush, coverage's data file, ...) run, and
    standard output and error are flushed. Everything this runner writes is written and closed when its
    command returns. The usual exit is kept when other work may still be under way: a thread the
    interpreter would wait for (a pool's worker, say), or MLflow (its own exit hooks, threads and database
    connections; its runs take seconds, these milliseconds are nothing there); and when a standard stream
    cannot be flushed (a closed pipe, a full disk), so that it is reported as before."""
    if "mlflow" in sys.modules or any(
        thread is not threading.main_thread() and not thread.daemon for thread in threading.enumerate()
    ):
        sys.exit(code)
    if not _flushed():
        sys.exit(code)
    atexit._run_exitfuncs()  # they run once: the interpreter's own exit, should it follow, has none left
    if not _flushed():
        sys.exit(code)
    os._exit(code)


def _flushed() -> bool:
    """Standard output and error flushed (False: one could not be, the usual exit reports it)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True


if __name__ == "__main__":
    console()
