"""When the `assay` process runs Python's cyclic garbage collector.

Start-up (imports, pydantic schemas, the suite) allocates a few hundred thousand objects that live until
the process exits; the collector would walk them several times before the first agent starts, and the
interpreter walks them again, several times, while shutting down — about a tenth of a second each way on
a small machine. So the console command pauses the collector during start-up; the cell pool
(run.scheduler) resumes it as it opens, freezing what start-up made (moved out of every later collection),
and it collects normally while agents run; at exit the console command freezes the heap again so shutdown
does not walk it. Memory made while the agents run is collected as usual.

Only `assay`'s console entry point pauses; `main()` called from Python (tests, scripts) is unaffected.
"""

from __future__ import annotations

import gc

_paused: set[bool] = set()  # {True} while this module holds the collector paused


def pause() -> None:
    if gc.isenabled():
        gc.disable()
        _paused.add(True)


def resume() -> None:
    """Start-up is over: keep what it made out of later collections, and collect from now on."""
    if _paused:
        _paused.clear()
        gc.freeze()
        gc.enable()


def before_exit() -> None:
    """Everything left is freed by the exit itself: spare the interpreter its collections over it."""
    resume()
    gc.freeze()
