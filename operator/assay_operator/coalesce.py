"""Coalesced work: many requests for one key while its work runs become one more run, not one each.

A Campaign reconciles whenever one of its Evaluations changes, and each reconcile reads every Evaluation
of the Campaign. A grid's cells change in bursts (16 running at once each write progress, then a
verdict): handled one by one, a burst of n events means n full reads of the Campaign. Coalesced, the
events that arrive while a reconcile runs ask for a single run after it, which reads the state they
changed — no event is lost (the run after it sees its change) and no two runs of one key overlap here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable


class Coalescer:
    """Runs work for a key in the caller's thread, or notes that it must run again once more."""

    def __init__(self) -> None:
        self._again: dict[Hashable, bool] = {}
        """Keys whose work is running -> whether a request came in since it started."""
        self._guard = threading.Lock()

    def reset(self) -> None:
        """Forget every key (tests reset the process's singletons between tests)."""
        with self._guard:
            self._again.clear()

    def run(self, key: Hashable, work: Callable[[], None]) -> bool:
        """Run `work` now, and again while requests came in during the last run; False when work for `key`
        was already running (this request is then folded into its next run)."""
        with self._guard:
            if key in self._again:
                self._again[key] = True
                return False
            self._again[key] = False
        try:
            while True:
                work()
                with self._guard:
                    if not self._again[key]:
                        del self._again[key]
                        return True
                    self._again[key] = False
        except BaseException:
            with self._guard:
                self._again.pop(key, None)
            raise

    def running(self, key: Hashable) -> bool:
        with self._guard:
            return key in self._again
