"""Counting the work a call does, for tests that a judge stays linear without timing it (timings are noisy).

`lines_run(call, modules)` runs `call()` under `sys.settrace` and counts the lines executed in the given
modules (a generator expression or comprehension counts once per step).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from types import FrameType, ModuleType
from typing import Any


def lines_run(call: Callable[[], object], modules: Iterable[ModuleType]) -> int:
    files = {module.__file__ for module in modules}
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        nonlocal count
        if frame.f_code.co_filename not in files:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return count
