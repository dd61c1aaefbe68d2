"""The customers of a run, built before its first cell: a conversational suite that cannot be played is bad
input (exit 2), never a run that blocks on every conversation.

A model customer plays on its `model`, else the run's judge model, through the run's gateway (and its
cassettes: recorded and replayed like the model judge's calls) on a meter of its own, so its calls are
priced apart from the agent's (`Customers.meter`). Its model is held to the model judge's independence
rule (`core.independence`): not the agent's own model, or not at all when the suite requires it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from assay_runner.agents.base import Agent
from assay_runner.agents.conversing import cannot_converse
from assay_runner.contract import PriceConfig
from assay_runner.conversation.customer import Customer, ModelCustomer, ScriptedCustomer
from assay_runner.errors import InputError
from assay_runner.gateway.chat import ChatClient
from assay_runner.gateway.usage import MeteredClient, UsageMeter
from assay_runner.suite.models import Ticket, customer_models

__all__ = ["Customers", "build_customers", "can_converse", "check_conversing", "customer_models"]


def is_conversation(ticket: Ticket) -> bool:
    return ticket.key.conversation is not None


def can_converse(agent: Agent) -> bool:
    return cannot_converse(agent) is None


def check_conversing(agent: Agent, tickets: Iterable[Ticket]) -> None:
    """An agent that cannot continue a conversation is refused before the first cell, saying why (an agent
    kind that answers once; a command agent without a continue template)."""
    talking = [ticket.id for ticket in tickets if is_conversation(ticket)]
    reason = cannot_converse(agent)
    if talking and reason is not None:
        raise InputError(
            f"ticket(s) {', '.join(talking)} are conversations, and the {agent.kind} agent cannot continue "
            f"one from turn to turn ({reason}): run them with an agent that can (chat, command with a "
            "continue template, or a CLI preset)"
        )


@dataclass
class Customers:
    """The run's customers by ticket, and the meter of the model customers' calls."""

    meter: UsageMeter
    by_ticket: dict[str, Customer] = field(default_factory=dict)

    def of(self, ticket: Ticket) -> Customer:
        return self.by_ticket[ticket.id]


def build_customers(
    tickets: Iterable[Ticket],
    client: ChatClient | None,
    judge_model: str | None,
    prices: Mapping[str, PriceConfig],
) -> Customers:
    """`client`: the run's model client (`ModelAccess.client`); the model customers get the same gateway
    and cassettes on a meter of their own."""
    meter = UsageMeter(prices=prices)
    customers = Customers(meter)
    scripted = ScriptedCustomer()
    apart: ChatClient | None = None
    if client is not None:
        apart = MeteredClient(client.inner if isinstance(client, MeteredClient) else client, meter)
    for ticket in tickets:
        spec = ticket.key.conversation
        if spec is None:
            continue
        if spec.customer.played_by == "scripted":
            customers.by_ticket[ticket.id] = scripted
            continue
        model = spec.customer.model or judge_model
        if model is None:
            raise InputError(
                f"ticket {ticket.id}: its customer is played by a model, and none is given: set "
                "key.conversation.customer.model, or the run's judge model (--judge-model)"
            )
        if apart is None:
            raise InputError(
                f"ticket {ticket.id}: its customer is played by a model, which needs a gateway (--gateway) "
                "or cassettes (--cassettes)"
            )
        customers.by_ticket[ticket.id] = ModelCustomer(apart, model, prices.get(model))
    return customers
