"""The judge threads: reused from one job to the next, never waited for, ended when idle."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from assay_runner.judges.threads import JudgeThreads


def _wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return False


def _own_threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name]


def test_a_finished_jobs_thread_runs_the_next_job() -> None:
    threads = JudgeThreads(idle_seconds=30.0, name="judge-threads-reuse")
    ran_on: list[int] = []
    for _ in range(5):
        done = threading.Event()

        def job(done: threading.Event = done) -> None:
            ran_on.append(threading.get_ident())
            done.set()

        threads.submit(job)
        assert done.wait(10)
        assert _wait_until(lambda: threads.idle == 1)  # the thread is back, waiting for the next job
    assert len(set(ran_on)) == 1
    assert len(_own_threads("judge-threads-reuse")) == 1


def test_a_busy_thread_is_not_waited_for_the_next_job_gets_another() -> None:
    threads = JudgeThreads(idle_seconds=30.0, name="judge-threads-busy")
    release = threading.Event()
    threads.submit(release.wait)  # an overrunning judge: its thread stays busy
    done = threading.Event()
    threads.submit(done.set)
    assert done.wait(10)  # ran at once, beside the busy one
    assert len(_own_threads("judge-threads-busy")) == 2
    release.set()
    assert _wait_until(lambda: threads.idle == 2)


def test_idle_threads_end_and_a_later_job_starts_a_new_one() -> None:
    threads = JudgeThreads(idle_seconds=0.05, name="judge-threads-idle")
    done = threading.Event()
    threads.submit(done.set)
    assert done.wait(10)
    assert _wait_until(lambda: not _own_threads("judge-threads-idle"))
    assert threads.idle == 0
    again = threading.Event()
    threads.submit(again.set)
    assert again.wait(10)


def test_jobs_handed_over_while_threads_time_out_all_run() -> None:
    # The idle timeout races the hand-over: a thread that timed out just as it was taken must still run
    # its job (or nothing would ever set the event, and the judge's cell would wait out its budget).
    threads = JudgeThreads(idle_seconds=0.001, name="judge-threads-race")
    count = 300
    finished = threading.Semaphore(0)
    for _ in range(count):
        threads.submit(finished.release)
        time.sleep(0.0005)
    assert all(finished.acquire(timeout=10) for _ in range(count))
