"""The gateway sidecar (`assay gateway-sidecar`): the one holder of the real gateway token in an answer pod.

On the cluster the agents share a container, a user and a /proc with the runner, so whatever the runner
could read — a token in its environment, a mounted token file — an agent could read too. The token is
therefore mounted only into this process's container. It listens on a Unix socket in a volume shared with
the answer container (pods on a node may share one network; a socket in a pod's own volume is reachable
from that pod only), and:

- hands its key to the first client that claims it (`POST /assay/claim`, with the answer phase's prices,
  budget and shard): the runner, which claims before it starts any agent and keeps the key in memory its
  agents cannot read (`processes.hide_from_agents`). Later claims are refused;
- forwards a call that carries the key (`attribution.KEY_HEADER`) to the gateway with the token added, and
  counts it under the cell the runner names (`attribution.CELL_HEADER`), from the upstream's own usage
  (`usage`), against the shard's budget (`ledger`, the same rules as the runner's proxy);
- refuses a call without the key (an agent that found the socket) and records the attempt;
- keeps its ledger (`sidecar_ledger`) where the answer container cannot write: a line appended to its
  journal for every call it admits and every reply it settles — before the reply's last byte goes out, so
  a runner that saw a whole reply knows the ledger holds it. The judge phase reconciles it with the
  sealed cells (`reconcile`).

Calls it cannot count are not forwarded (`usage.refusal`), nor calls outside the gateway's own path.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path

import h11
import httpx
from pydantic import Field, ValidationError

from assay_runner.contract import POD_UID_ENV, Finite, PriceConfig, WireModel
from assay_runner.gateway.metering.attribution import CELL_HEADER, KEY_HEADER, OWN_HEADERS
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
from assay_runner.gateway.metering.ledger import CellSpend, Ledger, Refused
from assay_runner.gateway.metering.sidecar_ledger import (
    LEDGER_FILE,
    MAX_REFUSALS_KEPT,
    NO_CELL,
    Journal,
    JournalEntry,
    LedgerUnreadable,
    SidecarLedger,
    SpendCount,
    journal_path,
    read_ledger,
    write_ledger,
)
from assay_runner.gateway.metering.usage import (
    Counted,
    MalformedUsage,
    UsageReader,
    ask_for_usage,
    protocol_of,
    refusal,
)

CLAIM_PATH = "/assay/claim"
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the terminating NUL


class Claim(WireModel):
    """What the runner tells the sidecar when it takes the key: the answer phase's own prices and budget
    (the suite's and the RunConfig's, which no agent could have touched before any agent ran)."""

    prices: dict[str, PriceConfig] = Field(default_factory=dict)
    max_cost_usd: Finite | None = Field(default=None, gt=0)
    shard: tuple[int, int] | None = None


class Granted(WireModel):
    """The sidecar's reply to the claim."""

    key: str = Field(min_length=1)
    pod: str | None = None
    """The pod whose sidecar it is: the runner names it as the attempt that answered each cell."""
    spent_before: Finite = Field(default=0.0, ge=0)
    """What earlier attempts of this shard spent (their set-aside ledgers): counted against the budget."""


def key_digest(key: str) -> str:
    return f"sha256:{hashlib.sha256(key.encode()).hexdigest()}"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _origin_and_base(upstream: str) -> tuple[str, str]:
    """The gateway's origin (scheme, host, port: no credentials) and its base path, e.g. `/v1`."""
    url = httpx.URL(upstream)
    origin = f"{url.scheme}://{url.host}" + (f":{url.port}" if url.port else "")
    return origin, url.path.rstrip("/")


class GatewaySidecar:
    def __init__(
        self,
        socket_path: Path,
        ledger_dir: Path,
        upstream: str | None,
        token: str | None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if len(os.fsencode(socket_path)) > MAX_SOCKET_PATH:
            raise ValueError(f"the socket path {socket_path} is longer than {MAX_SOCKET_PATH} bytes")
        self.socket_path = socket_path
        self.ledger_path = ledger_dir / LEDGER_FILE
        self.origin: str | None = None
        self.base = ""
        if upstream:
            self.origin, self.base = _origin_and_base(upstream)
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(
            timeout=UPSTREAM_TIMEOUT, headers=headers, transport=transport or nodelay_transport()
        )
        self.record = self._load()
        self.ledger: Ledger | None = None
        if self.record.claimed:  # a restart: carry on with the key and the counts the last process kept
            self.ledger = self._ledger_from(self.record)
        self._server: asyncio.Server | None = None
        self._journal: Journal | None = None
        self._closed = False

    def _load(self) -> SidecarLedger:
        gateway = f"{self.origin}{self.base}" if self.origin else None
        now = _now()
        if not self.ledger_path.exists():
            pod = os.environ.get(POD_UID_ENV) or None
            return SidecarLedger(gateway=gateway, started_at=now, updated_at=now, pod=pod)
        try:
            earlier = read_ledger(self.ledger_path)
        except LedgerUnreadable as exc:
            raise ValueError(f"cannot carry on from {self.ledger_path}: {exc}") from None
        pod = os.environ.get(POD_UID_ENV) or None
        if earlier.pod != pod:
            # Another pod's: a retried shard's earlier attempt. Its runner and key are gone and the new one
            # answers the shard again, so its counts are kept beside this ledger, not carried on.
            kept = self.ledger_path.with_name(f"ledger-{earlier.pod or 'unnamed'}.json")
            os.replace(self.ledger_path, kept)
            with contextlib.suppress(FileNotFoundError):  # its journal goes with it
                os.replace(journal_path(self.ledger_path), journal_path(kept))
            return SidecarLedger(
                gateway=gateway,
                started_at=now,
                updated_at=now,
                pod=pod,
                set_aside=[*earlier.set_aside, kept.name],
                spent_before=round(earlier.spent_before + earlier.spent(), 9),
            )
        # Whatever was in flight when the last process ended was never counted: it stays on record as lost.
        cells = {
            cell: count.model_copy(update={"lost": count.lost + count.in_flight, "in_flight": 0})
            for cell, count in earlier.cells.items()
        }
        return earlier.model_copy(
            update={"restarts": earlier.restarts + 1, "cells": cells, "updated_at": now, "gateway": gateway}
        )

    @staticmethod
    def _ledger_from(record: SidecarLedger) -> Ledger:
        ledger = Ledger(record.prices, record.max_cost_usd, record.spent_before)
        spent = {
            cell: CellSpend(c.input_tokens, c.output_tokens, c.cost_usd, c.requests, c.error)
            for cell, c in record.cells.items()
        }
        ledger.resume(spent, record.stopped)
        return ledger

    async def __aenter__(self) -> GatewaySidecar:
        warm_up()
        self.socket_path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()  # a socket left by an earlier process of this sidecar
        self._journal = Journal(self.ledger_path)
        self._write()
        self._server = await asyncio.start_unix_server(self._connection, path=str(self.socket_path))
        # The key, not the file's mode, is the access control: the answer container (another uid, when run
        # by hand) must be able to connect.
        os.chmod(self.socket_path, 0o666)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        self._write(closing=True)
        self._closed = True  # a reply still being read when the sidecar stops is on record as lost
        if self._journal is not None:
            self._journal.close()
        await self._http.aclose()

    # --- the ledger file ------------------------------------------------------------------------------------

    def _write(self, *, closing: bool = False) -> None:
        """The whole ledger, holding the journal so far (at start, claim, a refused attempt and the end)."""
        if self._closed:
            return
        cells = dict(self.record.cells)
        if self.ledger is not None:
            flying = self.ledger.in_flight()
            for cell in set(self.ledger.cells) | set(flying):
                cells[cell] = self._count(cell, flying, closing=closing)
        self.record = self.record.model_copy(
            update={
                "cells": cells,
                "updated_at": _now(),
                "stopped": self.ledger.stopped if self.ledger is not None else self.record.stopped,
                "journal_bytes": self._journal.size if self._journal is not None else 0,
            }
        )
        write_ledger(self.ledger_path, self.record)

    def _note(self, cell: str) -> None:
        """One call of `cell` admitted, refused or settled: its counts as they now stand, appended to the
        journal (one small write, where the whole ledger was rewritten twice a call)."""
        if self._closed or self.ledger is None or self._journal is None:
            return
        count = self._count(cell, self.ledger.in_flight(), closing=False)
        self._journal.append(JournalEntry(cell=cell, count=count, stopped=self.ledger.stopped))

    def _count(self, cell: str, flying: dict[str, int], *, closing: bool) -> SpendCount:
        assert self.ledger is not None
        spend = self.ledger.cell(cell)
        earlier = self.record.cells.get(cell, SpendCount())
        in_flight = flying.get(cell, 0)
        return SpendCount(
            requests=spend.requests,
            input_tokens=spend.input_tokens,
            output_tokens=spend.output_tokens,
            cost_usd=round(spend.cost_usd, 9),
            in_flight=0 if closing else in_flight,
            lost=earlier.lost + (in_flight if closing else 0),
            error=spend.error,
        )

    def _refuse_attempt(self, what: str) -> None:
        refused = self.record.refused
        first = refused.first if len(refused.first) >= MAX_REFUSALS_KEPT else [*refused.first, what[:300]]
        update = {"count": refused.count + 1, "first": first}
        self.record = self.record.model_copy(update={"refused": refused.model_copy(update=update)})
        self._write()

    # --- serving --------------------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await serve_connection(reader, writer, self._answer)

    async def _answer(
        self, connection: h11.Connection, writer: asyncio.StreamWriter, request: h11.Request, body: bytes
    ) -> None:
        method, target = request.method.decode(), request.target.decode("latin-1")
        if target.split("?", 1)[0] == CLAIM_PATH:
            await self._claim(connection, writer, method, body)
            return
        key = header(request, KEY_HEADER)
        expected = self.record.key_digest
        if key is None or expected is None or not hmac.compare_digest(key_digest(key), expected):
            self._refuse_attempt(f"{method} {target}: {'a wrong key' if key else 'no key'}")
            refused = "this socket serves the runner only (no valid key): the attempt is recorded, and blocks"
            await send(connection, writer, 403, error_body(refused, "not_the_runner"))
            return
        assert self.ledger is not None  # a key exists only once claimed
        if (why := self._not_forwarded(method, target)) is not None:
            await send(connection, writer, 403, error_body(why, "not_metered"))
            return
        await self._forward(connection, writer, request, body, header(request, CELL_HEADER) or NO_CELL)

    def _not_forwarded(self, method: str, target: str) -> str | None:
        if self.origin is None:
            return "the gateway sidecar has no gateway to forward to"
        path = target.split("?", 1)[0]
        if not (path == self.base or path.startswith(f"{self.base}/")):
            return f"{path} is not under the gateway's path {self.base or '/'}"
        return refusal(method, path[len(self.base) :])

    async def _claim(
        self, connection: h11.Connection, writer: asyncio.StreamWriter, method: str, body: bytes
    ) -> None:
        if self.record.claimed:
            self._refuse_attempt(f"{method} {CLAIM_PATH}: the key was already taken")
            why = "the key was already taken: the attempt is recorded, and blocks"
            await send(connection, writer, 409, error_body(why, "not_the_runner"))
            return
        try:
            claim = Claim.model_validate_json(body)
        except ValidationError as exc:
            await send(connection, writer, 400, error_body(f"not a claim: {exc.errors()[:3]}"))
            return
        key = secrets.token_urlsafe(32)
        self.record = self.record.model_copy(
            update={
                "claimed": True,
                "key_digest": key_digest(key),
                "prices": claim.prices,
                "max_cost_usd": claim.max_cost_usd,
                "shard": claim.shard,
            }
        )
        self.ledger = self._ledger_from(self.record)
        self._write()
        # The pod is named so the runner can say which attempt answered each cell (a retried shard's ledgers
        # are told apart by it).
        granted = Granted(key=key, pod=self.record.pod, spent_before=self.record.spent_before)
        await send(connection, writer, 200, granted.to_json().encode())

    async def _forward(
        self,
        connection: h11.Connection,
        writer: asyncio.StreamWriter,
        request: h11.Request,
        body: bytes,
        cell: str,
    ) -> None:
        assert self.ledger is not None and self.origin is not None
        method, target = request.method.decode(), request.target.decode("latin-1")
        protocol = protocol_of(target.split("?", 1)[0][len(self.base) :])
        model = model_of(body)
        try:
            reservation = await self.ledger.admit(cell, model) if protocol else None
        except Refused as exc:
            self._note(cell)
            await send(connection, writer, 402, error_body(str(exc), "budget_exceeded"))
            return
        self._note(cell)  # in flight, on record
        counted: Counted | None = None
        problem: str | None = None
        sink = Sink(connection, writer)
        try:
            body = ask_for_usage(protocol, body) if protocol else body
            reader = UsageReader(protocol, streamed(body)) if protocol else None
            relayed = await relay(
                self._http,
                method,
                f"{self.origin}{target}",
                body=body,
                headers=request_headers(request, HOP_BY_HOP | OWN_HEADERS),
                sink=sink,
                reader=reader,
            )
            if relayed is not None and reader is not None and 200 <= relayed.status < 300:
                try:
                    counted = reader.counted()
                except MalformedUsage as exc:
                    problem = str(exc)
            if relayed is None:
                return
        finally:
            if reservation is not None:
                await self.ledger.settle(reservation, counted, problem)
                self._note(cell)
        await sink.end()  # only now: the ledger holds this reply before its client sees it end


async def serve(sidecar: GatewaySidecar, stop: asyncio.Event) -> None:
    """Serve until `stop` is set (SIGTERM: the pod is ending), then write the ledger a last time."""
    async with sidecar:
        await stop.wait()
