"""A whole evaluation: every ticket x repetition through the agent and the judges, bounded and fair.

- Cells are queued repetition-major (every ticket's first repetition before any second one), so a run cut
  short still covers every ticket.
- At most `concurrency` agents run at once; a cell's judges start as soon as its answer exists and run
  outside the agent slot, overlapping the next agents.
- A stop request (Ctrl-C, SIGTERM) cancels what is running — agent processes are killed — and keeps every
  finished cell; the unfinished ones are recorded as incomplete, which blocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from assay_runner.agents.base import Agent, AgentOutcome
from assay_runner.agents.factory import build_agent
from assay_runner.agents.workspace import WorkspaceFactory
from assay_runner.contract import (
    GateSettings,
    Inputs,
    RepetitionResult,
    Result,
    RunConfig,
    Usage,
)
from assay_runner.core.digests import digest_files, judges_digest, read_tree, suite_digest
from assay_runner.core.results import build_result, now_iso, repetition_result, ticket_results
from assay_runner.gateway.access import ModelAccess, model_access
from assay_runner.judges import AnyJudge, Case, build_judges
from assay_runner.judges.judging import judge_cell
from assay_runner.run import collector
from assay_runner.run.prefetch import WorkspacePrefetch
from assay_runner.run.spending import PricedAgent, Spending, price_table
from assay_runner.run.warmup import prepare_rest
from assay_runner.suite.loader import Suite, load_suite
from assay_runner.suite.models import Ticket

T = TypeVar("T")
log = logging.getLogger("assay.run")
INCOMPLETE = "incomplete: the run stopped before this cell finished"


@dataclass
class Progress:
    """Counts for the progress display; `on_change` is called after every update."""

    total: int = 0
    done: int = 0
    running: int = 0
    failed: int = 0
    on_change: Callable[[Progress, str], None] | None = field(default=None, repr=False)

    def update(self, message: str = "") -> None:
        if self.on_change is not None:
            self.on_change(self, message)


@dataclass
class Evaluation:
    """What `run_evaluation` needs beyond the config: the stop switch and the progress hook."""

    config: RunConfig
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    progress: Progress | None = None


def gate_settings(suite: Suite, config: RunConfig) -> GateSettings:
    overrides = config.gate.model_dump(exclude={"thresholds"}, exclude_none=True)
    return suite.spec.gate.model_copy(update=overrides)


def apply_thresholds(suite: Suite, config: RunConfig) -> Suite:
    from assay_runner.errors import InputError

    thresholds = config.gate.thresholds
    if not thresholds:
        return suite
    names = {j.name for j in suite.spec.judges}
    unknown = sorted(set(thresholds) - names)
    if unknown:
        raise InputError(
            f"gate.thresholds names unknown judge(s) {', '.join(unknown)}; judges: {', '.join(sorted(names))}"
        )
    judges = [
        j.model_copy(update={"threshold": thresholds.get(j.name, j.threshold)}) for j in suite.spec.judges
    ]
    return Suite(
        spec=suite.spec.model_copy(update={"judges": judges}),
        root=suite.root,
        tickets=suite.tickets,
        kb=suite.kb,
        files=suite.files,
    )


class CellRunner:
    def __init__(
        self,
        agent: Agent,
        judges: list[AnyJudge],
        workspaces: WorkspacePrefetch,
        checker: Executor,
        slots: int,
        keep_workspaces: bool,
        progress: Progress | None,
        spending: Spending | None = None,
    ) -> None:
        """`checker` runs the checks and discards of finished agents' workspaces, off the event loop."""
        self.agent = agent
        self.checker = checker
        self.judges = judges
        self.prefetch = workspaces
        self.workspaces = workspaces.factory
        self.slots = asyncio.Semaphore(slots)
        self.keep = keep_workspaces
        self.progress = progress
        self.spending = spending
        # Set once every slot has had its first agent started (or every cell, if fewer): from then on the
        # loop mostly waits, and the end of the run can be prepared (assay_runner.run.warmup).
        self.first_wave = asyncio.Event()
        self._to_first_wave = min(slots, len(workspaces.order))

    async def _file_work(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.checker, work)

    def _bump(self, **changes: int) -> None:
        if self.progress is None:
            return
        for name, delta in changes.items():
            setattr(self.progress, name, getattr(self.progress, name) + delta)

    async def _agent(self, ticket: Ticket, repetition: int) -> tuple[AgentOutcome | None, Path | None]:
        """The agent's outcome, or None when the budget was spent before this cell's turn came."""
        # The slot covers only the agent's own run: its workspace was made ahead (WorkspacePrefetch), and
        # checking and discarding it happen after the slot is released, off the event loop.
        async with self.slots:
            workspace = await self.prefetch.take(ticket, repetition)
            if self.spending is not None and self.spending.exhausted():
                await self._file_work(partial(self.workspaces.discard, workspace))
                return None, None
            self._bump(running=1)
            self._to_first_wave -= 1
            if self._to_first_wave == 0:
                self.first_wave.set()  # its waiter runs after this task has started the agent
            if self.progress:
                self.progress.update()
            try:
                started_at = time.time()
                outcome = replace(await self.agent.run(ticket, repetition, workspace), started_at=started_at)
            except BaseException:
                await self._file_work(partial(self.workspaces.discard, workspace))
                raise
            finally:
                self._bump(running=-1)
        # Let the cell that takes the freed slot start its agent before this one's checks compete with it.
        await asyncio.sleep(0)
        checked = partial(self.workspaces.check_and_discard, workspace, keep=self.keep)
        if not await self._file_work(checked):
            outcome = replace(outcome, error="the agent modified its read-only brain/ or kb/ files")
        return outcome, (workspace.root if self.keep else None)

    async def run(self, ticket: Ticket, repetition: int) -> RepetitionResult:
        outcome, kept = await self._agent(ticket, repetition)
        if outcome is None:  # not started: the budget was spent (no judge runs, nothing more is spent)
            assert self.spending is not None
            self._bump(done=1, failed=1)
            return repetition_result(
                repetition, {}, answer=None, exit_code=None, error=self.spending.not_started()
            )
        error = outcome.error
        if outcome.answer is None and error is None:
            error = f"the agent left no answer (exit code {outcome.exit_code})"
        case = Case(
            ticket=ticket,
            repetition=repetition,
            answer=outcome.answer or "",
            exit_code=outcome.exit_code,
            transcript=outcome.transcript,
            files=outcome.files,
        )
        judging = time.monotonic()
        verdicts = await judge_cell(self.judges, case)  # outside the agent slot: overlaps the next agents
        judge_seconds = time.monotonic() - judging
        cell = repetition_result(
            repetition,
            verdicts,
            answer=outcome.answer,
            exit_code=outcome.exit_code,
            error=error,
            wall_seconds=round(outcome.wall_seconds, 3),
            usage=outcome.usage,
            transcript=outcome.transcript,
            started_at=outcome.started_at,
            judge_seconds=round(judge_seconds, 4),
        )
        failed = error is not None or outcome.exit_code != 0 or any(v.error for v in verdicts.values())
        self._bump(done=1, failed=1 if failed else 0)
        if self.progress:
            note = f" (workspace kept at {kept})" if kept else ""
            self.progress.update(
                f"{ticket.id}#{repetition} exit {outcome.exit_code} in {outcome.wall_seconds:.1f}s"
                f"{' ' + error if error else ''}{note}"
            )
        return cell


def brain_digest(brain: str | None) -> str | None:
    return digest_files(read_tree(Path(brain))) if brain else None


def total_usage(
    access: ModelAccess, cells: dict[tuple[str, int], RepetitionResult], agent: Agent, model: str | None
) -> Usage:
    """Assay's own gateway calls (chat agent, model judge) are metered; CLI agents report theirs per cell."""
    usage = access.meter.usage()
    if agent.kind == "chat":
        return usage  # already metered: its per-cell usage is the same calls
    reported = [c.usage for c in cells.values() if c.usage is not None]
    inputs = sum(u.input_tokens for u in reported)
    outputs = sum(u.output_tokens for u in reported)
    cost = sum(u.cost_usd for u in reported)  # each cell priced as it finished (run/spending.py)
    return Usage(
        input_tokens=usage.input_tokens + inputs,
        output_tokens=usage.output_tokens + outputs,
        cost_usd=round(usage.cost_usd + cost, 6),
    )


async def run_evaluation(evaluation: Evaluation) -> Result:
    config = evaluation.config
    started = now_iso()
    suite = apply_thresholds(load_suite(config.suite, config.kb), config)
    tickets = suite.select(config.tickets)
    prices = price_table(suite, config)
    cassettes = config.cassettes
    access = model_access(
        config.gateway,
        Path(cassettes.dir) if cassettes else None,
        cassettes.mode if cassettes else None,
        prices,
    )
    # Workspace file work, off the event loop: one thread makes the next workspaces, one checks and discards
    # those agents finished with. One each, not one per slot: the work is a few system calls per workspace,
    # and every extra thread is one more contender for the interpreter lock when the loop has an agent to
    # start.
    making = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-workspace-make")
    checking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-workspace-check")
    try:
        spending = Spending(access.meter, prices.get(config.agent.model or ""), config.max_cost_usd)
        agent = PricedAgent(build_agent(config, access.client), spending)
        judges = build_judges(suite, access.client, config.judge_model)
        workspaces = WorkspaceFactory(
            Path(config.output.workspace_root) if config.output.workspace_root else None,
            Path(config.brain) if config.brain else None,
            suite.kb,
        )
        order = [(t, r) for r in range(1, config.repetitions + 1) for t in tickets]
        if evaluation.progress is not None:
            evaluation.progress.total = len(order)
        collector.resume()  # start-up is over (see assay_runner.run.collector)
        runner = CellRunner(
            agent,
            judges,
            WorkspacePrefetch(workspaces, order, ahead=config.concurrency, executor=making),
            checking,
            config.concurrency,
            config.output.keep_workspaces,
            evaluation.progress,
            spending,
        )
        preparing = asyncio.create_task(
            prepare_rest(runner.first_wave, checking, background=[workspaces.reference]),
            name="prepare the rest of the run",
        )
        try:
            cells = await _run_cells(runner, order, evaluation.stop)
        finally:
            preparing.cancel()  # done long since, unless the run was short or stopped: then not needed
            with contextlib.suppress(asyncio.CancelledError):
                await preparing
    finally:
        making.shutdown(wait=False)
        checking.shutdown(wait=False)
        await access.aclose()
    inputs = Inputs(
        brain_digest=brain_digest(config.brain),
        suite_digest=suite_digest(suite),
        judges_digest=judges_digest(suite),
    )
    return build_result(
        suite,
        ticket_results(tickets, cells),
        config.repetitions,
        inputs,
        started_at=started,
        run_name=config.run_name,
        usage=total_usage(access, cells, agent, config.agent.model),
        gate=gate_settings(suite, config),
    )


async def _run_cells(
    runner: CellRunner, order: list[tuple[Ticket, int]], stop: asyncio.Event
) -> dict[tuple[str, int], RepetitionResult]:
    tasks = {asyncio.create_task(runner.run(t, r)): (t.id, r) for t, r in order}
    stopper = asyncio.create_task(stop.wait())
    pending: set[asyncio.Task[RepetitionResult] | asyncio.Task[bool]] = set(tasks)
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
        await runner.prefetch.close()
    cells: dict[tuple[str, int], RepetitionResult] = {}
    for task, (ticket_id, repetition) in tasks.items():
        if task.done() and not task.cancelled() and task.exception() is None:
            cells[(ticket_id, repetition)] = task.result()
        elif task.done() and not task.cancelled() and task.exception() is not None:
            error = f"could not run this cell: {task.exception()!r}"
            cells[(ticket_id, repetition)] = repetition_result(
                repetition, {}, answer=None, exit_code=None, error=error
            )
        else:
            cells[(ticket_id, repetition)] = repetition_result(
                repetition, {}, answer=None, exit_code=None, error=INCOMPLETE
            )
    return cells
