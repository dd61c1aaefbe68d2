"""A real HTTP server on loopback that speaks the chat-completions protocol, scripted by the test.

The code under test talks to it with its real HTTP client: replies, latency, 429s with Retry-After, 5xx,
malformed bodies and dropped connections all travel over a socket, as they would from a gateway.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assay_dev.servers.loopback import LoopbackServer, QuietHandler


@dataclass
class Reply:
    """What the server sends for one request."""

    content: str | None = None
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: bytes | None = None
    """Sent as-is instead of a completion (for malformed replies)."""
    drop: bool = False
    """Close the connection without answering."""
    prompt_tokens: int = 100
    completion_tokens: int = 20


Script = Callable[[dict[str, Any]], Reply]


def completion(content: str, model: str, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class ChatServer(LoopbackServer):
    def __init__(self, script: Script, token: str | None = None) -> None:
        """`token`: answer only requests with `Authorization: Bearer <token>`, as a gateway that needs one
        does; the others get 401 and are only counted (`rejected`)."""
        self.script = script
        self.token = token
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.rejected = 0
        self._lock = threading.Lock()
        server = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                if server.token is not None and self.headers.get("authorization") != f"Bearer {server.token}":
                    with server._lock:
                        server.rejected += 1
                    self._send(401, b'{"error": {"message": "a valid token is required"}}', {})
                    return
                body = json.loads(raw or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                if not self.path.endswith("/chat/completions"):
                    self._send(404, b'{"error": "not found"}', {})
                    return
                reply = server.script(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if reply.raw_body is not None:
                    payload = reply.raw_body
                elif reply.status == 200:
                    payload = json.dumps(
                        completion(
                            reply.content or "",
                            body.get("model", ""),
                            reply.prompt_tokens,
                            reply.completion_tokens,
                        )
                    ).encode()
                else:
                    payload = json.dumps({"error": {"message": f"status {reply.status}"}}).encode()
                self._send(reply.status, payload, reply.headers)

            def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                self.send(status, payload, headers, content_type="application/json")

        super().__init__(Handler, prefix="/v1")
