"""When the process runs Python's cyclic garbage collector: one owner for every pause.

Two things pause it, for measured reasons (bench/run_overhead.py, bench/judges_cost.py):

- Start-up. Imports, pydantic schemas and the suite allocate a few hundred thousand objects that live
  until the process exits; the collector would walk them several times before the first agent starts,
  and the interpreter walks them again while shutting down. So the `assay` console command holds a pause
  from its first line until the cell pool opens (`end_startup`: what start-up made is frozen out of every
  later collection), and freezes the heap again before it exits.
- Reading an answer. A long answer's words, sentences and clauses are hundreds of thousands of small
  objects in no reference cycle; the collector can free none of them yet rescans the growing heap every
  few hundred allocations. The text judges hold a pause while they read (`paused()`).

Pauses are counted: the collector is off while at least one is held and back on when the last is
released — if, and only if, it was on when the first was taken (a program embedding Assay that turned it
off keeps it off). Reference counting frees everything as usual meanwhile.

`Schedule` takes the collector as a parameter, so its behaviour is tested on a schedule and a collector of
the test's own, never on process-global state that a stray thread of another test could touch.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["SCHEDULE", "Collector", "Schedule", "paused"]


class Collector(Protocol):
    """The part of the `gc` module a schedule drives."""

    def isenabled(self) -> bool: ...

    def enable(self) -> None: ...

    def disable(self) -> None: ...

    def freeze(self) -> None: ...


class Schedule:
    """Counted pauses of one collector."""

    def __init__(self, collector: Collector | None = None) -> None:
        self._gc: Collector = collector if collector is not None else gc
        self._lock = threading.Lock()
        self._held = 0
        self._resume = False
        self._startup = False

    @property
    def held(self) -> int:
        return self._held

    def acquire(self) -> None:
        with self._lock:
            if self._held == 0:
                self._resume = self._gc.isenabled()
                self._gc.disable()
            self._held += 1

    def release(self, before_resume: Callable[[], None] | None = None) -> None:
        with self._lock:
            if self._held == 0:
                raise RuntimeError("the collector schedule released a pause it did not hold")
            self._held -= 1
            if self._held == 0 and self._resume:
                if before_resume is not None:
                    before_resume()
                self._gc.enable()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Hold a pause for the block (or, as a decorator, the call)."""
        self.acquire()
        try:
            yield
        finally:
            self.release()

    def begin_startup(self) -> None:
        """The console command's first step: no collection until the cell pool opens."""
        with self._lock:
            if self._startup:
                return
            self._startup = True
        self.acquire()

    def end_startup(self) -> None:
        """Start-up is over: what it made is frozen out of later collections (when the collector resumes
        now), and collection goes on as usual. Does nothing when no start-up pause is held."""
        with self._lock:
            if not self._startup:
                return
            self._startup = False
        self.release(before_resume=self._gc.freeze)

    def reset(self) -> None:
        """Drop a start-up pause left held (the console command run in-process, never ended). Pauses held by
        code still running (a judging thread that overran its budget) are theirs to release."""
        with self._lock:
            startup, self._startup = self._startup, False
        if startup:
            self.release()

    def before_exit(self) -> None:
        """Everything left is freed by the exit itself: spare the interpreter its collections over it."""
        self.end_startup()
        self._gc.freeze()


SCHEDULE = Schedule()
"""The process's schedule: the console command, the cell pool and the text judges share it."""


@contextmanager
def paused() -> Iterator[None]:
    """A pause of the process's collector for the block or call (text judges reading an answer)."""
    SCHEDULE.acquire()
    try:
        yield
    finally:
        SCHEDULE.release()
