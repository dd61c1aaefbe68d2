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


def protocol_of(path: str) -> Protocol | None:
    """The protocol a request path speaks, or None for calls that use no tokens (a model list)."""
    path = "/" + path.split("?", 1)[0].strip("/")
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/messages"):
        return "messages"
    return None


FREE_CALLS = ("/messages/count_tokens",)
"""POSTs that spend no tokens (Anthropic's token counter), forwarded unmetered."""


def refusal(method: str, path: str) -> str | None:
    """Why a metering hop does not forward this call, or None when it does. Model calls in the three
    protocols are metered; reads (GET, HEAD: a model list) and `FREE_CALLS` spend nothing; any other call
    (an embeddings or legacy completions POST, say) could spend what no reader here counts, so it is
    refused rather than let through unmetered."""
    route = "/" + path.split("?", 1)[0].strip("/")
    if protocol_of(path) is not None or method in ("GET", "HEAD") or route.endswith(FREE_CALLS):
        return None
    return (
        f"{method} {route} is not a model call Assay meters (chat/completions, responses, messages): "
        "calls it cannot count are not forwarded"
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


class UsageReader:
    """Fed the reply's bytes as they stream past; `counted()` once the reply has ended."""

    def __init__(self, protocol: Protocol, streamed: bool) -> None:
        self.protocol = protocol
        self.streamed = streamed
        self._body = bytearray()
        self._line = bytearray()
        self._event: str | None = None
        self._found: Counted | None = None
        self._prompt: int | None = None  # messages streams: from message_start
        self._output: int | None = None  # messages streams: from message_delta (cumulative)
        self.error: str | None = None

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
                self._found = _counted("chat", event["usage"])
        elif self.protocol == "responses":
            if kind == "response.completed" and isinstance(event.get("response"), dict):
                self._found = _counted("responses", event["response"].get("usage"))
        elif kind == "message_start" and isinstance(event.get("message"), dict):
            usage = event["message"].get("usage")
            counted = _counted("messages", {**(usage or {}), "output_tokens": 0}) if usage else None
            self._prompt = counted.input_tokens if counted else None
        elif kind == "message_delta" and isinstance(event.get("usage"), dict):
            self._output = _count(event["usage"].get("output_tokens"), "usage.output_tokens")

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
        if self.protocol == "messages" and self._prompt is not None and self._output is not None:
            return Counted(self._prompt, self._output)
        if self._found is None:
            raise MalformedUsage("the streamed reply reported no usage")
        return self._found
