"""Workspaces made ahead of their agents, in queue order.

Making a workspace (copying the brain and the KB, making them read-only) takes a few milliseconds; done
inside the agent slot, every slot would sit idle that long between one agent's exit and the next one's
start. A background task makes the next `ahead` workspaces while agents run, in the queue's order, so a
freed slot starts its next agent at once. Workspaces made but never taken (a stop request) are discarded,
the one being made when the stop came too, once its thread has finished it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from concurrent.futures import Executor

from assay_runner.agents.base import Workspace
from assay_runner.agents.workspace import WorkspaceFactory
from assay_runner.suite.models import Ticket

Cell = tuple[str, int]


class WorkspacePrefetch:
    def __init__(
        self,
        factory: WorkspaceFactory,
        order: Sequence[tuple[Ticket, int]],
        ahead: int,
        executor: Executor | None = None,
    ) -> None:
        """`executor` runs the file work (None: the loop's default executor)."""
        loop = asyncio.get_running_loop()
        self.loop = loop
        self.executor = executor
        self.factory = factory
        self.order = list(order)
        self.ready: dict[Cell, asyncio.Future[Workspace]] = {
            (t.id, r): loop.create_future() for t, r in self.order
        }
        self.taken: set[Cell] = set()
        self.room = asyncio.Semaphore(ahead)
        # The workspace being made when the producer was cancelled: its thread goes on and finishes it.
        self.orphan: asyncio.Future[Workspace] | None = None
        self.producer = asyncio.create_task(self._produce(), name="workspace prefetch")

    async def _produce(self) -> None:
        for ticket, repetition in self.order:
            await self.room.acquire()
            future = self.ready[(ticket.id, repetition)]
            making = self.loop.run_in_executor(self.executor, self.factory.create, ticket, repetition)
            try:
                workspace = await asyncio.shield(making)
                future.set_result(workspace)
            except asyncio.CancelledError:
                self.orphan = making
                raise
            except Exception as exc:  # the cell reports it; the queue goes on
                future.set_exception(exc)

    async def take(self, ticket: Ticket, repetition: int) -> Workspace:
        cell = (ticket.id, repetition)
        # Cancelled while waiting (a stop request): the workspace stays untaken, and close() discards it.
        try:
            workspace = await asyncio.shield(self.ready[cell])
        except Exception:
            self._taken(cell)
            raise
        self._taken(cell)
        return workspace

    def _taken(self, cell: Cell) -> None:
        self.taken.add(cell)
        self.room.release()

    async def close(self) -> None:
        """Stop making workspaces; discard those made but not taken."""
        self.producer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.producer
        made = [
            future.result()
            for cell, future in self.ready.items()
            if cell not in self.taken and future.done() and not future.cancelled() and not future.exception()
        ]
        if self.orphan is not None:
            with contextlib.suppress(Exception):  # failed to be made: nothing to discard
                made.append(await self.orphan)
        for workspace in made:
            await self.loop.run_in_executor(self.executor, self.factory.discard, workspace)
