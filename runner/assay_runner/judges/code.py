"""`code`: a judge written in Python by the suite's author.

Inline code is the body of `def judge(inputs, outputs)`; a file defines `judge(inputs, outputs)` itself.
`inputs` holds the ticket (`id`, `split`, `question`), its answer `key` and the `repetition` index;
`outputs` holds `answer`, `exit_code`, `transcript` and `files` ({path: text}). The function returns a
score in [0, 1] (a bool counts as 1.0 / 0.0), or `(score, reason)`, or `not_applicable("why")` — a name
the code can call. Returning anything else, a score outside [0, 1] or NaN, or raising, is a judge error
recorded with the exception's last line; it blocks the verdict.

Suite code runs in the runner process only (on the cluster: in the runner pod), never in the operator.
"""

from __future__ import annotations

import math
import textwrap
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, failed, not_applicable, scored
from assay_runner.suite.models import CodeJudge

JudgeFunction = Callable[[dict[str, Any], dict[str, Any]], object]


class NotApplicable:
    """What `not_applicable(reason)` returns inside judge code."""

    def __init__(self, reason: str = "declared not applicable") -> None:
        self.reason = reason


def compile_judge(spec: CodeJudge, suite_root: Path) -> JudgeFunction:
    namespace: dict[str, Any] = {"not_applicable": NotApplicable, "__name__": f"assay_judge_{spec.name}"}
    if spec.code is not None:
        source = "def judge(inputs, outputs):\n" + textwrap.indent(textwrap.dedent(spec.code), "    ")
        filename = f"<judge {spec.name}>"
    else:
        assert spec.file is not None
        path = suite_root / spec.file
        source, filename = path.read_text(encoding="utf-8"), str(path)
    exec(compile(source, filename, "exec"), namespace)
    function = namespace.get("judge")
    if not callable(function):
        raise ValueError(f"{filename} does not define a function judge(inputs, outputs)")
    return function  # type: ignore[no-any-return]


def interpret(value: object) -> JudgeVerdict:
    """Turn what judge code returned into a verdict, strictly."""
    if isinstance(value, NotApplicable):
        return not_applicable(value.reason)
    reason = ""
    if isinstance(value, tuple):
        if len(value) != 2 or not isinstance(value[1], str):
            return failed(f"returned a tuple {value!r}; expected (score, reason: str)")
        value, reason = value
    if isinstance(value, bool):
        value = 1.0 if value else 0.0
    if not isinstance(value, int | float):
        return failed(f"returned {type(value).__name__} {value!r}; expected a score in [0, 1]")
    score = float(value)
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        return failed(f"returned score {score!r}, outside [0, 1]")
    return scored(score, reason or f"score {score:g}")


def last_traceback_line(exc: BaseException) -> str:
    return traceback.format_exception_only(type(exc), exc)[-1].strip()


class Code:
    def __init__(self, spec: CodeJudge, suite_root: Path) -> None:
        self.spec = spec
        self.needs_key = spec.needs_key
        self._function: JudgeFunction | None = None
        self._compile_error: str | None = None
        try:
            self._function = compile_judge(spec, suite_root)
        except Exception as exc:  # a broken judge must block every verdict it touches, not crash the run
            self._compile_error = last_traceback_line(exc)

    @property
    def name(self) -> str:
        return self.spec.name

    def judge(self, case: Case) -> JudgeVerdict:
        if self._function is None:
            return failed(f"judge code does not compile: {self._compile_error}")
        ticket = case.ticket
        inputs = {
            "id": ticket.id,
            "split": ticket.split,
            "question": ticket.question,
            "key": ticket.key.model_dump(mode="json", by_alias=True),
            "repetition": case.repetition,
        }
        outputs = {
            "answer": case.answer,
            "exit_code": case.exit_code,
            "transcript": case.transcript,
            "files": dict(case.files),
        }
        try:
            value = self._function(inputs, outputs)
        except Exception as exc:
            return failed(last_traceback_line(exc))
        return interpret(value)
