"""What a run spends: each cell's usage priced, the run's total, and the optional budget (`maxCostUsd`).

Prices come from the suite's `prices:` table, overridden model by model by the RunConfig's (on the
cluster, the Evaluation's): `run.preparation`. The formula is `contract.PriceConfig.cost_usd`, the only one.
A CLI agent's usage is what the CLI itself reported (presets.py parses it); the chat agent's and the model
judges' calls are metered at the gateway client (gateway/usage.py). Once the money spent reaches the budget
no new cell starts: those cells are recorded as not started, with the reason, and the gate's `complete`
rule blocks the verdict. Cells already running finish, so a run can overshoot the budget by up to
`concurrency` cells.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from assay_runner.agents.base import Agent, AgentOutcome, ConversingAgent, Turn, Workspace
from assay_runner.contract import PriceConfig, Usage
from assay_runner.errors import InputError
from assay_runner.gateway.usage import UsageMeter
from assay_runner.run.preparation import Prepared, unpriced_models
from assay_runner.suite.models import Ticket

if TYPE_CHECKING:
    from assay_runner.gateway.metering.ledger import Ledger  # a run with a metering proxy only

HOW_TO_PRICE = (
    "give it a price: `--price MODEL=INPUT,OUTPUT` (USD per million tokens), the suite's `prices:` or the "
    "RunConfig's `prices`"
)


def check_prices(
    prices: Mapping[str, PriceConfig], budget: float | None, models: Mapping[str, str | None]
) -> None:
    """Before the first cell: with a price table or a budget, every model the run calls (`models`: who
    calls it -> the model) must have a price, else the run is bad input (exit 2) rather than billed at $0.
    Without either, costs are not tracked (every cost is 0) and nothing is checked. The proxy refuses any
    call naming another unpriced model all the same (`gateway.metering.ledger`)."""
    if budget is None and not prices:
        return
    unpriced = unpriced_models(prices, models)
    if not unpriced:
        return
    known = ", ".join(sorted(prices)) or "none"
    why = "a budget (maxCostUsd) is set" if budget is not None else f"the run prices models ({known})"
    raise InputError(f"{', '.join(unpriced)} has no price, and {why}: {HOW_TO_PRICE}")


def check_run_prices(prepared: Prepared, *, agent: bool = True, judges: bool = True) -> None:
    """`check_prices` for a run's models (`Prepared.models`). The answer phase (`assay answer`, an answer pod)
    calls no judge and checks only its agent's; the judge phase (`assay score`, the judge pod) calls no
    agent and checks only the judges'; `assay run` checks both before its preflight call."""
    models = prepared.models(agent=agent, judges=judges)
    check_prices(prepared.prices, prepared.config.max_cost_usd, models)


@dataclass
class Spending:
    """Money spent so far: by program agents through the metering proxy (its ledger), by agents that report
    their own usage (cells), and by Assay's own gateway calls (the meter)."""

    meter: UsageMeter
    agent_price: PriceConfig | None
    max_cost_usd: float | None = None
    ledger: Ledger | None = None
    customers: UsageMeter | None = None
    """The model customers' calls (conversational tickets), metered apart from the agent's."""
    agent_cost_usd: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def spent(self) -> float:
        with self._lock:
            proxied = self.ledger.spent if self.ledger is not None else 0.0
            customers = self.customers.cost_usd if self.customers is not None else 0.0
            return self.agent_cost_usd + self.meter.cost_usd + proxied + customers

    def exhausted(self) -> bool:
        if self.ledger is not None and self.ledger.stopped is not None:
            return True
        return self.max_cost_usd is not None and self.spent() >= self.max_cost_usd

    def not_started(self) -> str:
        """Why a cell is not started: the budget spent, or the reason the proxy stopped the spending (a
        model without a price, a reply whose usage could not be counted), whichever it was."""
        spent = self.spent()
        if self.max_cost_usd is not None and spent >= self.max_cost_usd:
            budget = f"maxCostUsd {self.max_cost_usd:g}, ${spent:.4f} spent"
            return f"incomplete: not started, the budget was spent ({budget})"
        stopped = self.ledger.stopped if self.ledger is not None else None
        return f"incomplete: not started, the spending was stopped: {stopped} (${spent:.4f} spent)"

    def priced(self, usage: Usage | None, *, metered: bool) -> Usage | None:
        """`usage` with its cost; counted against the budget unless the meter already counted it."""
        if usage is None:
            return None
        usage = usage.priced(self.agent_price)
        if not metered:
            with self._lock:
                self.agent_cost_usd += usage.cost_usd
        return usage


class PricedAgent:
    """An agent whose outcomes carry the cost of their usage, counted in `spending`."""

    def __init__(self, inner: Agent, spending: Spending) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.spending = spending

    async def run(self, ticket: Ticket, repetition: int, workspace: Workspace) -> AgentOutcome:
        return self._priced(await self.inner.run(ticket, repetition, workspace), workspace)

    async def turn(self, ticket: Ticket, repetition: int, workspace: Workspace, turn: Turn) -> AgentOutcome:
        """A conversation's turn (the inner agent converses: `conversation.customers.check_conversing`)."""
        inner: ConversingAgent = self.inner  # type: ignore[assignment]
        return self._priced(await inner.turn(ticket, repetition, workspace, turn), workspace)

    def _priced(self, outcome: AgentOutcome, workspace: Workspace) -> AgentOutcome:
        # The chat agent's calls go through the metered gateway client, a program agent's through the
        # metering proxy (workspace.gateway): counted there already.
        metered = self.kind == "chat" or workspace.gateway is not None
        usage = self.spending.priced(outcome.usage, metered=metered)
        return replace(outcome, usage=usage)


def total_usage(metered: Usage, cells: Iterable[Usage | None], *, agent_metered: bool) -> Usage:
    """A run's usage: Assay's own metered gateway calls (model judges, and the chat agent when it ran in
    this process: `agent_metered`), plus the agent's usage recorded per cell, priced where it was counted
    (the metering proxy, by the model each call named; else at the agent's price)."""
    total = metered
    if agent_metered:
        return total
    for usage in cells:
        if usage is not None:
            total = total.plus(usage)
    return total
