"""The collector schedule: counted pauses, start-up frozen out, a collector someone else turned off left off.

Every test drives a schedule and a collector of its own (`FakeCollector`): nothing here reads or sets the
process's real collector, so a judge thread another test left running cannot change an outcome. One test
in a fresh interpreter checks that the process's schedule drives the real `gc` module.
"""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from assay_runner.collector import Schedule


class FakeCollector:
    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.freezes = 0
        self.log: list[str] = []

    def isenabled(self) -> bool:
        return self.enabled

    def enable(self) -> None:
        self.enabled = True
        self.log.append("enable")

    def disable(self) -> None:
        self.enabled = False
        self.log.append("disable")

    def freeze(self) -> None:
        self.freezes += 1
        self.log.append("freeze")


def test_paused_inside_and_resumed_after_the_outermost_pause() -> None:
    collector = FakeCollector()
    schedule = Schedule(collector)
    with schedule.paused():
        assert not collector.enabled
        with schedule.paused():
            assert not collector.enabled
        assert not collector.enabled  # the outer pause still holds
    assert collector.enabled
    assert schedule.held == 0


def test_a_collector_turned_off_before_stays_off() -> None:
    collector = FakeCollector(enabled=False)
    schedule = Schedule(collector)
    with schedule.paused():
        pass
    schedule.begin_startup()
    schedule.end_startup()
    assert not collector.enabled
    assert "enable" not in collector.log


def test_resumed_after_an_exception() -> None:
    collector = FakeCollector()
    schedule = Schedule(collector)
    with pytest.raises(RuntimeError), schedule.paused():
        raise RuntimeError("judge crashed")
    assert collector.enabled


def test_a_release_without_a_pause_is_a_bug_not_a_silent_resume() -> None:
    schedule = Schedule(FakeCollector())
    with pytest.raises(RuntimeError, match="did not hold"):
        schedule.release()


def test_start_up_is_frozen_out_when_it_ends_and_ending_twice_does_nothing() -> None:
    collector = FakeCollector()
    schedule = Schedule(collector)
    schedule.begin_startup()
    schedule.begin_startup()  # one start-up pause, however often it is begun
    assert not collector.enabled and schedule.held == 1
    schedule.end_startup()
    assert collector.log == ["disable", "freeze", "enable"]  # frozen before collection resumes
    schedule.end_startup()
    assert collector.log == ["disable", "freeze", "enable"]


def test_a_judge_reading_when_start_up_ends_keeps_the_collector_paused() -> None:
    """The two owners of old could each turn the collector back on under the other; one count cannot."""
    collector = FakeCollector()
    schedule = Schedule(collector)
    schedule.begin_startup()
    with schedule.paused():
        schedule.end_startup()
        assert not collector.enabled
    assert collector.enabled


def test_before_exit_freezes_even_after_start_up_ended() -> None:
    collector = FakeCollector()
    schedule = Schedule(collector)
    schedule.begin_startup()
    schedule.end_startup()
    schedule.before_exit()
    assert collector.freezes == 2


def test_overlapping_pauses_on_threads_resume_only_when_the_last_returns() -> None:
    collector = FakeCollector()
    schedule = Schedule(collector)
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with schedule.paused():
            first_in.set()
            assert second_in.wait(30)
        first_out.set()

    def second() -> None:
        assert first_in.wait(30)
        with schedule.paused():
            second_in.set()
            assert first_out.wait(30)
            seen.append(collector.enabled)  # the first pause has ended; this one still holds

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert seen == [False]
    assert collector.enabled


def test_the_process_schedule_drives_the_real_collector() -> None:
    probe = (
        "import gc\n"
        "from assay_runner.collector import SCHEDULE, paused\n"
        "SCHEDULE.begin_startup(); a = gc.isenabled()\n"
        "SCHEDULE.end_startup(); b = gc.isenabled(); f = gc.get_freeze_count() > 0\n"
        "with paused(): c = gc.isenabled()\n"
        "print(a, b, f, c, gc.isenabled())\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True", "False", "True"]
