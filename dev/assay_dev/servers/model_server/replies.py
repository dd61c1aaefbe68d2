"""Replies in each protocol's own shape: one JSON body, or the server-sent events of a stream."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from assay_dev.servers.model_server.requests import Protocol, ToolCall
from assay_dev.servers.model_server.script import CACHED_PROMPT_TOKENS, Usage


def _sse(events: Sequence[tuple[str | None, Any]]) -> bytes:
    lines = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        lines.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(lines).encode()


def chat_reply(model: str, text: str | None, call: ToolCall | None, usage: Usage, stream: bool) -> bytes:
    rid, created = f"chatcmpl-{uuid.uuid4().hex[:12]}", int(time.time())
    usage_body = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.prompt_tokens + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": CACHED_PROMPT_TOKENS},
    }
    finish = "tool_calls" if call else "stop"
    tool_calls = [
        {
            "index": 0,
            "id": call.call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for call in ([call] if call else [])
    ]
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if tool_calls:
            message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in tool_calls]
        body = {
            "id": rid,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage_body,
        }
        return json.dumps(body).encode()

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    events: list[tuple[str | None, Any]] = [(None, chunk({"role": "assistant", "content": ""}))]
    for piece in _pieces(text or ""):
        events.append((None, chunk({"content": piece})))
    if tool_calls:
        events.append((None, chunk({"tool_calls": tool_calls})))
    events.append((None, chunk({}, finish)))
    final = {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": []}
    events.append((None, {**final, "usage": usage_body}))
    events.append((None, "[DONE]"))
    return _sse(events)


def responses_reply(model: str, text: str | None, call: ToolCall | None, usage: Usage, stream: bool) -> bytes:
    rid, created = f"resp_{uuid.uuid4().hex[:16]}", int(time.time())
    output: list[dict[str, Any]] = []
    if text:
        output.append(
            {
                "type": "message",
                "id": f"msg_{uuid.uuid4().hex[:16]}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    if call:
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{uuid.uuid4().hex[:16]}",
                "status": "completed",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": json.dumps(call.arguments),
            }
        )
    usage_body = {
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": {"cached_tokens": CACHED_PROMPT_TOKENS},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.prompt_tokens + usage.output_tokens,
    }
    response = {
        "id": rid,
        "object": "response",
        "created_at": created,
        "status": "completed",
        "model": model,
        "output": output,
        "usage": usage_body,
    }
    if not stream:
        return json.dumps(response).encode()
    events: list[tuple[str | None, Any]] = []

    def emit(kind: str, **fields: Any) -> None:
        """One event: its name twice (SSE `event:` and `type`), and the running sequence number."""
        events.append((kind, {"type": kind, "sequence_number": len(events), **fields}))

    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    emit("response.created", response=pending)
    emit("response.in_progress", response=pending)
    for index, item in enumerate(output):
        opening: dict[str, Any] = {**item, "status": "in_progress"}
        if item["type"] == "message":
            opening["content"] = []
        else:
            opening["arguments"] = ""
        emit("response.output_item.added", output_index=index, item=opening)
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            part = item["content"][0]
            emit("response.content_part.added", **where, content_index=0, part={**part, "text": ""})
            for piece in _pieces(part["text"]):
                emit("response.output_text.delta", **where, content_index=0, delta=piece)
            emit("response.output_text.done", **where, content_index=0, text=part["text"])
            emit("response.content_part.done", **where, content_index=0, part=part)
        else:
            emit("response.function_call_arguments.delta", **where, delta=item["arguments"])
            emit("response.function_call_arguments.done", **where, arguments=item["arguments"])
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=response)
    return _sse(events)


def messages_reply(model: str, text: str | None, call: ToolCall | None, usage: Usage, stream: bool) -> bytes:
    mid = f"msg_{uuid.uuid4().hex[:20]}"
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    if call:
        content.append({"type": "tool_use", "id": call.call_id, "name": call.name, "input": call.arguments})
    stop = "tool_use" if call else "end_turn"
    # Anthropic counts cached prompt tokens apart from input_tokens.
    usage_body = {
        "input_tokens": usage.prompt_tokens - CACHED_PROMPT_TOKENS,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": CACHED_PROMPT_TOKENS,
        "output_tokens": usage.output_tokens,
    }
    message = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage_body,
    }
    if not stream:
        return json.dumps(message).encode()
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage_body, "output_tokens": 1}}
    events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(content):
        opening = {"type": "text", "text": ""} if block["type"] == "text" else {**block, "input": {}}
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": opening})
        )
        if block["type"] == "text":
            deltas = [{"type": "text_delta", "text": piece} for piece in _pieces(block["text"])]
        else:
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        for delta in deltas:
            events.append(
                ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage.output_tokens},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return _sse(events)


REPLIES = {"chat": chat_reply, "responses": responses_reply, "messages": messages_reply}


def error_body(protocol: Protocol, status: int, message: str) -> bytes:
    if protocol == "messages":
        kind = {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}.get(
            status, "invalid_request_error"
        )
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    kind = {429: "rate_limit_exceeded", 500: "server_error"}.get(status, "invalid_request_error")
    return json.dumps({"error": {"message": message, "type": kind, "code": None}}).encode()


def _pieces(text: str, size: int = 24) -> Iterator[str]:
    """Text in several deltas, as a real stream sends it."""
    for start in range(0, len(text), size):
        yield text[start : start + size]


UsageStyle = Literal["native", "bridge", "twice"]
"""How a stream states its usage: as the provider does (`native`); as LiteLLM's Anthropic bridge does
(`bridge`: every count 0 where the stream opens, the real cumulative counts, input included, only at its
end; the other protocols restate their usage with zero counts after it); or the usage event sent twice
(`twice`)."""


def restyled(protocol: Protocol, payload: bytes, style: UsageStyle) -> bytes:
    """A streamed reply's usage stated in `style` (the counts billed are the same)."""
    if style == "native":
        return payload
    events: list[tuple[str | None, Any]] = []
    full: dict[str, Any] = {}
    for block in payload.decode().split("\n\n"):
        if not block.strip():
            continue
        name = next((line[7:] for line in block.splitlines() if line.startswith("event: ")), None)
        data = next(line[6:] for line in block.splitlines() if line.startswith("data: "))
        event: Any = data if data == "[DONE]" else json.loads(data)
        carries = _usage_event(protocol, event)
        if style == "bridge" and protocol == "messages" and carries is not None:
            if event["type"] == "message_start":
                full = dict(event["message"]["usage"])
                event["message"]["usage"] = {key: 0 for key in full}
            else:
                event["usage"] = {**full, "output_tokens": event["usage"]["output_tokens"]}
        elif style == "bridge" and carries is not None:
            zero = json.loads(json.dumps(event))
            usage = zero["usage"] if protocol == "chat" else zero["response"]["usage"]
            for key in usage:
                usage[key] = 0 if isinstance(usage[key], int) else usage[key]
            events.extend([(name, event), (name, zero)])  # the real counts, then restated as zeros
            continue
        events.append((name, event))
        if style == "twice" and carries is not None and (protocol != "messages" or carries == "end"):
            events.append((name, event))
    return _sse(events)


def _usage_event(protocol: Protocol, event: Any) -> str | None:
    """Whether a stream event states usage: "start" or "end" (of a messages stream), else "usage"."""
    if not isinstance(event, dict):
        return None
    if protocol == "messages":
        return {"message_start": "start", "message_delta": "end"}.get(str(event.get("type")))
    if protocol == "chat":
        return "usage" if event.get("usage") else None
    response = event.get("response")
    return "usage" if isinstance(response, dict) and response.get("usage") else None
