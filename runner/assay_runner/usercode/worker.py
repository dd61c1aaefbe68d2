"""The process a `code` judge runs in: suite code never runs inside the runner itself.

Started by `assay_runner.judges.code` as ``python -I code_worker.py`` (standard library only, so it starts
in a few tens of milliseconds and imports nothing of Assay). It speaks JSON lines: the first request
compiles the judge, each later one judges one case and gets back exactly one reply. A case carries the
names of the cell's side files, not their text: `outputs["files"]` is a read-only mapping that asks the
runner for a file's text (`{"read": name}`, answered by `{"text": ...}`) each time the judge reads one, and
keeps none, so neither process holds every file of a cell at once. Whatever the judge
code does — raises, calls `sys.exit`, prints, returns garbage — the reply is a verdict or an error; what
it cannot do from here is end the runner or write its result. `os._exit`, a crash, an endless loop or
too much memory end or stall this process only, and the parent turns that into a judge error.
"""

from __future__ import annotations

import json
import math
import os
import sys
import textwrap
import traceback
from collections.abc import Callable, Iterator, Mapping
from typing import Any

JudgeFunction = Callable[[dict[str, Any], dict[str, Any]], object]
Reply = dict[str, Any]


class SideFileTexts(Mapping[str, str]):
    """`outputs["files"]`: {path: text}, each text asked of the runner when read, never kept here (a
    judge that keeps them holds them within its own `memoryMb`)."""

    def __init__(self, names: list[str], fetch: Callable[[str], str | None]) -> None:
        self._names = dict.fromkeys(names)
        self._fetch = fetch

    def __getitem__(self, name: str) -> str:
        text = self._fetch(name) if name in self._names else None
        if text is None:
            raise KeyError(name)
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"<side files: {', '.join(self._names)}>"


class NotApplicable:
    """What `not_applicable(reason)` returns inside judge code."""

    def __init__(self, reason: str = "declared not applicable") -> None:
        self.reason = reason


def last_traceback_line(exc: BaseException) -> str:
    return traceback.format_exception_only(type(exc), exc)[-1].strip()


def judge_source(name: str, code: str | None, file_text: str | None, filename: str | None) -> tuple[str, str]:
    """The module source and the filename tracebacks show, for inline code or a file."""
    if code is not None:
        return "def judge(inputs, outputs):\n" + textwrap.indent(
            textwrap.dedent(code), "    "
        ), f"<judge {name}>"
    assert file_text is not None and filename is not None
    return file_text, filename


def compile_judge(name: str, source: str, filename: str) -> JudgeFunction:
    namespace: dict[str, Any] = {"not_applicable": NotApplicable, "__name__": f"assay_judge_{name}"}
    exec(compile(source, filename, "exec"), namespace)
    function = namespace.get("judge")
    if not callable(function):
        raise ValueError(f"{filename} does not define a function judge(inputs, outputs)")
    return function  # type: ignore[no-any-return]


def interpret(value: object) -> Reply:
    """What judge code returned, as a reply: a score in [0, 1], not applicable, or an error. Strict."""
    if isinstance(value, NotApplicable):
        return {"kind": "not_applicable", "reason": str(value.reason)}
    reason = ""
    if isinstance(value, tuple):
        if len(value) != 2 or not isinstance(value[1], str):
            return _error(f"returned a tuple {_short(value)}; expected (score, reason: str)")
        value, reason = value
    if isinstance(value, bool):
        value = 1.0 if value else 0.0
    if not isinstance(value, int | float):
        return _error(f"returned {type(value).__name__} {_short(value)}; expected a score in [0, 1]")
    try:
        score = float(value)
    except OverflowError:
        return _error(f"returned {_short(value)}, outside [0, 1]")
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        return _error(f"returned score {score!r}, outside [0, 1]")
    return {"kind": "score", "score": score, "reason": reason or f"score {score:g}"}


def _short(value: object) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 200 else text[:200] + "..."


def _error(message: str) -> Reply:
    return {"kind": "error", "error": message}


def _limit_memory(limit_bytes: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))


def serve(requests: Any, replies: Any) -> None:
    function: JudgeFunction | None = None

    def fetch(name: str) -> str | None:
        """One side file's text, asked of the runner while the judge runs."""
        replies.write(json.dumps({"read": name}) + "\n")
        replies.flush()
        answer = json.loads(requests.readline() or "{}")
        text = answer.get("text") if isinstance(answer, dict) else None
        return text if isinstance(text, str) else None

    while line := requests.readline():
        request = json.loads(line)
        try:
            if "compile" in request:
                setup = request["compile"]
                _limit_memory(int(setup["memoryBytes"]))
                source, filename = judge_source(
                    setup["name"], setup["code"], setup["file"], setup["filename"]
                )
                function = compile_judge(setup["name"], source, filename)
                reply: Reply = {"kind": "ready"}
            elif function is None:
                reply = _error("the judge is not compiled")
            else:
                outputs = request["outputs"]
                outputs["files"] = SideFileTexts(outputs["files"], fetch)
                reply = interpret(function(request["inputs"], outputs))
        except SystemExit as exc:
            reply = _error(f"judge code called sys.exit({exc.code!r})")
        except BaseException as exc:  # every way out of judge code is an error reply, never a silent end
            reply = _error(last_traceback_line(exc))
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def main() -> None:
    # Replies go on a private copy of stdout; the judge's own prints go to stderr, not into the protocol.
    # Requests come on a private copy of stdin (UTF-8, as the runner writes them, whatever the locale),
    # and the judge's own stdin is empty: reading it cannot take a side file's text meant for the worker.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    requests = os.fdopen(os.dup(0), encoding="utf-8")
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    serve(requests, replies)


if __name__ == "__main__":
    main()
