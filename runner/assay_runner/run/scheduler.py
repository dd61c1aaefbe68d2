"""The cell pool: when an evaluation's cells run, and the workspaces their agents run in.

`run_evaluation` says what one cell is (an agent in a workspace, then the judges, then the result); this
module decides when each cell runs and keeps the process's own overhead out of the agents' way. The
interface is small: `async with CellPool(...) as pool`, `pool.seat(ticket, repetition)` around one agent's
run, and `pool.run(cell, stop)` for the whole queue. Behind it, each piece exists for a measured reason
(bench/run_overhead.py shows the figures):

- Slots: at most `slots` agents run at once, and a slot covers only the agent's own run. Making,
  checking and discarding its workspace, and the cell's judges, happen outside it, so a freed slot starts
  its next agent at once and the judges overlap the next agents.
- Prefetch (`run.prefetch`): workspaces are made ahead of their agents, in queue order, so a slot never
  waits for one.
- Two file-work threads, one making and one checking and discarding workspaces: the work is a few system
  calls per workspace, off the event loop; one thread each, not one per slot, because every extra thread
  is one more contender for the interpreter lock when the loop has an agent to start.
- The first wave and the warm-up (`run.warmup`): once every slot has started its first agent the loop
  mostly waits, so that is when the checking thread is started, the cells' slow first-use work is done on
  it (`warm`: the code judge's workers) and the end of the run (result models, report modules) is
  prepared, instead of between one agent's exit and the next one's start.
- The collector schedule (`assay_runner.collector`): start-up ends when the pool opens; what start-up made
  is frozen out of later collections.
- A stop request cancels the unfinished cells (their agent processes are killed) and keeps the finished
  ones; workspaces made but never taken are discarded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from assay_runner.agents.base import Workspace
from assay_runner.agents.workspace import WorkspaceFactory
from assay_runner.collector import SCHEDULE, Schedule
from assay_runner.run.prefetch import WorkspacePrefetch
from assay_runner.run.warmup import prepare_rest
from assay_runner.suite.models import Ticket

T = TypeVar("T")
R = TypeVar("R")
Cell = tuple[str, int]  # (ticket id, repetition)
log = logging.getLogger("assay.run")


class Seat:
    """One agent's place in the pool. `workspace` is ready when the seat is taken; `intact` (its read-only
    brain/ and kb/ files unchanged) and `kept` (where it stays, if workspaces are kept) are known once the
    seat is left."""

    # A plain class, not a dataclass: building a dataclass costs start-up a fraction of a millisecond.
    __slots__ = ("intact", "kept", "workspace")

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.intact = True
        self.kept: Path | None = None


class CellPool:
    def __init__(
        self,
        workspaces: WorkspaceFactory,
        order: Sequence[tuple[Ticket, int]],
        slots: int,
        keep_workspaces: bool,
        collector: Schedule = SCHEDULE,
        warm: Sequence[Callable[[], object]] = (),
    ) -> None:
        """`order` is the queue: cells start in this order, and their workspaces are made in it. Opening the
        pool ends start-up on `collector` (the process's schedule). `warm`: slow first-use work of the
        cells' later steps (the code judge's workers), done on the checking thread once the first agents
        run (`run.warmup`)."""
        self.collector = collector
        self.warm = list(warm)
        self.workspaces = workspaces
        self.order = list(order)
        self.slots = slots
        self.keep = keep_workspaces
        self._free = asyncio.Semaphore(slots)
        # Set once every slot has had its first agent started (or every cell, if fewer): from then on the
        # loop mostly waits, and the rest of the run can be prepared (run.warmup).
        self._first_wave = asyncio.Event()
        self._to_first_wave = min(slots, len(self.order))

    async def __aenter__(self) -> CellPool:
        # Threads start on their first job, not here: the checking thread's start waits for the first wave.
        self._making = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-workspace-make")
        self._checking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-workspace-check")
        self.collector.end_startup()  # start-up is over
        self._prefetch = WorkspacePrefetch(
            self.workspaces, self.order, ahead=self.slots, executor=self._making
        )
        self._preparing = asyncio.create_task(
            prepare_rest(
                self._first_wave, self._checking, background=[self.workspaces.reference, *self.warm]
            ),
            name="prepare the rest of the run",
        )
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            await self._prefetch.close()
        finally:
            self._preparing.cancel()  # done long since, unless the run was short or stopped: then not needed
            with contextlib.suppress(asyncio.CancelledError):
                await self._preparing
            self._making.shutdown(wait=True)  # idle: the prefetch is closed, so its thread ends at once
            # The last workspaces are still being checked and discarded: let that finish, then remove the
            # run's own folder (it stays when workspaces are kept). The checking thread takes its jobs in
            # order, so once one queued now has run it is idle, and its join is immediate. (Waiting on
            # another thread instead started the loop's default executor, and asyncio.run's end one more
            # thread to shut that down, after the last agent.) No thread of the pool outlives the pool.
            await self.file_work(_nothing)
            self._checking.shutdown(wait=True)
            self.workspaces.close(keep=self.keep)

    @contextlib.asynccontextmanager
    async def seat(self, ticket: Ticket, repetition: int) -> AsyncIterator[Seat]:
        """A slot and the cell's workspace (made ahead) for the agent's run in the block. The slot is freed
        when the block ends; the workspace is checked and discarded after that, off the event loop (or
        discarded at once, if the block raised)."""
        async with self._free:
            seat = Seat(await self._prefetch.take(ticket, repetition))
            self._to_first_wave -= 1
            if self._to_first_wave == 0:
                self._first_wave.set()  # its waiter runs after this task has started the agent
            try:
                yield seat
            except BaseException:
                await self.file_work(partial(self.workspaces.discard, seat.workspace))
                raise
        # Let the cell that takes the freed slot start its agent before this one's checks compete with it.
        await asyncio.sleep(0)
        checked = partial(self.workspaces.check_and_discard, seat.workspace, keep=self.keep)
        seat.intact = await self.file_work(checked)
        seat.kept = seat.workspace.root if self.keep else None

    async def run(
        self, cell: Callable[[Ticket, int], Coroutine[Any, Any, R]], stop: asyncio.Event
    ) -> dict[Cell, R | BaseException | None]:
        """Run `cell` for every (ticket, repetition) of the queue, each as its own task from the start (the
        slots bound the agents, not the cells, so judges run beside the next agents). On `stop`, cancel the
        unfinished ones. Each cell maps to what it returned, the exception it raised, or None if it did not
        finish."""
        tasks = {asyncio.create_task(cell(t, r)): (t.id, r) for t, r in self.order}
        stopper = asyncio.create_task(stop.wait())
        pending: set[asyncio.Task[R] | asyncio.Task[bool]] = set(tasks)
        try:
            while pending:
                done, _ = await asyncio.wait(pending | {stopper}, return_when=asyncio.FIRST_COMPLETED)
                pending -= done
                if stopper in done:
                    log.warning("stopping: %d cell(s) unfinished", len(pending))
                    for task in pending:
                        task.cancel()
                    await asyncio.gather(*pending, return_exceptions=True)
                    break
        finally:
            stopper.cancel()
        return {key: _ended(task) for task, key in tasks.items()}

    async def file_work(self, work: Callable[[], T]) -> T:
        """Run file work (checks, discards, writing an answer) on the checking thread, off the loop."""
        return await asyncio.get_running_loop().run_in_executor(self._checking, work)


def _nothing() -> None:
    pass


def _ended(task: asyncio.Task[R]) -> R | BaseException | None:
    if not task.done() or task.cancelled():
        return None
    return task.exception() or task.result()
