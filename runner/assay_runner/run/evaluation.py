"""A whole evaluation: every ticket x repetition is a cell, and each cell is the same story — a fresh
workspace, the agent in it, the judges on its answer, the result.

How the cells share the machine (slots, workspaces made ahead, file-work threads, warm-up, the collector,
a stop request) is the cell pool's, in run.scheduler. A stop request (Ctrl-C, SIGTERM) keeps every finished
cell; the unfinished ones are recorded as incomplete, which blocks.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

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
from assay_runner.core.digests import (
    digest_files,
    judges_digest,
    read_tree,
    suite_digest,
    tickets_digest,
    tree_digest,
)
from assay_runner.core.results import build_result, now_iso, repetition_result, ticket_results
from assay_runner.gateway.access import ModelAccess, model_access
from assay_runner.judges import AnyJudge, Case, build_judges
from assay_runner.judges.judging import judge_cell
from assay_runner.run.scheduler import CellPool
from assay_runner.run.spending import PricedAgent, Spending, price_table
from assay_runner.suite.loader import Suite, load_suite
from assay_runner.suite.models import Ticket
from assay_runner.suite.split import KEYS_FILE
from assay_runner.views.progress import Counts

INCOMPLETE = "incomplete: the run stopped before this cell finished"


@dataclass
class Evaluation:
    """What `run_evaluation` needs beyond the config: the stop switch and the progress hook."""

    config: RunConfig
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    progress: Counts | None = None
    cell_work: Callable[..., CellWork] | None = None
    """Builds what each cell does (default CellWork); the answer phase's records answers instead of judging
    them."""


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


class CellWork:
    """What every cell does: its agent runs in a fresh workspace, the judges read the answer, the result is
    recorded. When and where it runs is the pool's (run.scheduler)."""

    def __init__(
        self,
        pool: CellPool,
        agent: Agent,
        judges: list[AnyJudge],
        progress: Counts | None,
        spending: Spending | None = None,
    ) -> None:
        self.pool = pool
        self.agent = agent
        self.judges = judges
        self.progress = progress
        self.spending = spending

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

    async def _agent(self, ticket: Ticket, repetition: int) -> tuple[AgentOutcome | None, Path | None]:
        """The agent's outcome, or None when the budget was spent before this cell's turn came."""
        async with self.pool.seat(ticket, repetition) as seat:
            if self.spending is not None and self.spending.exhausted():
                return None, None  # the seat discards the untouched workspace
            self._bump(running=1)
            if self.progress:
                self.progress.update()
            try:
                started_at = time.time()
                outcome = await self.agent.run(ticket, repetition, seat.workspace)
                outcome = replace(outcome, started_at=started_at)
            finally:
                self._bump(running=-1)
        if not seat.intact:
            outcome = replace(outcome, error="the agent modified its read-only brain/ or kb/ files")
        return outcome, seat.kept

    def _bump(self, **changes: int) -> None:
        if self.progress is None:
            return
        for name, delta in changes.items():
            setattr(self.progress, name, getattr(self.progress, name) + delta)


def brain_digest(brain: str | None) -> str | None:
    return digest_files(read_tree(Path(brain))) if brain else None


def verdict_inputs(suite: Suite, config: RunConfig, tickets: list[Ticket]) -> Inputs:
    """The digests a verdict is bound to: brain, suite (and its parts as mounted when split), the judges
    with the effective gate, and the resolved ticket selection."""
    split = config.keys is not None
    return Inputs(
        brain_digest=brain_digest(config.brain),
        suite_digest=suite_digest(suite),
        judges_digest=judges_digest(suite, gate_settings(suite, config)),
        tickets_digest=tickets_digest([t.id for t in tickets]),
        public_digest=tree_digest(Path(config.suite)) if split else None,
        key_digest=digest_files({KEYS_FILE: Path(config.keys).read_bytes()}) if config.keys else None,
    )


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
    suite = apply_thresholds(load_suite(config.suite, config.kb, config.keys), config)
    tickets = suite.select(config.tickets)
    prices = price_table(suite, config)
    cassettes = config.cassettes
    access = model_access(
        config.gateway,
        Path(cassettes.dir) if cassettes else None,
        cassettes.mode if cassettes else None,
        prices,
    )
    try:
        spending = Spending(access.meter, prices.get(config.agent.model or ""), config.max_cost_usd)
        agent = PricedAgent(build_agent(config, access.client), spending)
        judges = build_judges(suite, access.client, config.judge_model)
        workspaces = WorkspaceFactory(
            Path(config.output.workspace_root) if config.output.workspace_root else None,
            Path(config.brain) if config.brain else None,
            suite.kb,
        )
        # Repetition-major: every ticket's first repetition before any second one, so a run cut short
        # still covers every ticket.
        order = [(t, r) for r in range(1, config.repetitions + 1) for t in tickets]
        if evaluation.progress is not None:
            evaluation.progress.total = len(order)
        pool = CellPool(
            workspaces, order, slots=config.concurrency, keep_workspaces=config.output.keep_workspaces
        )
        async with pool:
            work = (evaluation.cell_work or CellWork)(pool, agent, judges, evaluation.progress, spending)
            ran = await pool.run(work.run, evaluation.stop)
    finally:
        await access.aclose()
    cells = {cell: _recorded(cell[1], outcome) for cell, outcome in ran.items()}
    inputs = verdict_inputs(suite, config, tickets)
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


def _recorded(repetition: int, outcome: RepetitionResult | BaseException | None) -> RepetitionResult:
    """A cell as the result records it: finished, failed to run, or stopped before it finished."""
    if isinstance(outcome, RepetitionResult):
        return outcome
    error = f"could not run this cell: {outcome!r}" if outcome is not None else INCOMPLETE
    return repetition_result(repetition, {}, answer=None, exit_code=None, error=error)
