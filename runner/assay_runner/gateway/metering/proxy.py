"""The metering proxy: every program agent's model traffic passes through it, on loopback.

Each cell gets a base URL of its own, `http://127.0.0.1:<port>/cell/<key>/v1`, with a random key that is
revoked when the cell ends; the agent is given that URL and no token. The proxy forwards each request to
the real gateway (the three protocols the CLIs speak, streamed or not, the stream passed on as it comes)
with the real gateway token, which only this process holds; counts the reply's tokens from the upstream's
own usage fields (`usage`), prices them and keeps the budget (`ledger`); and records or replays the
exchanges (`exchanges`). Usage in results comes from here, never from files an agent can write.

When the agent hangs up in the middle of a reply (killed at its timeout), the proxy still reads the reply
to its end, so its tokens are counted: a killed cell is billed, and so is it here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
from dataclasses import dataclass

import h11
import httpx

from assay_runner.gateway.metering.exchanges import Exchanges, MissingExchange, Reply
from assay_runner.gateway.metering.ledger import Ledger, Refused
from assay_runner.gateway.metering.usage import (
    Counted,
    MalformedUsage,
    Protocol,
    UsageReader,
    ask_for_usage,
    protocol_of,
)
from assay_runner.vocabulary import CassetteMode

PREFIX = "/cell/"
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
MAX_REQUEST_BYTES = 32 << 20
UPSTREAM_TIMEOUT = httpx.Timeout(connect=30.0, read=600.0, write=60.0, pool=30.0)


@dataclass(frozen=True)
class Call:
    cell: str
    method: str
    path: str
    """Below the gateway's base URL: `chat/completions`, `responses`, `messages`, `models`..."""
    headers: list[tuple[str, str]]
    body: bytes
    model: str | None
    turn: int


class MeteringProxy:
    def __init__(
        self,
        upstream: str | None,
        ledger: Ledger,
        *,
        token: str | None = None,
        exchanges: Exchanges | None = None,
        mode: CassetteMode = "off",
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if mode in ("replay", "replay-or-record", "record") and exchanges is None:
            raise ValueError(f"cassette mode {mode!r} needs a cassette directory")
        if mode != "replay" and not upstream:
            raise ValueError("the metering proxy needs the gateway's URL (or cassettes to replay)")
        self.upstream = (upstream or "").rstrip("/")
        self.ledger = ledger
        self.exchanges = exchanges
        self.mode = mode
        headers = {"authorization": f"Bearer {token}"} if token else {}
        # No Nagle: a request goes out as headers then body, and a small second write held back until the
        # first is acknowledged meets the upstream's delayed ACK (some 40 ms a call).
        nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        transport = transport or httpx.AsyncHTTPTransport(socket_options=nodelay)
        self._http = httpx.AsyncClient(timeout=UPSTREAM_TIMEOUT, headers=headers, transport=transport)
        self._keys: dict[str, str] = {}  # key -> cell
        self._turns: dict[tuple[str, str], int] = {}
        self._server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> MeteringProxy:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        await self._http.aclose()

    def open_cell(self, cell: str) -> str:
        """A base URL for `cell`'s agent, valid until `close_cell`."""
        key = secrets.token_urlsafe(24)
        self._keys[key] = cell
        self.ledger.cell(cell)
        return f"http://127.0.0.1:{self.port}{PREFIX}{key}/v1"

    def close_cell(self, cell: str) -> None:
        """Revoke the cell's URL: a process it left behind cannot spend in its name (or any other)."""
        for key in [k for k, c in self._keys.items() if c == cell]:
            del self._keys[key]

    # --- HTTP/1.1 on loopback (h11: the protocol, asyncio streams: the bytes) ------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = h11.Connection(h11.SERVER, max_incomplete_event_size=64 << 10)
        try:
            while True:
                request, body = await _read_request(connection, reader)
                if request is None:
                    return
                await self._answer(connection, writer, request, body)
                if connection.our_state is h11.MUST_CLOSE or connection.their_state is h11.MUST_CLOSE:
                    return
                connection.start_next_cycle()
        except (h11.ProtocolError, ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):  # the proxy is closing
                await writer.wait_closed()

    async def _answer(
        self, connection: h11.Connection, writer: asyncio.StreamWriter, request: h11.Request, body: bytes
    ) -> None:
        target = request.target.decode("latin-1")
        call = self._call(request, target, body)
        if call is None:
            await _send(connection, writer, 403, _error("unknown or ended cell: this URL is no longer valid"))
            return
        protocol = protocol_of(call.path)
        try:
            reservation = await self.ledger.admit(call.cell, call.model) if protocol else None
        except Refused as exc:
            await _send(connection, writer, 402, _error(str(exc), "budget_exceeded"))
            return
        counted: Counted | None = None
        problem: str | None = None
        try:
            counted, problem = await self._forward(connection, writer, call, protocol)
        finally:
            if reservation is not None:
                await self.ledger.settle(reservation, counted, problem)

    def _call(self, request: h11.Request, target: str, body: bytes) -> Call | None:
        if not target.startswith(PREFIX):
            return None
        key, _, rest = target[len(PREFIX) :].partition("/")
        cell = self._keys.get(key)
        if cell is None:
            return None
        rest = rest.removeprefix("v1/") if rest.startswith("v1/") else rest
        model = _model_of(body)
        turn = self._turns.get((cell, rest), 0) + 1
        self._turns[(cell, rest)] = turn
        headers = [
            (name.decode("latin-1").lower(), value.decode("latin-1"))
            for name, value in request.headers
            if name.decode("latin-1").lower() not in HOP_BY_HOP
        ]
        return Call(cell, request.method.decode(), rest, headers, body, model, turn)

    async def _forward(
        self, connection: h11.Connection, writer: asyncio.StreamWriter, call: Call, protocol: Protocol | None
    ) -> tuple[Counted | None, str | None]:
        """Relay one call and read its reply's usage: (counted tokens, or why they could not be)."""
        recorded = None
        if self.exchanges is not None and self.mode in ("replay", "replay-or-record"):
            try:
                recorded = self.exchanges.load(call.cell, call.path, call.turn, call.model)
            except MissingExchange as exc:
                if self.mode == "replay":
                    await _send(connection, writer, 502, _error(str(exc), "cassette_miss"))
                    return None, str(exc) if protocol else None
        if recorded is not None:
            return await self._replay(connection, writer, recorded, protocol)
        body = ask_for_usage(protocol, call.body) if protocol else call.body
        streamed = _streamed(body)
        sink = _Sink(connection, writer)
        reader = UsageReader(protocol, streamed) if protocol else None
        captured = bytearray() if self.exchanges is not None and self.mode != "off" else None
        try:
            async with self._http.stream(
                call.method, f"{self.upstream}/{call.path}", content=body, headers=call.headers
            ) as reply:
                content_type = reply.headers.get("content-type", "application/json")
                await sink.start(reply.status_code, content_type)
                async for chunk in reply.aiter_bytes():
                    if reader is not None and reply.is_success:
                        reader.feed(chunk)
                    if captured is not None:
                        captured += chunk
                    await sink.data(chunk)  # a hung-up agent: the reply is still read to its end
                await sink.end()
                status = reply.status_code
        except httpx.HTTPError as exc:
            await sink.fail(502, _error(f"the gateway could not be reached: {exc!r}", "gateway_error"))
            return None, None  # nothing was served, nothing is billed
        if captured is not None and self.exchanges is not None:
            self.exchanges.save(
                call.cell,
                call.path,
                call.turn,
                call.model,
                call.body,
                Reply(status, content_type, bytes(captured)),
            )
        if reader is None or not 200 <= status < 300:
            return None, None
        return _read_usage(reader)

    async def _replay(
        self,
        connection: h11.Connection,
        writer: asyncio.StreamWriter,
        reply: Reply,
        protocol: Protocol | None,
    ) -> tuple[Counted | None, str | None]:
        await _send(connection, writer, reply.status, reply.body, reply.content_type)
        if protocol is None or not 200 <= reply.status < 300:
            return None, None
        reader = UsageReader(protocol, reply.content_type.startswith("text/event-stream"))
        reader.feed(reply.body)
        reader.feed(b"\n")
        return _read_usage(reader)


def _read_usage(reader: UsageReader) -> tuple[Counted | None, str | None]:
    try:
        return reader.counted(), None
    except MalformedUsage as exc:
        return None, str(exc)


class _Sink:
    """The agent's side of a relayed reply; writing stops (silently) once the agent has hung up."""

    def __init__(self, connection: h11.Connection, writer: asyncio.StreamWriter) -> None:
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
            await _send(self.connection, self.writer, status, body)
        else:
            self.gone = True  # half a reply went out: the agent sees the connection end


async def _read_request(
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


async def _send(
    connection: h11.Connection,
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    content_type: str = "application/json",
) -> None:
    headers = [("content-type", content_type), ("content-length", str(len(body)))]
    with contextlib.suppress(ConnectionError, h11.LocalProtocolError):
        writer.write(connection.send(h11.Response(status_code=status, headers=headers)) or b"")
        writer.write(connection.send(h11.Data(data=body)) or b"")
        writer.write(connection.send(h11.EndOfMessage()) or b"")
        await writer.drain()


def _error(message: str, kind: str = "invalid_request_error") -> bytes:
    """An error body every protocol's client reads: OpenAI's shape, which Anthropic's SDK also parses."""
    return json.dumps(
        {"type": "error", "error": {"type": kind, "message": f"assay proxy: {message}"}}
    ).encode()


def _model_of(body: bytes) -> str | None:
    try:
        request = json.loads(body) if body else None
    except (ValueError, UnicodeDecodeError):
        return None
    model = request.get("model") if isinstance(request, dict) else None
    return model if isinstance(model, str) else None


def _streamed(body: bytes) -> bool:
    with contextlib.suppress(ValueError, UnicodeDecodeError, AttributeError):
        return bool(json.loads(body).get("stream"))
    return False
