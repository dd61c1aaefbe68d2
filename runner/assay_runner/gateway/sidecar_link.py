"""The answer phase's way to the gateway on the cluster: through the gateway sidecar, never with a token.

When `GATEWAY_SOCKET_ENV` names the sidecar's socket, the answer phase — before it starts any agent —
makes itself unreadable to its agents (`processes.hide_from_agents`: they share its user), claims the
sidecar's key with the phase's prices, budget and shard, and from then on sends every model call (the
metering proxy's, the chat agent's) over the socket with the key and the cell the call is made for
(`SidecarTransport`). It refuses to run holding a gateway token of its own: the point is that none is in
its container.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
from pydantic import ValidationError

from assay_runner.contract import GATEWAY_SOCKET_ENV, PriceConfig
from assay_runner.errors import InputError
from assay_runner.gateway.metering.attribution import CELL_HEADER, CURRENT_CELL, KEY_HEADER
from assay_runner.gateway.metering.sidecar import CLAIM_PATH, Claim, Granted

CLAIM_WAIT_SECONDS = 60.0
"""How long the answer phase waits for the sidecar's socket (the sidecar starts just before it)."""


class SidecarTransport(httpx.AsyncBaseTransport):
    """HTTP over the sidecar's Unix socket, each request carrying the runner's key and its cell."""

    def __init__(self, socket: Path, key: str) -> None:
        self._inner = httpx.AsyncHTTPTransport(uds=str(socket))
        self._key = key

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers[KEY_HEADER] = self._key
        cell = CURRENT_CELL.get()
        if cell is not None:
            request.headers[CELL_HEADER] = cell
        else:
            request.headers.pop(CELL_HEADER, None)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@dataclass(frozen=True)
class SidecarLink:
    socket: Path
    key: str
    pod: str | None = None
    """The uid of the answer pod whose sidecar this is (None outside a cluster): the attempt that answers."""
    spent_before: float = 0.0
    """What earlier attempts of this shard spent at the gateway (USD): the budget left is what remains."""

    def transport(self) -> SidecarTransport:
        """A transport of its own for each client (a client closes its transport when it closes)."""
        return SidecarTransport(self.socket, self.key)


def sidecar_socket() -> Path | None:
    value = os.environ.get(GATEWAY_SOCKET_ENV)
    return Path(value) if value else None


async def connect(
    socket: Path,
    prices: Mapping[str, PriceConfig],
    max_cost_usd: float | None,
    shard: tuple[int, int] | None,
    *,
    wait: float = CLAIM_WAIT_SECONDS,
) -> SidecarLink:
    """Claim the sidecar's key (once: a second claim is refused). Call before any agent runs."""
    from assay_runner.gateway.http import gateway_token
    from assay_runner.processes import hide_from_agents

    if gateway_token("agent") is not None:
        raise InputError(
            f"the answer phase reaches the gateway through its sidecar ({GATEWAY_SOCKET_ENV}) and must hold "
            "no gateway token itself: ASSAY_GATEWAY_TOKEN(_FILE) is set"
        )
    hide_from_agents()
    claim = Claim(prices=dict(prices), max_cost_usd=max_cost_usd, shard=shard)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    async with httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(uds=str(socket)), timeout=30) as http:
        while True:
            try:
                reply = await http.post(f"http://sidecar{CLAIM_PATH}", content=claim.to_json())
                break
            except httpx.TransportError as exc:
                if loop.time() > deadline:
                    raise InputError(
                        f"the gateway sidecar's socket {socket} did not answer within {wait:g} s: {exc!r}"
                    ) from None
                await asyncio.sleep(0.1)
    try:
        granted = Granted.model_validate_json(reply.content) if reply.status_code == 200 else None
    except ValidationError:
        granted = None
    if granted is None:
        raise InputError(
            f"the gateway sidecar at {socket} refused the answer phase's claim ({reply.status_code}: "
            f"{reply.text[:300]}): another process took its key first"
        )
    return SidecarLink(socket, granted.key, granted.pod or None, granted.spent_before)
