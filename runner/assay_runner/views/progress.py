"""Progress on a terminal (a live bar: done, running, failed, elapsed) and plain log lines otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Counts:
    """Counts for the progress display; `on_change` is called after every update."""

    total: int = 0
    done: int = 0
    running: int = 0
    failed: int = 0
    on_change: Callable[[Counts, str], None] | None = field(default=None, repr=False)

    def update(self, message: str = "") -> None:
        if self.on_change is not None:
            self.on_change(self, message)


@contextmanager
def progress_display(quiet: bool = False) -> Iterator[Counts]:
    """The total is filled in by the run once it has selected the tickets."""
    counts = Counts()
    if quiet:
        yield counts
        return
    if not sys.stderr.isatty():
        started = time.monotonic()

        def log_line(c: Counts, message: str) -> None:
            if message:
                print(
                    f"[{c.done}/{c.total} done, {c.running} running, {c.failed} failed, "
                    f"{time.monotonic() - started:.1f}s] {message}",
                    file=sys.stderr,
                    flush=True,
                )

        counts.on_change = log_line
        yield counts
        return
    # rich is imported only for a terminal: piped runs start their agents sooner.
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    bar = Progress(
        TextColumn("[bold]tickets"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[running]} running, {task.fields[failed]} failed"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task("run", total=None, running=0, failed=0)

    def refresh(c: Counts, message: str) -> None:
        bar.update(task, total=c.total or None, completed=c.done, running=c.running, failed=c.failed)

    counts.on_change = refresh
    with bar:
        yield counts
