"""The daemon threads the in-process judges run on, kept from one cell to the next.

A cell's in-process judges run on a thread of their own (`judges.judging`), never on the event loop. Starting
a thread blocks its starter until the new thread runs, and the starter is the loop that starts the next
agent when one exits: in `assay run` (30 cells, 4 slots) one start per cell blocked it for a median of
1.0-1.3 ms on a loaded machine, 58-89 ms in all; with the threads kept, 6 starts in all. So a thread whose
job is done waits a while for the next job instead of ending, and the loop hands a job to it without
waiting.

A job that overruns its budget keeps its thread (a daemon, so the process can still exit): the thread is
simply busy, and the next job gets another one. Idle threads end after `idle_seconds`, so a process that
stops judging keeps none.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

Job = Callable[[], None]
IDLE_SECONDS = 5.0
THREAD_NAME = "assay-judges"


class JudgeThreads:
    def __init__(self, idle_seconds: float = IDLE_SECONDS, name: str = THREAD_NAME) -> None:
        self.idle_seconds = idle_seconds
        self.name = name
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[Job | None]] = []

    def submit(self, job: Job) -> None:
        """Run `job` on an idle thread, or on a new one when none is idle."""
        with self._lock:
            jobs = self._idle.pop() if self._idle else None
        if jobs is not None:
            jobs.put(job)
            return
        jobs = queue.SimpleQueue[Job | None]()
        jobs.put(job)
        threading.Thread(target=self._serve, args=(jobs,), name=self.name, daemon=True).start()

    @property
    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def reset(self) -> None:
        """End every idle thread now (None is their signal to end), as a fresh process has none."""
        with self._lock:
            idle, self._idle = self._idle, []
        for jobs in idle:
            jobs.put(None)

    def _serve(self, jobs: queue.SimpleQueue[Job | None]) -> None:
        job: Job | None = jobs.get()
        while job is not None:
            job()
            job = None  # hold nothing of the cell while idle
            with self._lock:
                self._idle.append(jobs)
            job = self._next(jobs)

    def _next(self, jobs: queue.SimpleQueue[Job | None]) -> Job | None:
        """The next job, or None when none came for `idle_seconds` (the thread then ends)."""
        try:
            return jobs.get(timeout=self.idle_seconds)
        except queue.Empty:
            with self._lock:
                if jobs in self._idle:
                    self._idle.remove(jobs)
                    return None
            return jobs.get()  # `submit` took this thread off the idle list just now: its job is coming


JUDGE_THREADS = JudgeThreads()
"""The process's judge threads: every cell's in-process judges run on one of them."""
