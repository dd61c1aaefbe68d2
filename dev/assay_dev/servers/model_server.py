"""A scripted model server on loopback that speaks the three wire protocols the agent CLIs use.

- OpenAI Chat Completions, `POST .../chat/completions` (OpenCode's `@ai-sdk/openai-compatible`),
- OpenAI Responses, `POST .../responses` (Codex CLI),
- Anthropic Messages, `POST .../v1/messages` (Claude Code, which adds `?beta=true`),

each streamed as server-sent events when the request asks for `stream` (all three CLIs do) and as one JSON
body otherwise, with tool calls, and token usage in each protocol's own fields. `GET .../models` lists the
one model the server knows.

A test gives a `Script`, a list of `Step`s per conversation: "write answer.md with this text through your own
write tool", then "end with this final message". The step to play is the number of tool results already in
the request's history, so the server keeps no session state and a CLI's retries replay the same step.
Requests without tools (OpenCode's title generation, Claude Code's side calls) get a short plain reply.

Everything is recorded (`requests`: path, headers with secrets redacted, body, protocol) and every problem is
kept in `problems`: an unknown path, a request shape the protocol does not have, a tool the script needs that
the CLI did not offer. Tests assert `problems == []`, so a CLI upgrade that changes its protocol fails
loudly instead of passing by accident.
"""

from __future__ import annotations

import json
import re
import shlex
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Protocol = Literal["chat", "responses", "messages"]
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"})
TITLE_REPLY = "Support ticket"
"""The reply to requests without tools (titles, summaries)."""


# ---------------------------------------------------------------------------------------------------------
# Scripts


@dataclass(frozen=True)
class WriteFile:
    """Call the CLI's own file-writing tool: `path` (relative to its working directory) gets `text`."""

    path: str
    text: str


@dataclass(frozen=True)
class Shell:
    """Call the CLI's shell tool with this command (Codex's `exec_command`; the others have no shell)."""

    command: str


@dataclass(frozen=True)
class Say:
    """End the conversation with this final assistant message."""

    text: str


@dataclass(frozen=True)
class Fail:
    """Answer with an HTTP error (every retry of this step gets it too)."""

    status: int
    retry_after: float | None = None


@dataclass(frozen=True)
class Hang:
    """Accept the request and never answer (until the server stops or `seconds` pass)."""

    seconds: float = 3600.0


Step = WriteFile | Shell | Say | Fail | Hang
Script = Sequence[Step]
ScriptChooser = Callable[[str], Script]
"""The request's text (every message joined) -> the script of its conversation, e.g. chosen by ticket id."""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    output_tokens: int


def step_usage(turn: int) -> Usage:
    """The usage reported for a conversation's turn: distinct per turn, so a sum that misses one shows."""
    return Usage(prompt_tokens=1000 + 100 * turn, output_tokens=40 + turn)


CACHED_PROMPT_TOKENS = 200
"""Of each reply's prompt tokens, this many are reported as read from the cache (in each protocol's field)."""


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    protocol: Protocol | None
    status: int = 0
    usage: Usage | None = None


# ---------------------------------------------------------------------------------------------------------
# What each protocol's request holds


def _text_of(value: Any) -> str:
    """All the strings inside a JSON value, joined: to search a request for a text."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_text_of(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_text_of(v) for v in value)
    return ""


def _shape_problems(protocol: Protocol, body: dict[str, Any]) -> list[str]:
    problems = []
    if not isinstance(body.get("model"), str):
        problems.append("no model")
    history_key = {"chat": "messages", "responses": "input", "messages": "messages"}[protocol]
    if not isinstance(body.get(history_key), list):
        problems.append(f"no {history_key} list")
    tools = body.get("tools", [])
    if not isinstance(tools, list):
        problems.append("tools is not a list")
    return problems


def tool_names(protocol: Protocol, body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        if protocol == "chat":
            names.append(str(tool.get("function", {}).get("name")))
        else:  # responses: {"type": "function", "name"}; messages: {"name", "input_schema"}
            names.append(str(tool.get("name")))
    return names


def completed_turns(protocol: Protocol, body: dict[str, Any]) -> int:
    """The number of tool results in the history: the turns of the conversation already played."""
    if protocol == "chat":
        return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    if protocol == "responses":
        return sum(1 for item in body.get("input", []) if item.get("type") == "function_call_output")
    return sum(
        1
        for m in body.get("messages", [])
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )


_CWD_PATTERNS = (
    re.compile(r"Primary working directory: (\S+)"),  # Claude Code
    re.compile(r"Working directory: (\S+)"),  # OpenCode
    re.compile(r"<cwd>([^<]+)</cwd>"),  # Codex
)


def working_directory(text: str) -> str | None:
    for pattern in _CWD_PATTERNS:
        found = pattern.search(text)
        if found:
            return found.group(1)
    return None


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    call_id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:16]}")


def tool_call(protocol: Protocol, offered: list[str], cwd: str | None, step: WriteFile | Shell) -> ToolCall:
    """The CLI's own tool for `step`, by the name and argument names that CLI declares."""
    if isinstance(step, Shell):
        if protocol != "responses" or "exec_command" not in offered:
            raise LookupError(f"no shell tool offered (tools: {offered})")
        return ToolCall("exec_command", {"cmd": step.command})
    if protocol == "responses":  # Codex edits files through its shell tool
        if "exec_command" not in offered:
            raise LookupError(f"no exec_command tool offered (tools: {offered})")
        return ToolCall(
            "exec_command", {"cmd": f"printf '%s' {shlex.quote(step.text)} > {shlex.quote(step.path)}"}
        )
    if cwd is None:
        raise LookupError("no working directory found in the request (needed for an absolute path)")
    target = f"{cwd.rstrip('/')}/{step.path}"
    if protocol == "messages":
        if "Write" not in offered:
            raise LookupError(f"no Write tool offered (tools: {offered})")
        return ToolCall("Write", {"file_path": target, "content": step.text})
    if "write" not in offered:
        raise LookupError(f"no write tool offered (tools: {offered})")
    return ToolCall("write", {"filePath": target, "content": step.text})


# ---------------------------------------------------------------------------------------------------------
# Replies, per protocol: (content type, body)


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
    seq = iter(range(1_000_000))
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    events: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created", "sequence_number": next(seq), "response": pending}),
        (
            "response.in_progress",
            {"type": "response.in_progress", "sequence_number": next(seq), "response": pending},
        ),
    ]
    for index, item in enumerate(output):
        added = {**item, "status": "in_progress"}
        if item["type"] == "message":
            added["content"] = []
        else:
            added["arguments"] = ""
        events.append(
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "sequence_number": next(seq),
                    "output_index": index,
                    "item": added,
                },
            )
        )
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            part = {"type": "output_text", "text": "", "annotations": []}
            events.append(
                (
                    "response.content_part.added",
                    {
                        "type": "response.content_part.added",
                        "sequence_number": next(seq),
                        **where,
                        "content_index": 0,
                        "part": part,
                    },
                )
            )
            for piece in _pieces(item["content"][0]["text"]):
                events.append(
                    (
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "sequence_number": next(seq),
                            **where,
                            "content_index": 0,
                            "delta": piece,
                        },
                    )
                )
            events.append(
                (
                    "response.output_text.done",
                    {
                        "type": "response.output_text.done",
                        "sequence_number": next(seq),
                        **where,
                        "content_index": 0,
                        "text": item["content"][0]["text"],
                    },
                )
            )
            events.append(
                (
                    "response.content_part.done",
                    {
                        "type": "response.content_part.done",
                        "sequence_number": next(seq),
                        **where,
                        "content_index": 0,
                        "part": item["content"][0],
                    },
                )
            )
        else:
            events.append(
                (
                    "response.function_call_arguments.delta",
                    {
                        "type": "response.function_call_arguments.delta",
                        "sequence_number": next(seq),
                        **where,
                        "delta": item["arguments"],
                    },
                )
            )
            events.append(
                (
                    "response.function_call_arguments.done",
                    {
                        "type": "response.function_call_arguments.done",
                        "sequence_number": next(seq),
                        **where,
                        "arguments": item["arguments"],
                    },
                )
            )
        events.append(
            (
                "response.output_item.done",
                {
                    "type": "response.output_item.done",
                    "sequence_number": next(seq),
                    "output_index": index,
                    "item": item,
                },
            )
        )
    events.append(
        (
            "response.completed",
            {"type": "response.completed", "sequence_number": next(seq), "response": response},
        )
    )
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


_REPLIES = {"chat": chat_reply, "responses": responses_reply, "messages": messages_reply}


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


# ---------------------------------------------------------------------------------------------------------
# The server


def protocol_of(path: str) -> Protocol | None:
    route = path.split("?", 1)[0].rstrip("/")
    if route.endswith("/chat/completions"):
        return "chat"
    if route.endswith("/responses"):
        return "responses"
    if route.endswith("/v1/messages"):
        return "messages"
    return None


class ModelServer:
    """`with ModelServer(script, model="m") as server:` serves on `server.url` (`http://127.0.0.1:PORT/v1`)."""

    def __init__(self, script: Script | ScriptChooser, *, model: str, host: str = "127.0.0.1") -> None:
        self.choose: ScriptChooser = script if callable(script) else (lambda _text: script)
        self.model = model
        self.requests: list[Recorded] = []
        self.problems: list[str] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer((host, 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def reported_usage(self) -> Usage:
        """The usage of every reply the server sent, in prompt (cached included) and output tokens."""
        with self._lock:
            sent = [r.usage for r in self.requests if r.usage is not None]
        return Usage(sum(u.prompt_tokens for u in sent), sum(u.output_tokens for u in sent))

    def bodies_text(self) -> str:
        with self._lock:
            return "\n".join(_text_of(r.body) for r in self.requests)

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def _problem(self, text: str) -> None:
        with self._lock:
            self.problems.append(text)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                return

            def do_GET(self) -> None:
                record = self._record("GET", {})
                if self.path.split("?", 1)[0].rstrip("/").endswith("/models"):
                    listing = {
                        "object": "list",
                        "data": [
                            {"id": server.model, "object": "model", "type": "model", "owned_by": "assay-test"}
                        ],
                    }
                    self._send(record, 200, json.dumps(listing).encode(), "application/json")
                    return
                server._problem(f"GET {self.path}: unknown path")
                self._send(record, 404, b'{"error": {"message": "not found"}}', "application/json")

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_unparsed": raw[:2000].decode("utf-8", "replace")}
                record = self._record("POST", body if isinstance(body, dict) else {"_body": body})
                protocol = record.protocol
                if protocol is None:
                    server._problem(f"POST {self.path}: unknown path")
                    self._send(record, 404, b'{"error": {"message": "not found"}}', "application/json")
                    return
                shape = _shape_problems(protocol, record.body)
                if shape:
                    self._fail(record, protocol, 400, f"POST {self.path}: {'; '.join(shape)}")
                    return
                self._answer(record, protocol)

            def _record(self, method: str, body: dict[str, Any]) -> Recorded:
                headers = {
                    k.lower(): ("<redacted>" if k.lower() in SECRET_HEADERS else v)
                    for k, v in self.headers.items()
                }
                record = Recorded(method, self.path, headers, body, protocol_of(self.path))
                with server._lock:
                    server.requests.append(record)
                return record

            def _answer(self, record: Recorded, protocol: Protocol) -> None:
                body = record.body
                offered = tool_names(protocol, body)
                stream = bool(body.get("stream"))
                model = str(body["model"])
                if model != server.model:
                    self._fail(
                        record, protocol, 404, f"unknown model {model!r}; this server has {server.model!r}"
                    )
                    return
                reply = _REPLIES[protocol]
                if not offered:  # a side request: title, summary
                    usage = Usage(prompt_tokens=300, output_tokens=5)
                    self._ok(record, reply(model, TITLE_REPLY, None, usage, stream), usage, stream)
                    return
                text = (
                    _text_of(body.get("messages") or body.get("input")) + "\n" + _text_of(body.get("system"))
                )
                script = server.choose(text)
                turn = completed_turns(protocol, body)
                if turn >= len(script):
                    self._fail(record, protocol, 400, f"turn {turn} is past the script's {len(script)} steps")
                    return
                step = script[turn]
                if isinstance(step, Fail):
                    headers = {} if step.retry_after is None else {"retry-after": f"{step.retry_after:g}"}
                    message = f"scripted failure {step.status}"
                    self._send(
                        record,
                        step.status,
                        error_body(protocol, step.status, message),
                        "application/json",
                        headers,
                    )
                    return
                if isinstance(step, Hang):
                    server._stopping.wait(step.seconds)
                    self.close_connection = True
                    return
                usage = step_usage(turn)
                if isinstance(step, Say):
                    self._ok(record, reply(model, step.text, None, usage, stream), usage, stream)
                    return
                try:
                    call = tool_call(protocol, offered, working_directory(text), step)
                except LookupError as error:
                    self._fail(record, protocol, 400, f"POST {self.path}: {error}")
                    return
                self._ok(record, reply(model, None, call, usage, stream), usage, stream)

            def _ok(self, record: Recorded, payload: bytes, usage: Usage, stream: bool) -> None:
                record.usage = usage
                self._send(record, 200, payload, "text/event-stream" if stream else "application/json")

            def _fail(self, record: Recorded, protocol: Protocol, status: int, message: str) -> None:
                server._problem(message)
                self._send(record, status, error_body(protocol, status, message), "application/json")

            def _send(
                self,
                record: Recorded,
                status: int,
                payload: bytes,
                content_type: str,
                headers: dict[str, str] | None = None,
            ) -> None:
                record.status = status
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                if content_type == "text/event-stream":
                    self.send_header("cache-control", "no-cache")
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

        return Handler
