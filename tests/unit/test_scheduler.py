"""The cell pool (run.scheduler) with real workspaces and threads: slots bound the agents, a seat's
workspace is checked after the slot is freed, a stop keeps what finished and discards what was made for
nothing, the warm-up waits for the first wave, and start-up ends when the pool opens."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from assay_runner.agents.workspace import WorkspaceFactory
from assay_runner.collector import Schedule
from assay_runner.run.scheduler import CellPool
from assay_runner.suite.models import Ticket
from tests.unit.test_collector import FakeCollector

TICKETS = [Ticket(id=f"T-{i}", split="validation", question=f"q{i}") for i in range(6)]
CHECK_THREAD = "assay-workspace-check"


def factory(tmp_path: Path) -> WorkspaceFactory:
    return WorkspaceFactory(tmp_path / "work", None, {"KB-1": "article"})


def left_in(tmp_path: Path) -> list[str]:
    work = tmp_path / "work"
    return sorted(p.name for p in work.iterdir()) if work.exists() else []


def test_slots_bound_the_seats_and_each_workspace_is_checked_after_its_agent(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, dict[tuple[str, int], bool | BaseException | None]]:
        seated = most = 0
        before = set(threading.enumerate())
        async with CellPool(
            factory(tmp_path), [(t, 1) for t in TICKETS], slots=2, keep_workspaces=False
        ) as pool:

            async def cell(ticket: Ticket, repetition: int) -> bool:
                nonlocal seated, most
                async with pool.seat(ticket, repetition) as seat:
                    seated += 1
                    most = max(most, seated)
                    article = seat.workspace.kb / "KB-1.md"
                    assert article.read_text() == "article"
                    if ticket.id == "T-3":  # an agent that edits its read-only knowledge base
                        article.chmod(0o644)
                        article.write_text("edited")
                    await asyncio.sleep(0.01)
                    seated -= 1
                return seat.intact

            ran = await pool.run(cell, asyncio.Event())
        # No thread of the pool outlives it (the console command's exit would wait for one), and none of
        # the loop's default executor was started for it. Only threads started here count: another test's
        # daemon (a judge's, say) may still be alive in this process.
        left = [t.name for t in threading.enumerate() if t not in before]
        assert [name for name in left if name.startswith(("assay-workspace-", "asyncio_"))] == []
        return most, ran

    most, ran = asyncio.run(scenario())
    assert most == 2
    assert ran == {(t.id, 1): t.id != "T-3" for t in TICKETS}
    assert left_in(tmp_path) == []  # every workspace discarded, the edited one too


def test_a_stop_keeps_finished_cells_and_discards_the_workspaces_of_the_rest(tmp_path: Path) -> None:
    async def scenario() -> dict[tuple[str, int], str | BaseException | None]:
        stop = asyncio.Event()
        seated = 0
        async with CellPool(
            factory(tmp_path), [(t, 1) for t in TICKETS], slots=2, keep_workspaces=False
        ) as pool:

            async def cell(ticket: Ticket, repetition: int) -> str:
                nonlocal seated
                if ticket.id == "T-4":
                    return "finished"
                if ticket.id == "T-5":
                    raise RuntimeError("the judge crashed")
                async with pool.seat(ticket, repetition):  # T-0 and T-1 get the slots; T-2 and T-3 wait
                    seated += 1
                    if seated == 2:
                        stop.set()
                    await asyncio.Event().wait()  # an agent that never ends
                return "never"

            return await pool.run(cell, stop)

    ran = asyncio.run(scenario())
    assert [ran[(f"T-{i}", 1)] for i in range(4)] == [None] * 4
    assert ran[("T-4", 1)] == "finished"
    crashed = ran[("T-5", 1)]
    assert isinstance(crashed, RuntimeError) and str(crashed) == "the judge crashed"
    assert left_in(tmp_path) == []  # the stopped agents' workspaces, and any made ahead for T-2 and T-3


def wait_for_check_threads(count: int) -> int:
    deadline = time.monotonic() + 10
    while True:
        alive = sum(t.name.startswith(CHECK_THREAD) for t in threading.enumerate())
        if alive == count or time.monotonic() > deadline:
            return alive
        time.sleep(0.01)


def check_threads() -> int:
    return sum(t.name.startswith(CHECK_THREAD) for t in threading.enumerate())


def test_the_warm_up_waits_until_every_slot_has_started_an_agent(tmp_path: Path) -> None:
    assert wait_for_check_threads(0) == 0  # earlier pools' threads have ended

    async def scenario() -> tuple[int, int]:
        first_alone = asyncio.get_running_loop().create_future()
        second: list[int] = []
        release = asyncio.Event()
        async with CellPool(
            factory(tmp_path), [(t, 1) for t in TICKETS[:3]], slots=2, keep_workspaces=False
        ) as pool:

            async def cell(ticket: Ticket, repetition: int) -> None:
                if ticket.id != "T-0":
                    await first_alone
                async with pool.seat(ticket, repetition):
                    if ticket.id == "T-0":  # one of two slots busy: the first wave is not out yet
                        for _ in range(20):  # turns of the loop in which a warm-up could have started
                            await asyncio.sleep(0)
                        first_alone.set_result(check_threads())
                    elif ticket.id == "T-1":  # the first wave is out: the warm-up hands the reference
                        # fingerprint to the checking thread, which starts for it
                        second.append(await asyncio.to_thread(wait_for_check_threads, 1))
                        release.set()
                    await release.wait()

            await pool.run(cell, asyncio.Event())
        return first_alone.result(), second[0]

    assert asyncio.run(scenario()) == (0, 1)
    assert left_in(tmp_path) == []


def test_start_up_ends_when_the_pool_opens(tmp_path: Path) -> None:
    collector = FakeCollector()
    schedule = Schedule(collector)

    async def scenario() -> tuple[bool, bool]:
        schedule.begin_startup()  # as the console command does
        before = collector.enabled
        async with CellPool(factory(tmp_path), [], slots=2, keep_workspaces=False, collector=schedule):
            return before, collector.enabled

    assert asyncio.run(scenario()) == (False, True)
