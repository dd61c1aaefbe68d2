"""The gateway client and cassettes against a real chat-completions server on loopback."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.contract import PriceConfig
from assay_runner.gateway.cassette import CassetteClient
from assay_runner.gateway.chat import ChatMessage, ChatReply
from assay_runner.gateway.errors import CassetteMiss, GatewayError
from assay_runner.gateway.http import GatewayClient
from assay_runner.gateway.usage import MeteredClient, UsageMeter

MESSAGES = [ChatMessage("system", "grade"), ChatMessage("user", "answer")]


def ask(client: Any, sample: int = 0) -> ChatReply:
    return asyncio.run(client.complete(model="m", messages=MESSAGES, temperature=0.0, sample=sample))


def ask_all(client: Any, *samples: int) -> list[ChatReply]:
    """Several calls on one event loop (an HTTP client belongs to the loop that opened it)."""

    async def calls() -> list[ChatReply]:
        return [
            await client.complete(model="m", messages=MESSAGES, temperature=0.0, sample=s) for s in samples
        ]

    return asyncio.run(calls())


def fast(url: str, **kw: Any) -> GatewayClient:
    return GatewayClient(url, backoff=0.01, max_backoff=0.05, **kw)


def sequence(*replies: Reply) -> Any:
    queue = list(replies)
    return lambda body: queue.pop(0) if len(queue) > 1 else queue[0]


def test_completion_round_trip_with_usage_and_token() -> None:
    with ChatServer(lambda body: Reply(content="hello", prompt_tokens=7, completion_tokens=3)) as server:
        reply = ask(fast(server.url, token="gw-token"))
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ("hello", 7, 3)
    assert server.requests[0]["messages"] == [
        {"role": "system", "content": "grade"},
        {"role": "user", "content": "answer"},
    ]
    assert server.headers[0]["authorization"] == "Bearer gw-token"


def test_429_and_5xx_are_retried_then_succeed() -> None:
    script = sequence(Reply(status=429, headers={"retry-after": "0"}), Reply(status=503), Reply(content="ok"))
    with ChatServer(script) as server:
        assert ask(fast(server.url)).text == "ok"
    assert len(server.requests) == 3


def test_retries_are_bounded_then_fail_closed() -> None:
    with (
        ChatServer(lambda body: Reply(status=500)) as server,
        pytest.raises(GatewayError, match="gave up after 3"),
    ):
        ask(fast(server.url, attempts=3))
    assert len(server.requests) == 3


def test_client_errors_are_not_retried() -> None:
    with ChatServer(lambda body: Reply(status=401)) as server, pytest.raises(GatewayError, match="401"):
        ask(fast(server.url))
    assert len(server.requests) == 1


def test_malformed_and_dropped_replies() -> None:
    with (
        ChatServer(lambda body: Reply(raw_body=b'{"choices": []}')) as server,
        pytest.raises(GatewayError, match="no choices"),
    ):
        ask(fast(server.url))
    script = sequence(Reply(drop=True), Reply(raw_body=b"<html>"), Reply(content="fine"))
    with ChatServer(script) as server:
        assert ask(fast(server.url)).text == "fine"


def test_cassette_record_then_replay_offline(tmp_path: Path) -> None:
    with ChatServer(lambda body: Reply(content=f"reply to {body['messages'][-1]['content']}")) as server:
        recorder = CassetteClient(tmp_path, "record", fast(server.url))
        first, second = ask_all(recorder, 0, 1)
    assert first.text == second.text == "reply to answer"
    assert len(list(tmp_path.glob("*.json"))) == 2  # one recording per sample
    saved = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert saved["request"]["messages"][1]["content"] == "answer"
    # Readable by others (a runner pod's arbitrary uid reads committed cassettes), not mkstemp's 0600.
    assert {p.stat().st_mode & 0o777 for p in tmp_path.glob("*.json")} == {0o644}
    replay = CassetteClient(tmp_path, "replay", None)
    assert ask(replay, 1).text == "reply to answer" and replay.hits == 1
    with pytest.raises(CassetteMiss, match="no recording"):
        ask(replay, 2)


def test_replay_or_record_only_calls_on_a_miss(tmp_path: Path) -> None:
    with ChatServer(lambda body: Reply(content="x")) as server:
        client = CassetteClient(tmp_path, "replay-or-record", fast(server.url))
        ask_all(client, 0, 0)
    assert len(server.requests) == 1 and client.hits == 1 and client.recorded == 1


def test_modes_that_call_need_a_gateway(tmp_path: Path) -> None:
    with pytest.raises(GatewayError, match="needs a gateway"):
        CassetteClient(tmp_path, "record", None)


def test_usage_and_cost_are_summed() -> None:
    meter = UsageMeter(prices={"m": PriceConfig(input_per_million=2.0, output_per_million=10.0)})
    with ChatServer(lambda body: Reply(content="x", prompt_tokens=1000, completion_tokens=100)) as server:
        client = MeteredClient(fast(server.url), meter)
        ask_all(client, 0, 0)
    usage = meter.usage()
    assert (usage.input_tokens, usage.output_tokens) == (2000, 200)
    assert usage.cost_usd == pytest.approx(2 * (1000 * 2 + 100 * 10) / 1e6)
    assert meter.prompt_chars == [len("grade") + len("answer")] * 2
