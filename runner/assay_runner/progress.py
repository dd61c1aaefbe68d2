"""Progress on a terminal (a live bar: done, running, failed, elapsed) and plain log lines otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from assay_runner.orchestrator import Progress as Counts


@contextmanager
def progress_display(total: int, quiet: bool = False) -> Iterator[Counts]:
    counts = Counts(total=total)
    if quiet:
        yield counts
        return
    console = Console(stderr=True)
    if not console.is_terminal:
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
    bar = Progress(
        TextColumn("[bold]tickets"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[running]} running, {task.fields[failed]} failed"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task("run", total=total, running=0, failed=0)

    def refresh(c: Counts, message: str) -> None:
        bar.update(task, completed=c.done, running=c.running, failed=c.failed)

    counts.on_change = refresh
    with bar:
        yield counts
