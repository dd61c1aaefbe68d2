"""Reading the upstream's own usage from a reply, in each protocol's fields, streamed or not; anything that
is not a count of tokens is an error, never zero."""

from __future__ import annotations

import json
import math

import pytest

from assay_runner.gateway.metering.usage import (
    Counted,
    MalformedUsage,
    UsageReader,
    ask_for_usage,
    protocol_of,
    refusal,
)


def sse(*events: dict[str, object], names: bool = False) -> bytes:
    lines = []
    for event in events:
        if names:
            lines.append(f"event: {event['type']}\n")
        lines.append(f"data: {json.dumps(event)}\n\n")
    return ("".join(lines) + "data: [DONE]\n\n").encode()


def read(protocol: str, body: bytes, streamed: bool, pieces: int = 7) -> Counted:
    reader = UsageReader(protocol, streamed)  # type: ignore[arg-type]
    step = max(1, len(body) // pieces)  # fed in pieces that cut lines and JSON in half, as a socket does
    for start in range(0, len(body), step):
        reader.feed(body[start : start + step])
    return reader.counted()


def test_the_protocol_of_a_path() -> None:
    assert protocol_of("chat/completions") == protocol_of("/v1/chat/completions/") == "chat"
    assert protocol_of("responses?x=1") == "responses"
    assert protocol_of("v1/messages?beta=true") == "messages"
    assert protocol_of("models") is None


def test_each_protocol_one_body() -> None:
    chat = {"usage": {"prompt_tokens": 300, "completion_tokens": 20}}
    responses = {"usage": {"input_tokens": 300, "output_tokens": 20}}
    messages = {
        "usage": {
            "input_tokens": 100,
            "cache_read_input_tokens": 150,
            "cache_creation_input_tokens": 50,
            "output_tokens": 20,
        }
    }
    for protocol, body in (("chat", chat), ("responses", responses), ("messages", messages)):
        assert read(protocol, json.dumps(body).encode(), False) == Counted(300, 20)


def test_each_protocol_streamed() -> None:
    chat = sse(
        {"choices": [{"delta": {"content": "hi"}}]},
        {"choices": [], "usage": {"prompt_tokens": 300, "completion_tokens": 20}},
    )
    responses = sse(
        {"type": "response.created", "response": {"usage": None}},
        {"type": "response.completed", "response": {"usage": {"input_tokens": 300, "output_tokens": 20}}},
        names=True,
    )
    messages = sse(
        {
            "type": "message_start",
            "message": {"usage": {"input_tokens": 250, "cache_read_input_tokens": 50, "output_tokens": 1}},
        },
        {"type": "content_block_delta", "delta": {"text": "hi"}},
        {"type": "message_delta", "usage": {"output_tokens": 20}},
        names=True,
    )
    for protocol, body in (("chat", chat), ("responses", responses), ("messages", messages)):
        assert read(protocol, body, True) == Counted(300, 20)


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": -1000, "completion_tokens": 5},
        {"prompt_tokens": math.nan, "completion_tokens": 5},
        {"prompt_tokens": math.inf, "completion_tokens": 5},
        {"prompt_tokens": 10.5, "completion_tokens": 5},
        {"prompt_tokens": True, "completion_tokens": 5},
        {"prompt_tokens": "100", "completion_tokens": 5},
        {"completion_tokens": 5},
        None,
        "lots",
    ],
    ids=["negative", "nan", "inf", "float", "bool", "text", "half", "null", "string"],
)
@pytest.mark.parametrize("streamed", [False, True])
def test_anything_but_a_count_is_an_error(usage: object, streamed: bool) -> None:
    body = sse({"choices": [], "usage": usage}) if streamed else json.dumps({"usage": usage}).encode()
    with pytest.raises(MalformedUsage):
        read("chat", body, streamed)


def test_a_stream_without_usage_and_a_reply_that_is_not_json_are_errors() -> None:
    with pytest.raises(MalformedUsage, match="no usage"):
        read("chat", sse({"choices": [{"delta": {"content": "hi"}}]}), True)
    with pytest.raises(MalformedUsage, match="not JSON"):
        read("chat", b"<html>bad gateway</html>", False)


def test_a_streamed_chat_request_is_made_to_report_its_usage() -> None:
    asked = json.loads(
        ask_for_usage("chat", json.dumps({"stream": True, "stream_options": {"x": 1}}).encode())
    )
    assert asked["stream_options"] == {"x": 1, "include_usage": True}
    plain = json.dumps({"stream": False}).encode()
    assert ask_for_usage("chat", plain) == plain
    assert ask_for_usage("responses", b'{"stream": true}') == b'{"stream": true}'


@pytest.mark.parametrize(
    ("method", "path", "forwarded"),
    [
        ("POST", "chat/completions", True),
        ("POST", "v1/messages?beta=true", True),
        ("POST", "/responses/", True),
        ("GET", "models", True),
        ("GET", "v1/models/gpt-4o", True),
        ("POST", "messages/count_tokens", False),
        ("GET", "messages/count_tokens", False),
        ("POST", "embeddings", False),
        ("POST", "completions", False),
        ("POST", "responses/compact", False),
        ("POST", "models", False),
        ("GET", "chat/completions", False),
        ("HEAD", "models", False),
        ("DELETE", "responses/abc", False),
        ("GET", "models/..", False),
        ("GET", "models/a/../../chat/completions", False),
        ("POST", "x/chat/completions", False),
    ],
)
def test_the_hops_forward_an_allow_list(method: str, path: str, forwarded: bool) -> None:
    assert (refusal(method, path) is None) == forwarded
