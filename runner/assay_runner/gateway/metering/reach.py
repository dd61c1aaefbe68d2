"""Reaching the next hop: a call whose connection could not be opened is tried again, for a bounded time.

When the connection could not be opened (refused, unreachable, or no answer to the handshake within the
connect timeout), nothing of the request left this hop, so trying again cannot make the gateway answer, or
bill, one call twice. A call whose connection was opened is never sent again, whatever happens after.

Why: a pod's network can be not yet ready, or briefly not, when its first call goes out. Kubernetes starts a
pod's containers before its node's NetworkPolicy enforcer has necessarily programmed the pod, and while a
node is being lost a new pod on the node that survives can wait longer (tests/operator_cluster/
test_network_nodes.py lost a retried shard's cell in CI on 2026-12-06, its verdict some 30 s late: most
likely its first call got no answer for the whole connect timeout, then 30 s; the cause is not known). A
gateway restarting behind its Service refuses for a moment too. An agent's client
gives up or retries on its own terms; this hop does not hand it an error it did not need to see.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class Patience:
    """How long, and how often, a call tries to open its connection."""

    seconds: float = 45.0
    """From the first attempt to the last try's start. Less than the 60 s an agent's client commonly waits
    for a reply, so the agent still sees this hop's 502, with its reason, rather than its own timeout."""
    first_delay: float = 0.25
    longest_delay: float = 4.0

    def delays(self) -> Iterator[float]:
        """The pauses between tries, doubling from `first_delay` up to `longest_delay`, without end: the
        caller stops at `seconds`."""
        delay = self.first_delay
        while True:
            yield delay
            delay = min(delay * 2, self.longest_delay)


PATIENCE = Patience()
"""What every hop uses: a pod's network not ready for up to some 40 s is waited out."""

CONNECT_FAILURES = (httpx.ConnectError, httpx.ConnectTimeout)
"""Raised before the request was written: the connection was never opened (httpcore opens it, then sends)."""


def _hopeless(error: httpx.HTTPError) -> bool:
    """A TLS failure (a certificate the hop does not trust) is not a network that is not ready yet."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ssl.SSLError):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _say(message: str) -> None:
    print(f"assay: {message}", file=sys.stderr, flush=True)


@contextlib.asynccontextmanager
async def reached(
    http: httpx.AsyncClient,
    request: httpx.Request,
    patience: Patience = PATIENCE,
    say: Callable[[str], None] = _say,
) -> AsyncIterator[httpx.Response]:
    """The reply to `request`, streamed, once its connection opened: tried again while it could not be
    opened, until `patience` runs out (then the last failure is raised). Each retry is said on stderr."""
    started = time.monotonic()
    delays = patience.delays()
    attempt = 1
    while True:
        try:
            reply = await http.send(request, stream=True)
            break
        except CONNECT_FAILURES as error:
            left = patience.seconds - (time.monotonic() - started)
            if left <= 0 or _hopeless(error):
                raise
            pause = min(next(delays), left)
            attempt += 1
            say(
                f"{request.url.host}:{request.url.port or ''} could not be reached ({error!r}); nothing was "
                f"sent; try {attempt} in {pause:.2f} s"
            )
            await asyncio.sleep(pause)
    try:
        yield reply
    finally:
        await reply.aclose()
