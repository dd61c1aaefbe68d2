"""The HTTP server: routes each POST to its protocol, plays the script's step, records everything."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay_dev.servers.loopback import LoopbackServer, QuietHandler
from assay_dev.servers.model_server.replies import REPLIES, UsageStyle, error_body, restyled
from assay_dev.servers.model_server.requests import (
    Protocol,
    completed_turns,
    shape_problems,
    text_of,
    tool_call,
    tool_names,
    tool_parameters,
    tool_results,
    working_directory,
)
from assay_dev.servers.model_server.script import (
    Fail,
    Hang,
    Say,
    Script,
    ScriptChooser,
    Then,
    Usage,
    step_usage,
)

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"})
TITLE_REPLY = "Support ticket"
"""The reply to requests without tools (titles, summaries, the preflight)."""
OTHER_USAGE = Usage(prompt_tokens=300, output_tokens=20)
"""The usage reported for each reply of another model the server stands in for (`others`)."""


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    protocol: Protocol | None
    status: int = 0
    usage: Usage | None = None


def protocol_of(path: str) -> Protocol | None:
    route = path.split("?", 1)[0].rstrip("/")
    if route.endswith("/chat/completions"):
        return "chat"
    if route.endswith("/responses"):
        return "responses"
    if route.endswith("/v1/messages"):
        return "messages"
    return None


class ModelServer(LoopbackServer):
    """`with ModelServer(script, model="m") as server:` serves on `server.url` (`http://127.0.0.1:PORT/v1`)."""

    def __init__(
        self,
        script: Script | ScriptChooser,
        *,
        model: str,
        host: str = "127.0.0.1",
        side_faults: Sequence[int] = (),
        usage_style: UsageStyle = "native",
        others: Mapping[str, Callable[[dict[str, Any]], str]] | None = None,
    ) -> None:
        """`side_faults`: what the first requests without tools (a preflight, a title) get instead of a
        reply, one each: an HTTP status, or 0 for a connection closed without an answer (a reset).
        `others`: further models the server stands in for (a model customer's, a judge's), by name, each
        replying with a function of the request's body, with `OTHER_USAGE`; `GET .../models` lists them
        too."""
        self.others = dict(others or {})
        self.choose: ScriptChooser = script if callable(script) else (lambda _text: script)
        self.model = model
        self.side_faults = list(side_faults)
        self.usage_style: UsageStyle = usage_style
        """How streamed replies state their usage (`replies.restyled`): the counts are the same."""
        self.requests: list[Recorded] = []
        self.problems: list[str] = []
        self._lock = threading.Lock()
        self._hangs_over = threading.Event()
        """Ends every `Hang`: set when the server stops, or by `release_hangs`."""
        self._hanging = 0
        super().__init__(self._handler(), prefix="/v1", host=host)

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
            return "\n".join(text_of(r.body) for r in self.requests)

    def __exit__(self, *exc: object) -> None:
        self._hangs_over.set()
        super().__exit__(*exc)

    def hanging(self) -> int:
        """How many requests a `Hang` step holds unanswered right now."""
        with self._lock:
            return self._hanging

    def release_hangs(self) -> None:
        """Close every held request now, and any later `Hang` step's at once (unanswered): for a caller that
        knows no client waits any more (the CLI was killed), so the hang is not served out."""
        self._hangs_over.set()

    def _problem(self, text: str) -> None:
        with self._lock:
            self.problems.append(text)

    def _handler(self) -> type[QuietHandler]:
        server = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                record = self._record("GET", {})
                if self.path.split("?", 1)[0].rstrip("/").endswith("/models"):
                    listing = {
                        "object": "list",
                        "data": [
                            {"id": name, "object": "model", "type": "model", "owned_by": "assay-test"}
                            for name in (server.model, *server.others)
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
                shape = shape_problems(protocol, record.body)
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
                if model in server.others and model != server.model:
                    text = server.others[model](body)
                    self._ok(
                        record, REPLIES[protocol](model, text, None, OTHER_USAGE, stream), OTHER_USAGE, stream
                    )
                    return
                if model != server.model:
                    self._fail(
                        record, protocol, 404, f"unknown model {model!r}; this server has {server.model!r}"
                    )
                    return
                reply = REPLIES[protocol]
                if not offered:  # a side request: title, summary, a preflight
                    with server._lock:
                        fault = server.side_faults.pop(0) if server.side_faults else None
                    if fault == 0:
                        self.close_connection = True
                        return
                    if fault is not None:
                        failure = error_body(protocol, fault, f"scripted failure {fault}")
                        self._send(record, fault, failure, "application/json")
                        return
                    usage = Usage(prompt_tokens=300, output_tokens=5)
                    self._ok(record, reply(model, TITLE_REPLY, None, usage, stream), usage, stream)
                    return
                text = text_of(body.get("messages") or body.get("input")) + "\n" + text_of(body.get("system"))
                script = server.choose(text)
                turn = completed_turns(protocol, body)
                if turn >= len(script):
                    self._fail(record, protocol, 400, f"turn {turn} is past the script's {len(script)} steps")
                    return
                step = script[turn]
                if isinstance(step, Then):
                    step = step.decide(tool_results(protocol, body))
                    if isinstance(step, Then):
                        self._fail(record, protocol, 400, f"turn {turn}: a Then step decided on another Then")
                        return
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
                    with server._lock:
                        server._hanging += 1
                    try:
                        server._hangs_over.wait(step.seconds)
                    finally:
                        with server._lock:
                            server._hanging -= 1
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
                declared = tool_parameters(protocol, body, call.name)
                unknown = sorted(set(call.arguments) - declared) if declared is not None else []
                if unknown:
                    declares = sorted(declared or ())
                    message = f"{call.name} does not declare argument(s) {', '.join(unknown)}: {declares}"
                    self._fail(record, protocol, 400, f"POST {self.path}: {message}")
                    return
                self._ok(record, reply(model, None, call, usage, stream), usage, stream)

            def _ok(self, record: Recorded, payload: bytes, usage: Usage, stream: bool) -> None:
                record.usage = usage
                if stream and record.protocol is not None:
                    payload = restyled(record.protocol, payload, server.usage_style)
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
