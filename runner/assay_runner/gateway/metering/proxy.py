"""The metering proxy: every program agent's model traffic passes through it, on loopback.

Each cell gets a base URL of its own, `http://127.0.0.1:<port>/cell/<key>/v1`, and a credential of its own
(`CellAccess`), both random and revoked when the cell ends; the agent is given the URL and presents the
credential as its API key (`Authorization: Bearer` or `x-api-key`), never the gateway's token. A call on one
cell's URL with another cell's credential, or with none, is refused (401/403) and recorded in the cells it
names (it blocks them): a cell that found its neighbour's URL cannot spend, or be recorded, in its name.
Only the calls the hops understand are forwarded (`usage.refusal`: the three protocols' model calls,
metered, and GETs of the model list); any other is refused and recorded too. Each request is forwarded to
the real gateway (the three protocols the CLIs speak, streamed or not, the stream passed on as it comes) —
with the real gateway token, which only this process holds, or, on the cluster, to the gateway sidecar
that holds it (`sidecar`; the upstream transport then adds the runner's key and the cell: `attribution`);
counts the reply's tokens from the upstream's own usage fields (`usage`), prices them and keeps the budget
(`ledger`); keeps the tool results each cell's requests carried to the model (`witness`: what trajectory
judges gate on); and records or replays the exchanges (`exchanges`). Usage in results comes from here, never
from files an agent can write. Calls that could spend what it cannot count are refused (`usage.refusal`).

When the agent hangs up in the middle of a reply (killed at its timeout), the proxy still reads the reply
to its end, so its tokens are counted: a killed cell is billed, and so is it here.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass
from pathlib import Path

import h11
import httpx

from assay_runner.gateway.metering.attribution import OWN_HEADERS, attributed
from assay_runner.gateway.metering.exchanges import Exchanges, MissingExchange, Reply
from assay_runner.gateway.metering.http1 import (
    HOP_BY_HOP,
    UPSTREAM_TIMEOUT,
    Sink,
    error_body,
    header,
    model_of,
    nodelay_transport,
    relay,
    request_headers,
    send,
    serve_connection,
    streamed,
    warm_up,
)
from assay_runner.gateway.metering.ledger import Ledger, Refused
from assay_runner.gateway.metering.request import UnreadableRequest, read_request
from assay_runner.gateway.metering.usage import (
    Counted,
    MalformedUsage,
    Protocol,
    UsageReader,
    ask_for_usage,
    billed_apart,
    protocol_of,
    refusal,
)
from assay_runner.gateway.metering.witness import Witness
from assay_runner.vocabulary import CassetteMode

PREFIX = "/cell/"


@dataclass(frozen=True)
class CellAccess:
    """What a cell's agent is given: its base URL at the proxy and its credential there."""

    url: str
    key: str


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
        self.witness = Witness()
        """The tool results each cell's requests carried to the model (what trajectory judges gate on)."""
        self.exchanges = exchanges
        self.mode = mode
        headers = {"authorization": f"Bearer {token}"} if token else {}
        transport = transport or nodelay_transport()
        self._http = httpx.AsyncClient(timeout=UPSTREAM_TIMEOUT, headers=headers, transport=transport)
        self._keys: dict[str, str] = {}  # URL key -> cell
        self._credentials: dict[str, str] = {}  # credential -> cell, while the cell runs
        self._ended: dict[str, str] = {}  # credential -> cell, once it has ended (to name it)
        self._turns: dict[tuple[str, str], int] = {}
        self._server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> MeteringProxy:
        warm_up()  # while the first agents start: not on the loop when their first calls come
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        await self._http.aclose()

    def open_cell(self, cell: str, workspace: Path | None = None) -> CellAccess:
        """A base URL and a credential for `cell`'s agent, valid until `close_cell`. When recording,
        `workspace` (the cell's folder) is recorded with its exchanges: a replay puts the cell there again."""
        key = secrets.token_urlsafe(24)
        credential = secrets.token_urlsafe(24)
        self._keys[key] = cell
        self._credentials[credential] = cell
        self.ledger.cell(cell)
        recording = self.exchanges is not None and self.mode in ("record", "replay-or-record")
        if workspace is not None and recording and self.exchanges is not None:
            self.exchanges.save_workspace(cell, workspace)
        return CellAccess(f"http://127.0.0.1:{self.port}{PREFIX}{key}/v1", credential)

    def recorded_workspace(self, cell: str) -> Path | None:
        """Where a replayed cell's workspace was when it was recorded (None: anywhere)."""
        if self.exchanges is None or self.mode not in ("replay", "replay-or-record"):
            return None
        return self.exchanges.workspace_of(cell)

    def close_cell(self, cell: str) -> None:
        """Revoke the cell's URL: a process it left behind cannot spend in its name (or any other)."""
        for key in [k for k, c in self._keys.items() if c == cell]:
            del self._keys[key]
        for credential in [k for k, c in self._credentials.items() if c == cell]:
            self._ended[credential] = self._credentials.pop(credential)

    # --- HTTP/1.1 on loopback (gateway.metering.http1) ------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await serve_connection(reader, writer, self._answer)

    async def _answer(
        self, connection: h11.Connection, writer: asyncio.StreamWriter, request: h11.Request, body: bytes
    ) -> None:
        target = request.target.decode("latin-1")
        presented = _credential(request)
        call = self._call(request, target, body)
        holder = self._credentials.get(presented or "")
        if call is None:
            if holder is not None:
                self.ledger.cell(holder).refuse(
                    f"cell {holder}'s credential on an unknown or ended cell's URL"
                )
            await send(
                connection, writer, 403, error_body("unknown or ended cell: this URL is no longer valid")
            )
            return
        if holder != call.cell:
            status, why = self._wrong_credential(call.cell, presented, holder)
            await send(connection, writer, status, error_body(why, "wrong_credential"))
            return
        if (refused := refusal(call.method, call.path)) is not None:
            self.ledger.cell(call.cell).refuse(refused)
            await send(connection, writer, 403, error_body(refused, "not_metered"))
            return
        protocol = protocol_of(call.path)
        if protocol is not None and (unmetered := self._unmetered(protocol, call.body)) is not None:
            self.ledger.cell(call.cell).refuse(unmetered)
            await send(connection, writer, 403, error_body(unmetered, "not_metered"))
            return
        self._turns[(call.cell, call.path)] = call.turn  # a refused call takes no turn of the recording
        try:
            reservation = await self.ledger.admit(call.cell, call.model) if protocol else None
        except Refused as exc:
            await send(connection, writer, 402, error_body(str(exc), "budget_exceeded"))
            return
        counted: Counted | None = None
        problem: str | None = None
        try:
            with attributed(call.cell):  # what the sidecar, when there is one, counts it under
                counted, problem = await self._forward(connection, writer, call, protocol)
        finally:
            if reservation is not None:
                await self.ledger.settle(reservation, counted, problem)

    @staticmethod
    def _unmetered(protocol: Protocol, body: bytes) -> str | None:
        """Why a model call is not forwarded for what its body asks, or None. The body is read one way only
        (`read_request`) before anything is taken from it: the tools it names, its model, its stream flag."""
        try:
            request = read_request(body)
        except UnreadableRequest as exc:
            return (
                f"the call's body is not one JSON object every provider reads alike ({exc}): "
                "the proxy cannot tell what it asks for, so it is refused, and recorded"
            )
        return billed_apart(protocol, request)

    def _wrong_credential(self, cell: str, presented: str | None, holder: str | None) -> tuple[int, str]:
        """Record a call on `cell`'s URL that did not present `cell`'s credential: (status, why)."""
        if presented is None:
            why = f"a call on cell {cell}'s URL presented no credential"
            self.ledger.cell(cell).refuse(why)
            return 401, why
        if holder is not None:
            why = f"a call on cell {cell}'s URL presented cell {holder}'s credential"
            self.ledger.cell(cell).refuse(why)
            self.ledger.cell(holder).refuse(why)
            return 403, why
        ended = self._ended.get(presented)
        why = f"a call on cell {cell}'s URL presented " + (
            f"ended cell {ended}'s credential" if ended else "a credential that is no cell's"
        )
        self.ledger.cell(cell).refuse(why)
        return 403, why

    def _call(self, request: h11.Request, target: str, body: bytes) -> Call | None:
        if not target.startswith(PREFIX):
            return None
        key, _, rest = target[len(PREFIX) :].partition("/")
        cell = self._keys.get(key)
        if cell is None:
            return None
        rest = rest.removeprefix("v1/") if rest.startswith("v1/") else rest
        model = model_of(body)
        turn = self._turns.get((cell, rest), 0) + 1  # taken in `_answer` once the call is let through
        headers = request_headers(request, HOP_BY_HOP | OWN_HEADERS)
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
                    await send(connection, writer, 502, error_body(str(exc), "cassette_miss"))
                    return None, str(exc) if protocol else None
        if recorded is not None:
            if protocol is not None and 200 <= recorded.status < 300:
                self.witness.relayed(call.cell, protocol, call.body)
            return await self._replay(connection, writer, recorded, protocol)
        body = ask_for_usage(protocol, call.body) if protocol else call.body
        sink = Sink(connection, writer)
        reader = UsageReader(protocol, streamed(body)) if protocol else None
        recording = self.exchanges is not None and self.mode != "off"
        relayed = await relay(
            self._http,
            call.method,
            f"{self.upstream}/{call.path}",
            body=body,
            headers=call.headers,
            sink=sink,
            reader=reader,
            capture=recording,
        )
        if relayed is None:
            return None, None  # nothing was served, nothing is billed
        await sink.end()
        if relayed.captured is not None and self.exchanges is not None:
            reply = Reply(relayed.status, relayed.content_type, relayed.captured)
            self.exchanges.save(call.cell, call.path, call.turn, call.model, call.body, reply)
        if reader is None or protocol is None or not 200 <= relayed.status < 300:
            return None, None
        self.witness.relayed(call.cell, protocol, call.body)  # the model took the request: it saw them
        return _read_usage(reader)

    async def _replay(
        self,
        connection: h11.Connection,
        writer: asyncio.StreamWriter,
        reply: Reply,
        protocol: Protocol | None,
    ) -> tuple[Counted | None, str | None]:
        await send(connection, writer, reply.status, reply.body, reply.content_type)
        if protocol is None or not 200 <= reply.status < 300:
            return None, None
        reader = UsageReader(protocol, reply.content_type.startswith("text/event-stream"))
        reader.feed(reply.body)
        reader.feed(b"\n")
        return _read_usage(reader)


def _credential(request: h11.Request) -> str | None:
    """The credential a call presents: its bearer token (OpenAI's clients, Claude Code's auth token) or its
    `x-api-key` (Anthropic's API key)."""
    bearer = header(request, "authorization")
    if bearer is not None and bearer[:7].lower() == "bearer ":
        return bearer[7:].strip() or None
    key = header(request, "x-api-key")
    return key.strip() or None if key is not None else None


def _read_usage(reader: UsageReader) -> tuple[Counted | None, str | None]:
    try:
        return reader.counted(), None
    except MalformedUsage as exc:
        return None, str(exc)
