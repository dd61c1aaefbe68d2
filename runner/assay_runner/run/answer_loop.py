"""Every cell of a run through the answer step, then through what the phase does with an answer.

`assay run` hands each answered cell to the judge step; the answer phase hands it to the record step.
Both share this loop: the agent (priced, within the budget), the workspaces, the pool's slots, the queue
(repetition-major: every ticket's first repetition before any second one, so a run cut short still covers
every ticket) and the stop switch. A stop request (Ctrl-C, SIGTERM, the answer phase's deadline) keeps every
finished cell; the unfinished ones come back as None.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from assay_runner.agents.factory import build_agent
from assay_runner.agents.workspace import Placement, WorkspaceFactory
from assay_runner.conversation.customers import build_customers, check_conversing
from assay_runner.gateway.access import ModelAccess
from assay_runner.processes import sweep
from assay_runner.run.answer_step import AnswerStep, Tally
from assay_runner.run.cell import Answered, Cell, cell_key
from assay_runner.run.isolation import run_sandbox
from assay_runner.run.preparation import Prepared
from assay_runner.run.scheduler import CellPool
from assay_runner.run.shards import cells_of
from assay_runner.run.spending import PricedAgent, Spending, check_run_prices
from assay_runner.suite.models import Ticket
from assay_runner.views.progress import Counts
from assay_runner.vocabulary import PROGRAM_KINDS

if TYPE_CHECKING:
    # httpx (with the rich, click and pygments its own CLI imports) is imported by the proxy and the
    # sidecar link: a run without a gateway never needs it, and must not wait for it before its first agent.
    from assay_runner.gateway.metering.proxy import MeteringProxy
    from assay_runner.gateway.sidecar_link import SidecarLink

R = TypeVar("R")
Then = Callable[[Ticket, int, Answered], Awaitable[R]]


@dataclass
class Control:
    """What a phase is steered by from outside: the stop switch and the progress counts."""

    stop: asyncio.Event = field(default_factory=asyncio.Event)
    counts: Counts | None = None
    signal: int | None = None
    """The signal that asked the phase to stop (SIGINT, SIGTERM), if one did."""

    def interrupt(self, signum: int) -> None:
        """A signal's stop request: the phase stops cleanly, and the command says it was interrupted."""
        if self.signal is None:
            self.signal = signum
        self.stop.set()


async def answer_cells(
    prepared: Prepared,
    access: ModelAccess,
    control: Control,
    then: Callable[[CellPool], Then[R]],
    order: Sequence[tuple[Ticket, int]] | None = None,
    sidecar: SidecarLink | None = None,
    warm: Sequence[Callable[[], object]] = (),
) -> dict[Cell, R | BaseException | None]:
    """Answer every cell (or those of `order`, in that order: a shard's, the ones a resumed phase still
    needs) and hand each answer to `then(pool)` (given the pool, for its file-work thread). Each cell maps
    to what `then` returned, the exception the cell raised, or None if it did not finish. `sidecar`: the
    gateway is reached through the gateway sidecar (`gateway.sidecar_link`). `warm`: what `then`'s
    first use would start slowly (the code judge's workers), started while the first agents run
    (`run.scheduler`)."""
    config = prepared.config
    sandbox = run_sandbox(prepared)  # before anything starts: a kernel short of what is required is exit 2
    agent = build_agent(config, access.client, sandbox)
    check_conversing(agent, (ticket for ticket, _ in order or cells_of(prepared.tickets, 1)))
    customers = build_customers(prepared.tickets, access.client, config.judge_model, prepared.prices)
    # The agent's model priced before the first cell; `assay run` checked the judges' before its preflight.
    check_run_prices(prepared, judges=False)
    proxy = metering_proxy(prepared, sidecar) if agent.kind in PROGRAM_KINDS else None
    ledger = proxy.ledger if proxy is not None else None
    spending = Spending(access.meter, prepared.agent_price, config.max_cost_usd, ledger, customers.meter)
    agent = PricedAgent(agent, spending)
    workspaces = WorkspaceFactory(
        Path(config.output.workspace_root) if config.output.workspace_root else None,
        Path(config.brain) if config.brain else None,
        prepared.suite.kb,
        placed=replayed_workspaces(proxy),
    )
    order = list(order) if order is not None else cells_of(prepared.tickets, config.repetitions)
    tally = Tally(control.counts)
    tally.starting(len(order))
    pool = CellPool(
        workspaces,
        order,
        slots=config.concurrency,
        keep_workspaces=config.output.keep_workspaces,
        warm=warm,
    )
    async with contextlib.AsyncExitStack() as stack:
        if proxy is not None:
            await stack.enter_async_context(proxy)
        await stack.enter_async_context(pool)
        step = AnswerStep(
            pool,
            agent,
            spending,
            tally,
            proxy,
            prepared.suite.kb,
            customers=customers,
            cell_seconds=config.agent.timeout_seconds,
        )
        after = then(pool)

        async def cell(ticket: Ticket, repetition: int) -> R:
            answered = await step.answer(ticket, repetition)
            outcome = await after(ticket, repetition, answered)
            tally.finished(not answered.ok, answered.summary((ticket.id, repetition)))
            return outcome

        ran = await pool.run(cell, control.stop)
        sweep()  # the last agent's leftovers: nothing an agent started outlives the loop
    return ran


def replayed_workspaces(proxy: MeteringProxy | None) -> Placement | None:
    """A replayed cell's workspace goes where it was recorded (its CLI's replies name paths in it)."""
    if proxy is None:
        return None

    def placed(ticket: Ticket, repetition: int) -> Path | None:
        return proxy.recorded_workspace(cell_key(ticket.id, repetition))

    return placed


def metering_proxy(prepared: Prepared, sidecar: SidecarLink | None = None) -> MeteringProxy | None:
    """The proxy a program agent's model calls go through: the run's gateway (and its token, which only
    this process holds — or, with `sidecar`, no token: the gateway sidecar adds it), the run's prices and
    budget, and its cassettes. None when there is no gateway to reach (and nothing to replay): such an
    agent calls no model through Assay."""
    config = prepared.config
    cassettes = config.cassettes
    if cassettes is None and config.gateway is None:
        return None  # nothing to reach, nothing to replay: the metering modules are never imported
    from assay_runner.gateway.metering.exchanges import EXCHANGES_DIR, Exchanges
    from assay_runner.gateway.metering.ledger import Ledger

    mode = cassettes.mode if cassettes else "off"
    exchanges = Exchanges(Path(cassettes.dir)) if cassettes else None
    if mode == "replay" and exchanges is not None and not exchanges.root.is_dir() and config.gateway:
        # Cassettes that hold no agent exchanges (only the model judge's calls): the agent is replayed
        # from nothing, so its calls go to the gateway, said once.
        print(
            f"assay: note: {exchanges.root.parent} holds no agent exchanges ({EXCHANGES_DIR}/): the agent's "
            "model calls go to the gateway; the model judge's are replayed",
            file=sys.stderr,
        )
        mode, exchanges = "off", None
    if config.gateway is None and mode != "replay":
        return None
    from assay_runner.gateway.http import gateway_token
    from assay_runner.gateway.metering.proxy import MeteringProxy

    return MeteringProxy(
        config.gateway,
        Ledger(prepared.prices, config.max_cost_usd, sidecar.spent_before if sidecar is not None else 0.0),
        token=None if sidecar is not None else gateway_token("agent"),
        exchanges=exchanges,
        mode=mode,
        transport=sidecar.transport() if sidecar is not None else None,
    )
