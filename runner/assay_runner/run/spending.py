"""What a run spends: each cell's usage priced, the run's total, and the optional budget (`maxCostUsd`).

Prices come from the suite's `prices:` table, overridden model by model by the RunConfig's (on the
cluster, the Evaluation's). A CLI agent's usage is what the CLI itself reported (presets.py parses it); the
chat agent's and the model judges' calls are metered at the gateway client (gateway/usage.py). Once the money
spent reaches the budget no new cell starts: those cells are recorded as not started, with the reason, and
the gate's `complete` rule blocks the verdict. Cells already running finish, so a run can overshoot the
budget by up to `concurrency` cells.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

from assay_runner.agents.base import Agent, AgentOutcome, Workspace
from assay_runner.contract import PriceConfig, RunConfig, Usage
from assay_runner.gateway.usage import Price, UsageMeter
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import Ticket


def price_table(suite: Suite, config: RunConfig) -> dict[str, Price]:
    """The suite's prices, then the RunConfig's: a model priced in both takes the RunConfig's."""
    table: dict[str, PriceConfig] = {**suite.spec.prices, **config.prices}
    return {model: Price(p.input_per_million, p.output_per_million) for model, p in table.items()}


def cost_of(usage: Usage, price: Price | None) -> float:
    if price is None:
        return 0.0
    tokens = usage.input_tokens * price.input_per_million + usage.output_tokens * price.output_per_million
    return tokens / 1e6


@dataclass
class Spending:
    """Money spent so far by the agent's CLI (cells) and by Assay's own gateway calls (the meter)."""

    meter: UsageMeter
    agent_price: Price | None
    max_cost_usd: float | None = None
    agent_cost_usd: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def spent(self) -> float:
        with self._lock:
            return self.agent_cost_usd + self.meter.cost_usd

    def exhausted(self) -> bool:
        return self.max_cost_usd is not None and self.spent() >= self.max_cost_usd

    def not_started(self) -> str:
        return (
            f"incomplete: not started, the budget was spent (maxCostUsd {self.max_cost_usd:g}, "
            f"${self.spent():.4f} spent)"
        )

    def priced(self, usage: Usage | None, *, metered: bool) -> Usage | None:
        """`usage` with its cost; counted against the budget unless the meter already counted it."""
        if usage is None:
            return None
        cost = round(cost_of(usage, self.agent_price), 6)
        if not metered:
            with self._lock:
                self.agent_cost_usd += cost
        return usage.model_copy(update={"cost_usd": cost})


class PricedAgent:
    """An agent whose outcomes carry the cost of their usage, counted in `spending`."""

    def __init__(self, inner: Agent, spending: Spending) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.spending = spending

    async def run(self, ticket: Ticket, repetition: int, workspace: Workspace) -> AgentOutcome:
        outcome = await self.inner.run(ticket, repetition, workspace)
        # The chat agent's calls go through the metered gateway client: priced there already.
        usage = self.spending.priced(outcome.usage, metered=self.kind == "chat")
        return replace(outcome, usage=usage)
