"""Calling a function later, in a thread, with the caller's context.

kopf keeps what its helpers need (the settings, the Event queue) in context variables, which a plain
threading.Timer does not carry over: kopf.event from a timer thread raises LookupError. A timer started
here runs its function in a copy of the context of the handler that started it.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Any


def after(delay: float, function: Callable[..., Any], *args: Any) -> threading.Timer:
    """A started daemon timer that calls `function(*args)` in `delay` seconds; cancel() stops it."""
    context = contextvars.copy_context()
    timer = threading.Timer(delay, context.run, (function, *args))
    timer.daemon = True
    timer.start()
    return timer
