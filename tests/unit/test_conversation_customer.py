"""The customer: rules decide what follows an agent turn, a script or a model phrases it; the model customer
goes through the real gateway client to a chat server on loopback, on a meter of its own, and a recording
of it replays offline word for word."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay_dev.servers.chat_server import ChatServer
from assay_runner.contract import ConversationTurn, PriceConfig
from assay_runner.conversation.customer import (
    FIX_DID_NOT_WORK,
    ScriptedCustomer,
    Step,
    asked_in,
    next_step,
    revealed_in,
)
from assay_runner.conversation.customers import build_customers, check_conversing
from assay_runner.core.independence import judge_model_warnings
from assay_runner.errors import InputError
from assay_runner.gateway.access import model_access
from assay_runner.suite import load_suite
from assay_runner.suite.models import Ticket
from tests.support.conversations import (
    ASKING,
    GUESS,
    QUESTION,
    ROUTER_SAYS,
    agent_script,
    conversation_suite,
    is_customer,
    model_customer,
)


def ticket(tmp_path: Path, played_by: str = "scripted") -> Ticket:
    return load_suite(conversation_suite(tmp_path / "suite", played_by=played_by)).tickets[0]


def spec(tmp_path: Path):  # type: ignore[no-untyped-def]
    conversation = ticket(tmp_path).key.conversation
    assert conversation is not None
    return conversation


def test_what_follows_an_agent_turn(tmp_path: Path) -> None:
    rules = spec(tmp_path)
    assert asked_in(rules, ASKING) == ["router"] and asked_in(rules, GUESS) == []
    assert asked_in(rules, "What ROUTER\n model is it?") == ["router"]  # whole words, any case or spacing
    assert asked_in(rules, "Routers modelled on...") == []
    assert next_step(rules, ASKING, []) == Step(ends=False, reveal=("router",))
    assert next_step(rules, GUESS, []) == Step(ends=False)  # answered while a fact is unsaid: unprompted
    assert next_step(rules, ASKING, ["router"]) == Step(ends=True)  # nothing left to reveal: it answered
    assert revealed_in(rules, ROUTER_SAYS) == ["router"] and revealed_in(rules, FIX_DID_NOT_WORK) == []


def test_the_scripted_customer_reveals_only_what_was_asked(tmp_path: Path) -> None:
    customer, asked = ScriptedCustomer(), ticket(tmp_path)
    said = asyncio.run(customer.reply(asked, 0, Step(ends=False, reveal=("router",)), []))
    assert said.text == ROUTER_SAYS and said.usage is None
    assert asyncio.run(customer.reply(asked, 0, Step(ends=False), [])).text == FIX_DID_NOT_WORK
    repeat = asked.model_copy(
        update={
            "key": asked.key.model_copy(
                update={"conversation": spec(tmp_path).model_copy(update={"unprompted": "repeatProblem"})}
            )
        }
    )
    assert asyncio.run(customer.reply(repeat, 0, Step(ends=False), [])).text == f"As I said: {QUESTION}"


def test_the_model_customer_is_metered_apart_recorded_and_replayed(tmp_path: Path) -> None:
    asked = ticket(tmp_path, played_by="model")
    turns = [
        ConversationTurn(index=0, speaker="customer", text=QUESTION),
        ConversationTurn(index=0, speaker="agent", text=ASKING),
    ]
    prices = {"customer-m": PriceConfig(input_per_million=1.0, output_per_million=2.0)}
    cassettes = tmp_path / "cassettes"

    async def play(url: str | None, mode: str) -> tuple[str, int, float]:
        access = model_access(url, cassettes, mode, prices)  # type: ignore[arg-type]
        customers = build_customers([asked], access.client, "customer-m", prices)
        try:
            reply = await customers.of(asked).reply(asked, 0, Step(ends=False, reveal=("router",)), turns)
        finally:
            await access.aclose()
        assert access.meter.calls == 0  # the run's meter (the agent's, the judges') never sees it
        assert reply.usage is not None and reply.usage.cost_usd == pytest.approx(50e-6)
        return reply.text, customers.meter.input_tokens, customers.meter.cost_usd

    with ChatServer(agent_script(asks=True, customer=model_customer)) as server:
        recorded = asyncio.run(play(server.url, "record"))
    request = server.requests[0]
    assert is_customer(request) and request["model"] == "customer-m"
    instruction = request["messages"][0]["content"]
    assert "a home user, not technical" in instruction and ROUTER_SAYS in instruction
    assert [m["role"] for m in request["messages"]] == ["system", "assistant", "user"]
    assert recorded == (ROUTER_SAYS, 30, pytest.approx(50e-6))
    assert asyncio.run(play(None, "replay")) == recorded  # offline: no server at all


def test_a_model_customer_that_cannot_be_played_is_bad_input(tmp_path: Path) -> None:
    asked = ticket(tmp_path, played_by="model")
    with pytest.raises(InputError, match="played by a model, and none is given"):
        build_customers([asked], None, None, {})
    with pytest.raises(InputError, match="needs a gateway"):
        build_customers([asked], None, "customer-m", {})


def test_an_agent_that_cannot_converse_is_refused(tmp_path: Path) -> None:
    class OneShot:
        kind = "replay"

    with pytest.raises(InputError, match="ASK-1 are conversations, and the replay agent cannot"):
        check_conversing(OneShot(), [ticket(tmp_path)])  # type: ignore[arg-type]


def test_a_customer_on_the_agents_model_is_not_independent(tmp_path: Path) -> None:
    root = conversation_suite(tmp_path / "suite", played_by="model")
    suite = load_suite(root)
    assert judge_model_warnings(suite, "judge-m", "agent-m") == []
    [warning] = judge_model_warnings(suite, "openai/agent-m", "agent-m")
    assert "model customer(s) of ASK-1 use the agent's own model" in warning
    (root / "suite.yaml").write_text((root / "suite.yaml").read_text() + "requireDistinctJudgeModel: true\n")
    with pytest.raises(InputError, match="sets requireDistinctJudgeModel"):
        judge_model_warnings(load_suite(root), "agent-m", "agent-m")
