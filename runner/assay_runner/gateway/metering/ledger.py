"""What the agents spent, cell by cell, counted from the upstream's own usage — and the budget that caps it.

A request is admitted, forwarded, then settled with the tokens its reply states (`usage.UsageReader`),
priced by the model the request names (`contract.PriceConfig.cost_usd`). With a budget (`maxCostUsd`):

- no request is admitted once the money spent reaches it;
- while requests are in flight each holds a reservation, the cost of the largest request settled so far,
  and a new one is admitted only while what is spent and reserved stays under the budget (the first
  request of a run, whose cost is unknown, goes alone); so the budget is overshot by at most the requests
  in flight when it is crossed, and once it is near, by one;
- a model without a price, or a reply whose usage cannot be counted, stops the run's spending: what cannot
  be priced or counted cannot be capped.

With a price table (and always with a budget) a call naming a model without a price is refused, an error
of its cell, never billed at $0; the run checks its models before its first cell (`run.spending`).

Otherwise, without a budget, everything is admitted and counted all the same; a reply without countable
usage is an error of its cell (it blocks), never zero. Calls the proxy refuses before they are admitted
(another cell's credential, a path it does not forward) are recorded in the cells they name
(`CellSpend.refuse`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from assay_runner.contract import PriceConfig, Usage
from assay_runner.gateway.metering.usage import Counted

MAX_REFUSALS = 20


class Refused(Exception):
    """A request the budget does not allow (the agent gets an error reply saying why)."""


@dataclass
class CellSpend:
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    requests: int = 0
    error: str | None = None
    """Why this cell's spending could not be counted (it blocks)."""
    refused: list[str] = field(default_factory=list)
    """Calls made in this cell's name (or with its credential) that the proxy refused, each named; the
    first MAX_REFUSALS are kept (`refusals` counts them all)."""
    refusals: int = 0

    def refuse(self, why: str) -> None:
        """Record a call refused in this cell's name: it blocks the cell."""
        self.refusals += 1
        if len(self.refused) < MAX_REFUSALS:
            self.refused.append(why)
        self.error = self.error or f"the metering proxy refused a call: {why}"

    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.input_tokens, output_tokens=self.output_tokens, cost_usd=round(self.cost_usd, 6)
        )


@dataclass
class Reservation:
    cell: str
    price: PriceConfig | None
    amount: float


@dataclass
class Ledger:
    prices: Mapping[str, PriceConfig] = field(default_factory=dict)
    budget: float | None = None
    spent_before: float = 0.0
    """What earlier attempts of the same cells spent (a retried answer pod's): counted against the budget,
    in no cell of this ledger."""
    cells: dict[str, CellSpend] = field(default_factory=dict)
    spent: float = 0.0
    stopped: str | None = None
    """Why no request is admitted any more (the budget is spent, or cannot be kept)."""
    _largest: float | None = None
    _in_flight: list[Reservation] = field(default_factory=list)
    _changed: asyncio.Condition | None = None

    def __post_init__(self) -> None:
        if self.budget is not None and not (math.isfinite(self.budget) and self.budget > 0):
            raise ValueError(f"the budget must be a finite amount above 0, got {self.budget}")
        if not (math.isfinite(self.spent_before) and self.spent_before >= 0):
            raise ValueError(f"the earlier spend must be finite and 0 or more, got {self.spent_before}")
        self.spent += self.spent_before

    def cell(self, cell: str) -> CellSpend:
        return self.cells.setdefault(cell, CellSpend())

    def total(self) -> Usage:
        total = Usage()
        for spend in self.cells.values():
            total = total.plus(spend.usage())
        return total

    def in_flight(self) -> dict[str, int]:
        """Calls admitted and not yet settled, by cell."""
        counts: dict[str, int] = {}
        for reservation in self._in_flight:
            counts[reservation.cell] = counts.get(reservation.cell, 0) + 1
        return counts

    def resume(self, cells: Mapping[str, CellSpend], stopped: str | None) -> None:
        """Carry on from what an earlier process counted (a restarted gateway sidecar)."""
        self.cells = dict(cells)
        self.spent = self.spent_before + sum(spend.cost_usd for spend in cells.values())
        self.stopped = stopped

    @property
    def exhausted(self) -> bool:
        return self.stopped is not None or (self.budget is not None and self.spent >= self.budget)

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def admit(self, cell: str, model: str | None) -> Reservation:
        """Admit a request of `cell` for `model`, waiting while the requests in flight might spend the
        rest of the budget; raises Refused when the budget does not allow it."""
        price = self.prices.get(model or "")
        if price is None and (self.budget is not None or self.prices):
            why = (
                f"no price for model {model!r} (priced: {', '.join(sorted(self.prices)) or 'none'}): what "
                "cannot be priced is not billed at $0"
            )
            if self.budget is not None:
                self._stop(f"{why}, and a budget cannot be kept on it")
            self.cell(cell).error = self.cell(cell).error or why
            raise Refused(why)
        if self.budget is None:
            return self._hold(Reservation(cell, price, 0.0))
        async with self._condition():
            while True:
                if self.stopped is not None:
                    raise Refused(self.stopped)
                if self.spent >= self.budget:
                    before = (
                        f", ${self.spent_before:.6f} of it by earlier attempts" if self.spent_before else ""
                    )
                    self._stop(
                        f"the budget is spent (maxCostUsd {self.budget:g}, ${self.spent:.6f} spent{before})"
                    )
                reserve = self._largest if self._largest is not None else math.inf
                reserved = sum(r.amount for r in self._in_flight)
                if not self._in_flight or self.spent + reserved + reserve < self.budget:
                    finite = reserve if math.isfinite(reserve) else 0.0
                    return self._hold(Reservation(cell, price, finite))
                await self._condition().wait()

    def _hold(self, reservation: Reservation) -> Reservation:
        self._in_flight.append(reservation)
        return reservation

    def _stop(self, reason: str) -> None:
        self.stopped = self.stopped or reason
        raise Refused(self.stopped)

    async def quiet(self, cell: str, within: float) -> bool:
        """Wait until no request of `cell` is in flight (a killed agent's last reply is still being read to
        its end); False when one still is after `within` seconds."""

        async def settled() -> None:
            async with self._condition():
                await self._condition().wait_for(lambda: all(r.cell != cell for r in self._in_flight))

        try:
            await asyncio.wait_for(settled(), within)
        except TimeoutError:
            return False
        return True

    async def settle(
        self, reservation: Reservation, counted: Counted | None, error: str | None = None
    ) -> None:
        """The reply ended: its tokens counted (or, with `error`, not countable)."""
        spend = self.cell(reservation.cell)
        spend.requests += 1
        if counted is not None:
            cost = (
                reservation.price.cost_usd(counted.input_tokens, counted.output_tokens)
                if reservation.price
                else 0.0
            )
            spend.input_tokens += counted.input_tokens
            spend.output_tokens += counted.output_tokens
            spend.cost_usd += cost
            self.spent += cost
            self._largest = max(self._largest or 0.0, cost)
        if error is not None:
            spend.error = spend.error or f"the gateway's usage could not be counted: {error}"
            if self.budget is not None:
                self.stopped = self.stopped or f"spending cannot be capped: {error}"
        async with self._condition():
            self._in_flight.remove(reservation)
            self._condition().notify_all()
