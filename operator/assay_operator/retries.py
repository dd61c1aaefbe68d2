"""Retrying a step that a watch event started, when it fails for a reason that may pass (the apiserver
briefly away, a conflict).

kopf retries change handlers (create / update / resume) itself, but an exception in an event handler is
logged "will ignore it" and dropped: if that event was the last one (a Campaign's last Evaluation finishing,
a Job completing), nothing would ever run the step again. Here the step runs again after 2, 4, 8... seconds;
after the last attempt `give_up` reports it (a Stalled condition, never silence).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable

from assay_operator import timers

log = logging.getLogger("assay.operator.retries")
ATTEMPTS = 6
FIRST_DELAY = 2.0


class Retries:
    def __init__(self, attempts: int = ATTEMPTS, first_delay: float = FIRST_DELAY) -> None:
        self.attempts = attempts
        self.first_delay = first_delay
        self._lock = threading.Lock()
        self._failures: dict[Hashable, int] = {}

    def reset(self) -> None:
        """Forget every failure counted (tests reset the process's singletons between tests)."""
        with self._lock:
            self._failures.clear()

    def failed(
        self,
        key: Hashable,
        step: Callable[[], None],
        error: BaseException,
        give_up: Callable[[BaseException], None],
    ) -> None:
        """`step` (identified by `key`) failed with `error`: run it again later, or give up."""
        with self._lock:
            failures = self._failures.get(key, 0) + 1
            if failures > self.attempts:
                self._failures.pop(key, None)
            else:
                self._failures[key] = failures
        if failures > self.attempts:
            log.error("%s failed %d times, giving up: %s", key, self.attempts, error)
            give_up(error)
            return
        delay = self.first_delay * 2 ** (failures - 1)
        log.info("%s failed (%s); retrying in %.0f s", key, error, delay)
        timers.after(delay, self._again, key, step, give_up)

    def _again(
        self, key: Hashable, step: Callable[[], None], give_up: Callable[[BaseException], None]
    ) -> None:
        try:
            step()
        except Exception as error:  # a step's own failure, retried again or reported by give_up
            self.failed(key, step, error, give_up)
        else:
            with self._lock:
                self._failures.pop(key, None)
