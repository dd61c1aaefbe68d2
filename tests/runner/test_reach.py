"""A call whose connection to the next hop could not be opened is tried again for a bounded time
(`metering.reach`), and a call whose connection was opened is never sent twice: against real loopback
listeners, and through the gateway sidecar over its real Unix socket."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from assay_dev.cluster.forward import Forward
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.gateway.metering.attribution import CELL_HEADER, KEY_HEADER
from assay_runner.gateway.metering.reach import CONNECT_FAILURES, Patience, reached
from assay_runner.gateway.metering.sidecar import CLAIM_PATH, GatewaySidecar
from assay_runner.gateway.metering.sidecar_ledger import LEDGER_FILE, read_ledger

CALL = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def refusing() -> Iterator[socket.socket]:
    """A loopback port bound and not listening: the kernel refuses every connection to it."""
    bound = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    bound.bind(("127.0.0.1", 0))
    yield bound
    bound.close()


def url_of(bound: socket.socket, path: str = "") -> str:
    host, port = bound.getsockname()
    return f"http://{host}:{port}{path}"


def listen_later(bound: socket.socket, target: tuple[str, int], after: float) -> threading.Thread:
    """After `after` seconds, `bound` listens and splices each connection to `target`."""

    def start() -> None:
        time.sleep(after)
        bound.listen(16)
        Forward(bound, target)

    thread = threading.Thread(target=start, daemon=True)
    thread.start()
    return thread


def port_of(server: ChatServer) -> int:
    return int(server.url.rsplit(":", 1)[1].split("/", 1)[0])


def test_patience_doubles_its_pauses_up_to_the_longest() -> None:
    delays = Patience(seconds=10, first_delay=0.5, longest_delay=3).delays()
    assert [next(delays) for _ in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_a_refused_connection_is_tried_again_until_the_hop_listens(refusing: socket.socket) -> None:
    said: list[str] = []
    with ChatServer(lambda _body: Reply("fine")) as server:
        opened = listen_later(refusing, ("127.0.0.1", port_of(server)), after=0.8)

        async def call() -> tuple[int, bytes]:
            async with httpx.AsyncClient() as http:
                request = http.build_request("POST", url_of(refusing, "/v1/chat/completions"), json=CALL)
                async with reached(http, request, Patience(seconds=20), said.append) as reply:
                    return reply.status_code, await reply.aread()

        status, body = asyncio.run(call())
        opened.join()
        assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "fine"
        assert len(server.requests) == 1  # sent once, once the connection opened
    assert said and all("could not be reached" in line and "nothing was sent" in line for line in said)
    assert said[0].endswith("try 2 in 0.25 s"), said


def test_a_hop_that_never_listens_fails_once_patience_is_spent(refusing: socket.socket) -> None:
    said: list[str] = []

    async def call() -> None:
        async with httpx.AsyncClient() as http:
            request = http.build_request("POST", url_of(refusing, "/v1/chat/completions"), json=CALL)
            async with reached(http, request, Patience(seconds=0.6, first_delay=0.1), said.append):
                raise AssertionError("no connection could have opened")

    started = time.monotonic()
    with pytest.raises(httpx.ConnectError):
        asyncio.run(call())
    assert time.monotonic() - started >= 0.6  # it gave up only once its patience was spent
    assert said, "each try again is said"


def test_a_connection_that_opened_and_broke_is_not_sent_again() -> None:
    """The request reached the hop (which may have billed it): its failure is the caller's, never retried."""
    received: list[bytes] = []
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)

    def hang_up() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            received.append(client.recv(65536))
            client.close()  # read the request, answer nothing

    threading.Thread(target=hang_up, daemon=True).start()
    said: list[str] = []

    async def call() -> None:
        async with httpx.AsyncClient() as http:
            request = http.build_request("POST", url_of(listener, "/v1/chat/completions"), json=CALL)
            async with reached(http, request, Patience(seconds=20), said.append):
                raise AssertionError("the hop answered nothing")

    try:
        # The hop's close reads as a clean end or, with the request not all read, as a reset (a read error):
        # either way a transport error after the connection opened, never a connect failure.
        with pytest.raises(httpx.TransportError) as broke:
            asyncio.run(call())
    finally:
        listener.close()
    assert not isinstance(broke.value, CONNECT_FAILURES), broke.value
    assert len(received) == 1 and received[0].startswith(b"POST /v1/chat/completions")
    assert said == []


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="as-"))  # short: a socket's path holds 107 bytes
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_the_sidecar_serves_a_call_whose_gateway_was_not_reachable_yet(
    refusing: socket.socket, socket_dir: Path, tmp_path: Path
) -> None:
    """A pod whose network is not ready at its first call (the gateway refuses for a second): the agent gets
    its reply, the gateway serves it once, and the sidecar's ledger counts it once."""
    with ChatServer(lambda _body: Reply("fine"), token="real-token") as server:
        opened = listen_later(refusing, ("127.0.0.1", port_of(server)), after=1.0)

        async def scenario() -> httpx.Response:
            side = GatewaySidecar(socket_dir / "s.sock", tmp_path / "ledger", url_of(refusing), "real-token")
            async with side:
                transport = httpx.AsyncHTTPTransport(uds=str(side.socket_path))
                async with httpx.AsyncClient(transport=transport, timeout=30) as http:
                    claim = await http.post(f"http://sidecar{CLAIM_PATH}", content="{}")
                    headers = {KEY_HEADER: claim.json()["key"], CELL_HEADER: "T-1/1"}
                    return await http.post(
                        "http://sidecar/v1/chat/completions", content=json.dumps(CALL), headers=headers
                    )

        reply = asyncio.run(scenario())
        opened.join()
        served = len(server.requests)
    assert reply.status_code == 200, reply.text
    assert served == 1
    ledger = read_ledger(tmp_path / "ledger" / LEDGER_FILE)
    assert ledger.cells["T-1/1"].requests == 1
