"""The HTTP/1.1 side both metering hops serve their clients on: the runner's per-cell proxy (TCP loopback)
and the gateway sidecar (a Unix socket). h11 speaks the protocol, asyncio streams carry the bytes.

Also the upstream half every hop shares: `relay` streams a call to the next hop and its reply back as it
comes, feeding the reply to a usage reader on the way — everything but the reply's end, which each caller
sends once it has settled what the reply spent (the sidecar writes its ledger first: a client that saw a
whole reply can count on the ledger holding it).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import h11
import httpx

from assay_runner.gateway.metering.reach import PATIENCE, Patience, reached
from assay_runner.gateway.metering.usage import UsageReader

MAX_REQUEST_BYTES = 32 << 20
UPSTREAM_TIMEOUT = httpx.Timeout(connect=10.0, read=600.0, write=60.0, pool=30.0)
"""Connect: one try's; a connection not opened is tried again (`reach.Patience`)."""
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "authorization",
        "x-api-key",
        "accept-encoding",
    }
)
"""Headers never passed on: the connection's own, and any credential the client sent (each hop adds the one
the next hop needs, or none)."""
Writer = asyncio.StreamWriter
Answer = Callable[[h11.Connection, Writer, h11.Request, bytes], Awaitable[None]]


async def serve_connection(reader: asyncio.StreamReader, writer: Writer, answer: Answer) -> None:
    """One client connection: requests answered one after the other (keep-alive) until either side closes."""
    connection = h11.Connection(h11.SERVER, max_incomplete_event_size=64 << 10)
    try:
        while True:
            request, body = await read_request(connection, reader)
            if request is None:
                return
            await answer(connection, writer, request, body)
            if connection.our_state is h11.MUST_CLOSE or connection.their_state is h11.MUST_CLOSE:
                return
            connection.start_next_cycle()
    except (h11.ProtocolError, ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        writer.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):  # the hop is closing
            await writer.wait_closed()


async def read_request(
    connection: h11.Connection, reader: asyncio.StreamReader
) -> tuple[h11.Request | None, bytes]:
    request: h11.Request | None = None
    body = bytearray()
    while True:
        event = connection.next_event()
        if event is h11.NEED_DATA:
            data = await reader.read(64 << 10)
            connection.receive_data(data)
            continue
        if isinstance(event, h11.Request):
            request = event
        elif isinstance(event, h11.Data):
            body += event.data
            if len(body) > MAX_REQUEST_BYTES:
                raise h11.RemoteProtocolError("request body too large")
        elif isinstance(event, h11.EndOfMessage):
            return request, bytes(body)
        elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
            return None, b""


async def send(
    connection: h11.Connection,
    writer: Writer,
    status: int,
    body: bytes,
    content_type: str = "application/json",
) -> None:
    """A whole reply at once (an error, a replayed exchange)."""
    headers = [("content-type", content_type), ("content-length", str(len(body)))]
    with contextlib.suppress(ConnectionError, h11.LocalProtocolError):
        writer.write(connection.send(h11.Response(status_code=status, headers=headers)) or b"")
        writer.write(connection.send(h11.Data(data=body)) or b"")
        writer.write(connection.send(h11.EndOfMessage()) or b"")
        await writer.drain()


LAZY_UPSTREAM_MODULES = ("httpcore._backends.anyio", "anyio._backends._asyncio")
"""What httpx imports on its first request (its network backend): some 50 ms."""


def warm_up() -> None:
    """Import the upstream client's network backend on a thread of its own, now: else the first relayed call
    imports it on the event loop, and every cell of the first wave waits for it."""

    def load() -> None:
        for name in LAZY_UPSTREAM_MODULES:
            with contextlib.suppress(ImportError):
                importlib.import_module(name)

    threading.Thread(target=load, name="assay-warm-up", daemon=True).start()


def nodelay_transport() -> httpx.AsyncHTTPTransport:
    """To a TCP upstream without Nagle: a request goes out as headers then body, and a small second write
    held back until the first is acknowledged meets the upstream's delayed ACK (some 40 ms a call)."""
    return httpx.AsyncHTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])


def error_body(message: str, kind: str = "invalid_request_error") -> bytes:
    """An error body every protocol's client reads: OpenAI's shape, which Anthropic's SDK also parses."""
    return json.dumps(
        {"type": "error", "error": {"type": kind, "message": f"assay proxy: {message}"}}
    ).encode()


def request_headers(request: h11.Request, dropped: frozenset[str]) -> list[tuple[str, str]]:
    """The request's headers to pass on, lower-cased, without those in `dropped`."""
    headers = [(name.decode("latin-1").lower(), value.decode("latin-1")) for name, value in request.headers]
    return [(name, value) for name, value in headers if name not in dropped]


def header(request: h11.Request, name: str) -> str | None:
    wanted = name.encode("latin-1").lower()
    return next((v.decode("latin-1") for n, v in request.headers if n.lower() == wanted), None)


def model_of(body: bytes) -> str | None:
    try:
        request = json.loads(body) if body else None
    except (ValueError, UnicodeDecodeError):
        return None
    model = request.get("model") if isinstance(request, dict) else None
    return model if isinstance(model, str) else None


def streamed(body: bytes) -> bool:
    with contextlib.suppress(ValueError, UnicodeDecodeError, AttributeError):
        return bool(json.loads(body).get("stream"))
    return False


class Sink:
    """The client's side of a relayed reply; writing stops (silently) once the client has hung up."""

    def __init__(self, connection: h11.Connection, writer: Writer) -> None:
        self.connection = connection
        self.writer = writer
        self.gone = False
        self.started = False

    async def _write(self, event: h11.Event) -> None:
        if self.gone:
            return
        try:
            data = self.connection.send(event)
            if data:
                self.writer.write(data)
                await self.writer.drain()
        except (ConnectionError, h11.LocalProtocolError):
            self.gone = True

    async def start(self, status: int, content_type: str) -> None:
        self.started = True
        headers = [("content-type", content_type), ("cache-control", "no-cache")]
        await self._write(h11.Response(status_code=status, headers=headers))

    async def data(self, chunk: bytes) -> None:
        if chunk:
            await self._write(h11.Data(data=chunk))

    async def end(self) -> None:
        await self._write(h11.EndOfMessage())

    async def fail(self, status: int, body: bytes) -> None:
        if not self.started:
            await send(self.connection, self.writer, status, body)
        else:
            self.gone = True  # half a reply went out: the client sees the connection end


@dataclass(frozen=True)
class Relayed:
    status: int
    content_type: str
    captured: bytes | None
    """The whole reply, when asked for (a recording)."""


async def relay(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    body: bytes,
    headers: list[tuple[str, str]],
    sink: Sink,
    reader: UsageReader | None,
    capture: bool = False,
    patience: Patience = PATIENCE,
) -> Relayed | None:
    """Send the call upstream and stream its reply to `sink` — all of it but its end — feeding a successful
    reply to `reader`. A connection that could not be opened is tried again within `patience` (`reach`:
    nothing was sent). The reply is read to its end even when the client has hung up (a cell killed at its
    timeout): the upstream bills it, so it is counted. None when the upstream could not be reached or broke
    off (the client got a 502, or its connection ends): nothing was served, nothing is billed."""
    captured = bytearray() if capture else None
    request = http.build_request(method, url, content=body, headers=headers)
    try:
        async with reached(http, request, patience) as reply:
            content_type = reply.headers.get("content-type", "application/json")
            await sink.start(reply.status_code, content_type)
            async for chunk in reply.aiter_bytes():
                if reader is not None and reply.is_success:
                    reader.feed(chunk)
                if captured is not None:
                    captured += chunk
                await sink.data(chunk)
            status = reply.status_code
    except httpx.HTTPError as exc:
        await sink.fail(502, error_body(f"the gateway could not be reached: {exc!r}", "gateway_error"))
        return None
    return Relayed(status, content_type, bytes(captured) if captured is not None else None)
