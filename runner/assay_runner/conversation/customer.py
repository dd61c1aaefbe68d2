"""The customer of a conversational ticket: what it does next is decided by rules, how it says it by a script
or a model.

What happens after each agent turn is one deterministic reading of the ticket's `conversation` key
(`next_step`): the agent asked for hidden facts it has not been told (an `askedWhen` phrase) -> the
customer reveals them; it asked for nothing while a fact is still unsaid -> the customer does what the key
says (repeats the problem, says the fix did not work, or a given reply); nothing is left unsaid and it asked
for nothing -> its turn is the answer, and the conversation ends. So a scripted customer and a model
customer steer a conversation alike; the model only phrases the reply, given a short fixed instruction and
the conversation so far, through the judge's gateway on its own meter (`ModelCustomer`). What a customer
turn revealed is read from its words (`revealed_in`), whoever wrote them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from assay_runner.contract import ConversationTurn, PriceConfig, Usage
from assay_runner.errors import AssayError
from assay_runner.gateway.chat import ChatClient, ChatMessage
from assay_runner.suite.conversation import ConversationSpec, UnpromptedReply, mentioned
from assay_runner.suite.models import Ticket

FIX_DID_NOT_WORK = "I tried that, and it did not work."
INSTRUCTION = """\
You play a customer writing to a support desk, in a test of the support agent.
You are {persona}. You write {tone}.
Write only your next message to the agent: one to three sentences, in your own voice. Give no advice, and
say nothing you are not told to say below.
{what}"""
REVEAL = "Reveal now: the agent asked for it, so say this in your own words:\n{facts}"
NOT_ASKED = "Reveal now: nothing. The agent answered without asking what it needed: "
UNPROMPTED = {
    "repeatProblem": NOT_ASKED + "say your problem again.",
    "fixDidNotWork": NOT_ASKED + "say that what it suggested did not work.",
}
SAY_EXACTLY = "Reveal now: nothing. Say exactly this: {reply}"


@dataclass(frozen=True)
class Step:
    """What follows an agent turn: the facts to reveal, or (none) the unprompted reply, or the end."""

    ends: bool
    reveal: tuple[str, ...] = ()
    """Names of the hidden facts the agent asked for and was not told yet."""


def asked_in(spec: ConversationSpec, text: str) -> list[str]:
    """The hidden facts an agent turn asks for (any of each fact's `askedWhen` phrases)."""
    return [fact.name for fact in spec.hidden if mentioned(text, fact.asked_when)]


def revealed_in(spec: ConversationSpec, text: str) -> list[str]:
    """The hidden facts a customer turn says (any of each fact's `statedWhen` phrases)."""
    return [fact.name for fact in spec.hidden if mentioned(text, fact.stated_when)]


def next_step(spec: ConversationSpec, agent_text: str, revealed: Sequence[str]) -> Step:
    wanted = [name for name in asked_in(spec, agent_text) if name not in revealed]
    if wanted:
        return Step(ends=False, reveal=tuple(wanted))
    unsaid = [fact.name for fact in spec.hidden if fact.name not in revealed]
    return Step(ends=not unsaid)


@dataclass(frozen=True)
class CustomerReply:
    text: str
    usage: Usage | None = None
    """The model customer's call (None: a scripted reply, which costs nothing)."""


class CustomerFailed(AssayError):
    """The customer could not reply (the model customer's call failed): the conversation cannot go on."""


class Customer(Protocol):
    kind: str
    model: str | None

    async def reply(
        self, ticket: Ticket, repetition: int, step: Step, turns: Sequence[ConversationTurn]
    ) -> CustomerReply: ...


def spec_of(ticket: Ticket) -> ConversationSpec:
    spec = ticket.key.conversation
    if spec is None:
        raise ValueError(f"ticket {ticket.id} is not a conversation")
    return spec


class ScriptedCustomer:
    """Replies made from the key alone: offline and the same every time."""

    kind = "scripted"
    model: str | None = None

    async def reply(
        self, ticket: Ticket, repetition: int, step: Step, turns: Sequence[ConversationTurn]
    ) -> CustomerReply:
        spec = spec_of(ticket)
        if step.reveal:
            return CustomerReply(" ".join(f.says for f in spec.hidden if f.name in step.reveal))
        unprompted = spec.unprompted
        if isinstance(unprompted, UnpromptedReply):
            return CustomerReply(unprompted.reply)
        if unprompted == "fixDidNotWork":
            return CustomerReply(FIX_DID_NOT_WORK)
        return CustomerReply(f"As I said: {ticket.question.strip()}")


class ModelCustomer:
    """A model phrases each reply, told who it is, what (if anything) to reveal now, and the conversation so
    far (its own turns as the assistant's, the agent's as the user's). `client` is metered apart from the
    agent's calls (`conversation.customers`)."""

    kind = "model"

    def __init__(self, client: ChatClient, model: str, price: PriceConfig | None = None) -> None:
        self.client = client
        self.model: str | None = model
        self.price = price

    def messages(self, ticket: Ticket, step: Step, turns: Sequence[ConversationTurn]) -> list[ChatMessage]:
        spec = spec_of(ticket)
        if step.reveal:
            facts = "\n".join(f"- {f.says}" for f in spec.hidden if f.name in step.reveal)
            what = REVEAL.format(facts=facts)
        elif isinstance(spec.unprompted, UnpromptedReply):
            what = SAY_EXACTLY.format(reply=spec.unprompted.reply)
        else:
            what = UNPROMPTED[spec.unprompted]
        system = INSTRUCTION.format(persona=spec.customer.persona, tone=spec.customer.tone, what=what)
        history = [
            ChatMessage("assistant" if turn.speaker == "customer" else "user", turn.text) for turn in turns
        ]
        return [ChatMessage("system", system), *history]

    async def reply(
        self, ticket: Ticket, repetition: int, step: Step, turns: Sequence[ConversationTurn]
    ) -> CustomerReply:
        try:
            answer = await self.client.complete(
                model=self.model or "",
                messages=self.messages(ticket, step, turns),
                temperature=0.0,
                sample=repetition,
            )
        except AssayError as exc:
            raise CustomerFailed(f"the model customer ({self.model}) could not reply: {exc}") from None
        if not answer.text.strip():
            raise CustomerFailed(f"the model customer ({self.model}) replied with nothing")
        usage = Usage(input_tokens=answer.input_tokens, output_tokens=answer.output_tokens).priced(self.price)
        return CustomerReply(answer.text.strip(), usage)
