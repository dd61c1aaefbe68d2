"""The collector pause around text judges: paused inside, restored after, never left off by overlap."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from assay_runner.text import gc_pause
from assay_runner.text.gc_pause import gc_paused


@pytest.fixture(autouse=True)
def _own_pause(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # A pause of its own: a judge thread another test left running (an overrun) may hold the shared one.
    monkeypatch.setattr(gc_pause, "_PAUSE", gc_pause._Pause())
    was = gc.isenabled()
    yield
    if was:
        gc.enable()


def test_paused_inside_and_resumed_after() -> None:
    gc.enable()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_a_collector_turned_off_before_stays_off() -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_resumed_after_an_exception() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("judge crashed")
    assert gc.isenabled()


def test_overlapping_judges_on_threads_resume_only_when_the_last_returns() -> None:
    gc.enable()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with gc_paused():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with gc_paused():
            second_in.set()
            first_out.wait(5)
            seen.append(gc.isenabled())  # the first judge has returned; this one still runs

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == [False]
    assert gc.isenabled()
