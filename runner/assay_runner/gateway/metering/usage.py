"""The tokens an upstream reply says it used, read as the reply streams past, in each protocol's own fields.

- OpenAI chat completions (`.../chat/completions`): `usage.prompt_tokens`, `usage.completion_tokens`; a
  stream reports them in a chunk of its own when the request asks for it (`stream_options.include_usage`,
  which the proxy adds: `ask_for_usage`).
- OpenAI responses (`.../responses`): `usage.input_tokens`, `usage.output_tokens`; a stream in its
  `response.completed` event.
- Anthropic messages (`.../messages`): `usage.input_tokens` plus the cached prompt tokens it counts apart
  (`cache_creation_input_tokens`, `cache_read_input_tokens`), `usage.output_tokens`; a stream in
  `message_start` (prompt) and `message_delta` (output, cumulative).

Every count must be an integer (not a boolean), finite and not negative. A successful model call whose reply
states no usage, or a malformed one, is an error (`MalformedUsage`), never zero: spend that cannot be
counted cannot be capped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Protocol = Literal["chat", "responses", "messages"]
MAX_BODY_BYTES = 64 << 20  # a non-streamed reply is read whole to find its usage


class MalformedUsage(ValueError):
    """The reply's usage is missing, or not a count."""


@dataclass(frozen=True)
class Counted:
    input_tokens: int
    output_tokens: int


METERED: dict[str, Protocol] = {"chat/completions": "chat", "responses": "responses", "messages": "messages"}
"""The model calls a metering hop forwards (POST), by their path below the gateway's base URL."""
FREE_READS = ("models",)
"""GETs forwarded unmetered: the model list (and one model, `models/<id>`), which spends no tokens."""


def route_of(path: str) -> str:
    """A request path below the gateway's base URL, without its query, slashes at either end or a leading
    `v1/` (Claude Code appends `/v1/messages` to a base without it)."""
    route = path.split("?", 1)[0].strip("/")
    return route.removeprefix("v1/") if route.startswith("v1/") else route


def protocol_of(path: str) -> Protocol | None:
    """The protocol a model call's path speaks, or None for anything else."""
    return METERED.get(route_of(path))


def refusal(method: str, path: str) -> str | None:
    """Why a metering hop does not forward this call, or None when it does. The hops forward an allow-list:
    POSTs of the three protocols' model calls, metered; GETs of the model list, which spend nothing. Every
    other call (Anthropic's `messages/count_tokens`, embeddings, legacy completions, a HEAD or DELETE...)
    is refused: what no reader here counts is not let through unmetered."""
    route = route_of(path)
    if method == "POST" and route in METERED:
        return None
    head, _, one = route.partition("/")
    if method == "GET" and head in FREE_READS and (("/" not in one and one.strip(".") != "") or not one):
        return None  # the list, or one model by its id: one segment, never `..`
    return (
        f"{method} /{route} is not a model call Assay meters nor a free read (it forwards POST "
        "chat/completions, responses or messages, metered, and GET models): it is refused, and recorded"
    )


RESPONSES_PROVIDER_TOOLS = frozenset({"file_search", "code_interpreter", "image_generation", "mcp"})
MESSAGES_PROVIDER_TOOLS = ("web_search_", "web_fetch_", "code_execution_")


def _provider_tool(protocol: Protocol, kind: str) -> bool:
    if protocol == "messages":
        return kind.startswith(MESSAGES_PROVIDER_TOOLS)
    return protocol == "responses" and (kind.startswith("web_search") or kind in RESPONSES_PROVIDER_TOOLS)


def billed_apart(protocol: Protocol, request: dict[str, Any]) -> str | None:
    """Why a model call is refused for asking the provider to run something billed apart from the tokens
    the proxy counts, or None. A hosted web search is billed per search, a code container per session, a
    remote MCP server's or a background response's work in no reply the proxy reads: let through, their
    spend would go uncounted (and the provider's fetches reach what the cell's network rules keep out).
    The CLI presets turn these tools off; a program agent could still name them. `request` is the body as
    `request.read_request` reads it (one way only)."""
    asked = [
        name
        for name, wanted in (
            ("web_search_options", protocol == "chat"),
            ("mcp_servers", protocol == "messages"),
            ("container", protocol == "messages"),
            ("background", protocol == "responses"),
        )
        if wanted and request.get(name) not in (None, False)
    ]
    tools = request.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        kind = tool.get("type") if isinstance(tool, dict) else None
        if isinstance(kind, str) and _provider_tool(protocol, kind):
            asked.append(f"the {kind} tool")
    if not asked:
        return None
    return (
        f"the call asks the provider for {', '.join(asked)}: billed apart from the tokens the proxy "
        "counts, so it is refused, and recorded"
    )


def ask_for_usage(protocol: Protocol, body: bytes) -> bytes:
    """A streamed chat-completions request made to report its usage (the other protocols always do)."""
    if protocol != "chat":
        return body
    try:
        request = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return body  # the upstream will refuse it: nothing to meter
    if not isinstance(request, dict) or not request.get("stream"):
        return body
    options = request.get("stream_options")
    request["stream_options"] = {**(options if isinstance(options, dict) else {}), "include_usage": True}
    return json.dumps(request).encode()


def _count(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedUsage(f"{where} is {value!r}, not a count of tokens")
    return value


def _counted(protocol: Protocol, usage: object) -> Counted:
    if not isinstance(usage, dict):
        raise MalformedUsage(f"the reply's usage is {usage!r}, not an object")
    if protocol == "chat":
        return Counted(
            _count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
            _count(usage.get("completion_tokens"), "usage.completion_tokens"),
        )
    if protocol == "responses":
        return Counted(
            _count(usage.get("input_tokens"), "usage.input_tokens"),
            _count(usage.get("output_tokens"), "usage.output_tokens"),
        )
    cached = sum(
        _count(usage.get(name, 0), f"usage.{name}")
        for name in ("cache_creation_input_tokens", "cache_read_input_tokens")
        if usage.get(name) is not None
    )
    return Counted(
        _count(usage.get("input_tokens"), "usage.input_tokens") + cached,
        _count(usage.get("output_tokens"), "usage.output_tokens"),
    )


MESSAGES_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
"""An Anthropic stream's usage fields: each may come in `message_start`, `message_delta` or both."""


class UsageReader:
    """Fed the reply's bytes as they stream past; `counted()` once the reply has ended.

    A stream's usage is cumulative wherever it is stated, so each field is the largest count any of the
    stream's events gave it: a `message_start` that says `input_tokens: 0` and a final `message_delta` with
    the real count (LiteLLM's Anthropic bridge) is billed the real count, and usage sent twice is counted
    once, never dropped for a later, smaller copy."""

    def __init__(self, protocol: Protocol, streamed: bool) -> None:
        self.protocol = protocol
        self.streamed = streamed
        self._body = bytearray()
        self._line = bytearray()
        self._event: str | None = None
        self._largest: dict[str, int] = {}
        self.error: str | None = None

    def _seen(self, field: str, value: int) -> None:
        self._largest[field] = max(value, self._largest.get(field, 0))

    def feed(self, chunk: bytes) -> None:
        if not self.streamed:
            if len(self._body) + len(chunk) > MAX_BODY_BYTES:
                self.error = f"the reply is larger than {MAX_BODY_BYTES >> 20} MiB"
            else:
                self._body += chunk
            return
        self._line += chunk
        while (end := self._line.find(b"\n")) >= 0:
            line = bytes(self._line[:end]).rstrip(b"\r")
            del self._line[: end + 1]
            self._sse_line(line)

    def _sse_line(self, line: bytes) -> None:
        if line.startswith(b"event:"):
            self._event = line[6:].strip().decode(errors="replace")
        elif line.startswith(b"data:"):
            self._data(line[5:].strip())
        elif not line:
            self._event = None

    def _data(self, data: bytes) -> None:
        if not data or data == b"[DONE]":
            return
        try:
            event = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            return  # not JSON: no usage in it (the upstream's stream, untouched, goes to the agent)
        if not isinstance(event, dict):
            return
        try:
            self._stream_event(event)
        except MalformedUsage as exc:
            self.error = str(exc)

    def _stream_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type", self._event)
        if self.protocol == "chat":
            if event.get("usage") is not None:
                counted = _counted("chat", event["usage"])
                self._seen("input", counted.input_tokens)
                self._seen("output", counted.output_tokens)
        elif self.protocol == "responses":
            response = event.get("response")
            if isinstance(response, dict) and response.get("usage") is not None:
                counted = _counted("responses", response["usage"])
                self._seen("input", counted.input_tokens)
                self._seen("output", counted.output_tokens)
            elif kind == "response.completed":
                raise MalformedUsage("the response.completed event states no usage")
        else:
            usage: object = None
            if kind == "message_start" and isinstance(event.get("message"), dict):
                usage = event["message"].get("usage")
            elif kind == "message_delta":
                usage = event.get("usage")
            if usage is None:
                return
            if not isinstance(usage, dict):
                raise MalformedUsage(f"the {kind} event's usage is {usage!r}, not an object")
            for name in MESSAGES_FIELDS:
                if usage.get(name) is not None:
                    self._seen(name, _count(usage[name], f"{kind} usage.{name}"))

    def counted(self) -> Counted:
        """The reply's usage; raises MalformedUsage when it has none that can be counted."""
        if self.error is not None:
            raise MalformedUsage(self.error)
        if not self.streamed:
            try:
                reply = json.loads(bytes(self._body))
            except (ValueError, UnicodeDecodeError):
                raise MalformedUsage("the reply is not JSON") from None
            if not isinstance(reply, dict):
                raise MalformedUsage("the reply is not a JSON object")
            return _counted(self.protocol, reply.get("usage"))
        seen = self._largest
        if self.protocol != "messages":
            if "input" not in seen or "output" not in seen:
                raise MalformedUsage("the streamed reply reported no usage")
            return Counted(seen["input"], seen["output"])
        missing = [name for name in ("input_tokens", "output_tokens") if name not in seen]
        if missing:
            raise MalformedUsage(f"the streamed reply reported no {' and no '.join(missing)}")
        prompt = sum(seen.get(name, 0) for name in MESSAGES_FIELDS[:3])
        return Counted(prompt, seen["output_tokens"])
