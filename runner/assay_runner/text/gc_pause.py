"""The cyclic garbage collector paused while a text judge reads an answer.

Reading a long answer makes hundreds of thousands of small tuples and strings (its words, sentences and
clauses), none of them part of a reference cycle, so the cyclic collector can free nothing among them;
yet it runs every few hundred allocations and rescans the growing heap each time. Measured on a 1 MB
answer, that was a third of the time spent making its words (bench/judges_cost.py). Reference counting
still frees everything as usual while the collector is paused.

Judges run on threads: the collector is paused while at least one text judge runs, and resumed (if it
was running before) when the last one returns.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


class _Pause:
    """How many text judges run now, and whether the collector ran before the first of them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.resume = False

    def enter(self) -> None:
        with self.lock:
            if self.depth == 0:
                self.resume = gc.isenabled()
                gc.disable()
            self.depth += 1

    def leave(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0 and self.resume:
                gc.enable()


_PAUSE = _Pause()


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (or, as a decorator, the call)."""
    _PAUSE.enter()
    try:
        yield
    finally:
        _PAUSE.leave()
