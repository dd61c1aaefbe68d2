"""The exception hierarchy. Each error says what is wrong and where; the CLI maps them to exit codes."""

from __future__ import annotations

from dataclasses import dataclass


class AssayError(Exception):
    """Base of every error Assay raises on purpose."""

    exit_code = 2


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
