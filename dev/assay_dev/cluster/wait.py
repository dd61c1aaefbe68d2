"""Polling with a deadline and a message that says what was awaited and what was last seen."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    probe: Callable[[], T | None],
    *,
    timeout: float = 60.0,
    interval: float = 0.2,
    what: str = "condition",
    describe: Callable[[], str] | None = None,
) -> T:
    """Call `probe` until it returns a truthy value, and return that value; raise TimeoutError with
    `describe()` (the state last seen) if it never does."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            seen = f"; last seen: {describe()}" if describe else ""
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}{seen}")
        time.sleep(interval)
