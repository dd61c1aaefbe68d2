"""`code`: a judge written in Python by the suite's author.

Inline code is the body of `def judge(inputs, outputs)`; a file defines `judge(inputs, outputs)` itself.
`inputs` holds the ticket (`id`, `split`, `question`), its answer `key` and the `repetition` index;
`outputs` holds `answer`, `exit_code`, `transcript` and `files` ({path: text}). The function returns a
score in [0, 1] (a bool counts as 1.0 / 0.0), or `(score, reason)`, or `not_applicable("why")` — a name
the code can call. Returning anything else, a score outside [0, 1] or NaN, or raising, is a judge error
recorded with the exception's last line; it blocks the verdict.

`outputs["files"]` is a read-only mapping: each file's text is read from the cell, and handed to the worker,
when the judge reads it, one file at a time (`Worker.call`), so judging a cell of many side files holds one
of them at a time in the runner, never all of them.

The code runs in a worker process of its own (`assay_runner.usercode.worker`), never in the runner: a
call that takes longer than the judge's `timeoutSeconds` or needs more than `memoryMb` is killed, and
`sys.exit`, `os._exit` or a crash end only the worker. Each of these is a judge error that blocks; the
next call starts a fresh worker. Suite code runs in the runner pod, never in the operator.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, SpecJudge, failed, not_applicable, scored
from assay_runner.processes import OWN
from assay_runner.suite.models import CodeJudge
from assay_runner.usercode import worker as code_worker
from assay_runner.usercode.worker import NotApplicable, interpret, last_traceback_line

__all__ = ["Code", "NotApplicable", "interpret", "last_traceback_line"]

START_SECONDS = 30.0  # starting the interpreter and compiling the judge, on a busy machine


class WorkerGone(Exception):
    """The worker ended, stalled or answered something that is not a reply."""


class Worker:
    """One worker process with the judge compiled in it."""

    def __init__(self, setup: dict[str, Any]) -> None:
        with OWN.spawning() as spawned:  # the runner's own child, never mistaken for an agent's stray
            self.process = subprocess.Popen(
                [sys.executable, "-I", code_worker.__file__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,  # the judge's prints reach the terminal, as they would in-process
                text=True,
                encoding="utf-8",
            )
            spawned.add(self.process.pid)
        self.ready = self.call({"compile": setup}, START_SECONDS)

    def call(
        self, request: dict[str, Any], timeout: float, files: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """One request, its reply; meanwhile each side file the judge reads (`{"read": name}`) is read from
        `files` and sent, one at a time. `timeout` covers the whole call, reads included."""
        deadline = time.monotonic() + timeout
        self._send(json.dumps(request))
        while True:
            line = _read_line(self.stdout, max(0.0, deadline - time.monotonic()))
            if line is None:
                self.kill()
                raise WorkerGone(f"took longer than {timeout:g} s (killed)")
            if not line:
                raise WorkerGone(self._ended())
            try:
                reply = json.loads(line)
            except json.JSONDecodeError:
                self.kill()
                raise WorkerGone("the worker wrote something that is not a reply") from None
            if not isinstance(reply, dict):
                self.kill()
                raise WorkerGone("the worker wrote something that is not a reply")
            if set(reply) != {"read"}:
                return reply
            name = reply["read"]
            try:
                text = files.get(name) if files is not None and isinstance(name, str) else None
            except Exception as exc:  # swapped for a link or a FIFO since it was listed, say: fail closed
                self.kill()
                raise WorkerGone(f"side file {name!r} could not be read: {exc}") from None
            # Not escaped to ASCII: a file of replacement characters (bytes that are not UTF-8) would take
            # six bytes a character; the texts are decoded with `replace`, so hold no lone surrogate.
            self._send(json.dumps({"text": text}, ensure_ascii=False))
            del text

    @property
    def stdout(self) -> IO[str]:
        assert self.process.stdout is not None
        return self.process.stdout

    def _send(self, line: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(line)
            stdin.write("\n")
            stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerGone(self._ended()) from None

    def _ended(self) -> str:
        try:
            code = self.process.wait(timeout=5)
            OWN.forget(self.process.pid)
        except subprocess.TimeoutExpired:
            self.kill()
            return "the judge's worker stopped answering (killed)"
        if code < 0:
            return f"the judge's worker was killed by signal {-code} (out of memory or a crash)"
        return f"judge code ended its worker process (exit code {code})"

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.wait()
        OWN.forget(self.process.pid)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.kill()

    def end(self) -> None:
        """Send SIGKILL without waiting (`kill` waits): several workers then end side by side."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()


def _read_line(stream: IO[str], timeout: float) -> str | None:
    """One line from the worker, or None when none came within `timeout` seconds."""
    # One request gets exactly one line back, so nothing is ever left buffered in the wrapper between
    # calls: waiting on the file descriptor is enough.
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while not selector.select(max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                return None
    return stream.readline()


class Code(SpecJudge[CodeJudge]):
    def __init__(self, spec: CodeJudge, suite_root: Path) -> None:
        super().__init__(spec)
        self.budget_seconds = START_SECONDS + spec.timeout_seconds + 5.0
        self._setup: dict[str, Any] | None = None
        self._setup_error: str | None = None
        self._idle: list[Worker] = []
        self._ending: list[Worker] = []  # sent SIGKILL by `end`, reaped by `close`
        self._lock = threading.Lock()
        try:
            self._setup = _setup(spec, suite_root)
        except (OSError, UnicodeDecodeError) as exc:
            self._setup_error = last_traceback_line(exc)

    def judge(self, case: Case) -> JudgeVerdict:
        if self._setup is None:
            return failed(f"judge code does not compile: {self._setup_error}")
        ticket = case.ticket
        request = {
            "inputs": {
                "id": ticket.id,
                "split": ticket.split,
                "question": ticket.question,
                "key": ticket.key.model_dump(mode="json", by_alias=True),
                "repetition": case.repetition,
            },
            "outputs": {
                "answer": case.answer,
                "exit_code": case.exit_code,
                "transcript": case.transcript,
                "files": list(case.files),  # the names: each text is sent when the judge reads it
            },
        }
        try:
            worker = self._take()
        except WorkerGone as exc:
            return failed(f"judge code could not start: {exc}")
        if worker.ready.get("kind") != "ready":
            worker.close()
            return failed(f"judge code does not compile: {worker.ready.get('error')}")
        try:
            reply = worker.call(request, self.spec.timeout_seconds, case.files)
        except WorkerGone as exc:
            worker.close()
            return failed(str(exc))
        with self._lock:
            self._idle.append(worker)
        return _verdict(reply)

    def _take(self) -> Worker:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        assert self._setup is not None
        return Worker(self._setup)

    def warm(self, count: int) -> None:
        """Start workers until `count` are idle. A run's first cells end together and each one judged needs
        a worker: started then, their interpreters' start-up (tens of milliseconds of CPU each) competes
        with the runner starting the next agents; started while the first agents run, it does not. A
        worker that cannot start is left for the judging to start, and report."""
        if self._setup is None:
            return
        while True:
            with self._lock:
                if len(self._idle) >= count:
                    return
            try:
                worker = Worker(self._setup)
            except (WorkerGone, OSError):
                return
            with self._lock:
                self._idle.append(worker)
            if worker.ready.get("kind") != "ready":
                return  # the code does not compile: the judging says so, once per cell, as before

    def end(self) -> None:
        """SIGKILL to every idle worker, all at once; `close` reaps them (they end side by side meanwhile)."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._ending.extend(idle)
        for worker in idle:
            worker.end()

    def close(self) -> None:
        self.end()
        with self._lock:
            ending, self._ending = self._ending, []
        for worker in ending:
            worker.kill()


def _setup(spec: CodeJudge, suite_root: Path) -> dict[str, Any]:
    file_text = filename = None
    if spec.file is not None:
        path = suite_root / spec.file
        file_text, filename = path.read_text(encoding="utf-8"), str(path)
    return {
        "name": spec.name,
        "code": spec.code,
        "file": file_text,
        "filename": filename,
        "memoryBytes": spec.memory_mb * 1024 * 1024,
    }


def printable(text: str) -> str:
    """`text` as UTF-8 can hold it: a file name that is not UTF-8 reaches judge code with surrogates
    (Python's file-system decoding), which the result's JSON cannot encode; its bytes are shown as
    escapes ("bad\\xff.txt")."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape" if _escapable(text) else "backslashreplace").decode(
            "utf-8", "backslashreplace"
        )
    return text


def _escapable(text: str) -> bool:
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in text)


def _verdict(reply: dict[str, Any]) -> JudgeVerdict:
    """A worker's reply as a verdict; anything unexpected is an error, never a score."""
    kind = reply.get("kind")
    reason = reply.get("reason")
    if kind == "not_applicable" and isinstance(reason, str):
        return not_applicable(printable(reason))
    score = reply.get("score")
    if kind == "score" and isinstance(score, int | float) and not isinstance(score, bool):
        return scored(float(score), printable(reason) if isinstance(reason, str) else "")
    error = reply.get("error")
    shown = error if isinstance(error, str) else f"unexpected reply from the judge worker: {reply!r}"
    return failed(printable(shown))
