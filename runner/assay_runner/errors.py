"""The exit codes and the exception hierarchy. Each error says what is wrong and where; the CLI maps them to
exit codes. Standard library only: the command line imports this before anything heavy."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path


class ExitCode(IntEnum):
    """The `assay` command's exit codes (a contract: CI scripts and the operator's Job read them)."""

    PASS = 0
    """Verdict Pass (`assay compare`: a promotion was decided)."""
    BLOCKED = 1
    """Verdict Blocked (`assay compare`: no promotion)."""
    BAD_INPUT = 2
    """Bad input, or the evaluation could not run: a retry of the same input cannot help."""
    ONLINE_PASS = 3
    """`assay judge` found nothing wrong with an ad-hoc answer (online, never a release verdict)."""
    READER_GONE = 141
    """128 + SIGPIPE: the command's reader closed the pipe (`assay validate SUITE | head -1`), as a shell
    reports a command killed by SIGPIPE; no verdict is claimed."""
    TERMINATED = 143
    """128 + SIGTERM: SIGTERM ended the command before it finished. `assay answer` exits so once it has
    recorded the cells it cut off: not done, so the Job retries the shard, which resumes (the operator names
    it in a shard's failure)."""


EXIT_TIMEOUT = 124
"""An agent killed at its timeout, as coreutils' timeout(1) reports it; the exit-code judge names it."""


class AssayError(Exception):
    """Base of every error Assay raises on purpose."""

    exit_code: ExitCode = ExitCode.BAD_INPUT


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: the file, where in it, and what."""

    file: str
    location: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        loc = f" {self.location}:" if self.location else ""
        return f"{where}:{loc} {self.message}"


class InputError(AssayError):
    """Bad input (suite, answers, result file, flags): nothing runs, exit code 2."""

    def __init__(self, problems: list[Problem] | str) -> None:
        self.problems = [Problem("", "", problems)] if isinstance(problems, str) else problems
        super().__init__("\n".join(str(p).lstrip(": ") for p in self.problems))


class JudgeError(AssayError):
    """A judge could not produce a score; recorded on the verdict, never raised past the scorer."""


def describe(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def not_a_file(path: Path) -> str | None:
    """Why an input file cannot be read, or None when it can: missing (a link to nowhere included), or not a
    regular file (a folder; a FIFO, which would hang the reader; a device, read forever). Links are followed:
    a mounted ConfigMap's files are links."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a link to nowhere" if os.path.islink(path) else "file not found"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    return None if stat.S_ISREG(mode) else f"is {describe(mode)}, not a file"
