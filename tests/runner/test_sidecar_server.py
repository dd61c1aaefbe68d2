"""The gateway sidecar's rules, one by one, against a real upstream on loopback, over its real Unix socket:
the key is handed out once; a call without it is refused and recorded; calls Assay cannot count and paths
outside the gateway's are not forwarded; the budget the claim gives is a spend cap; the ledger carries over a
restart, with what was in flight then kept as lost."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.contract import POD_UID_ENV
from assay_runner.gateway.metering.attribution import CELL_HEADER, KEY_HEADER
from assay_runner.gateway.metering.reconcile import reconcile
from assay_runner.gateway.metering.sidecar import CLAIM_PATH, GatewaySidecar, Granted
from assay_runner.gateway.metering.sidecar_ledger import LEDGER_FILE, read_ledger

CALL = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="as-"))  # short: a socket's path holds 107 bytes
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def post(
    socket: Path, path: str, body: object, headers: dict[str, str] | None = None
) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(uds=str(socket))) as http:
        return await http.post(f"http://sidecar{path}", content=json.dumps(body), headers=headers or {})


async def claimed(socket: Path, **claim: object) -> str:
    reply = await post(socket, CLAIM_PATH, claim)
    assert reply.status_code == 200, reply.text
    key: str = reply.json()["key"]
    return key


def sidecar(socket_dir: Path, tmp_path: Path, gateway: str) -> GatewaySidecar:
    return GatewaySidecar(socket_dir / "s.sock", tmp_path / "ledger", gateway, "real-token")


def test_the_key_is_handed_once_and_calls_without_it_are_refused_and_recorded(
    socket_dir: Path, tmp_path: Path
) -> None:
    with ChatServer(lambda _body: Reply("fine"), token="real-token") as server:

        async def scenario() -> None:
            side = sidecar(socket_dir, tmp_path, server.url)
            async with side:
                key = await claimed(side.socket_path)
                again = await post(side.socket_path, CLAIM_PATH, {})
                assert again.status_code == 409
                bare = await post(side.socket_path, "/v1/chat/completions", CALL)
                wrong = await post(side.socket_path, "/v1/chat/completions", CALL, {KEY_HEADER: "guess"})
                assert (bare.status_code, wrong.status_code) == (403, 403)
                good = await post(
                    side.socket_path, "/v1/chat/completions", CALL, {KEY_HEADER: key, CELL_HEADER: "T-1/1"}
                )
                assert good.status_code == 200, good.text

        asyncio.run(scenario())
        assert [h.get("authorization") for h in server.headers] == ["Bearer real-token"]
    ledger = read_ledger(tmp_path / "ledger" / LEDGER_FILE)
    assert ledger.refused.count == 3
    assert ledger.refused.first == [
        "POST /assay/claim: the key was already taken",
        "POST /v1/chat/completions: no key",
        "POST /v1/chat/completions: a wrong key",
    ]
    assert ledger.cells["T-1/1"].input_tokens == 100 and ledger.cells["T-1/1"].requests == 1


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/v1/embeddings", "not a model call Assay meters"),
        ("/v1/completions", "not a model call Assay meters"),
        ("/other/v1/chat/completions", "is not under the gateway's path /v1"),
    ],
)
def test_calls_that_cannot_be_counted_or_leave_the_gateway_are_not_forwarded(
    socket_dir: Path, tmp_path: Path, path: str, why: str
) -> None:
    with ChatServer(lambda _body: Reply("fine"), token="real-token") as server:

        async def scenario() -> httpx.Response:
            async with sidecar(socket_dir, tmp_path, server.url) as side:
                key = await claimed(side.socket_path)
                return await post(side.socket_path, path, CALL, {KEY_HEADER: key, CELL_HEADER: "T-1/1"})

        reply = asyncio.run(scenario())
        assert server.requests == []
    assert reply.status_code == 403 and why in reply.text


def test_the_claims_budget_is_a_spend_cap(socket_dir: Path, tmp_path: Path) -> None:
    # Each call: 100 prompt tokens at $1000/M + 20 output tokens at $5000/M = $0.2; a budget of $0.5.
    prices = {"m": {"inputPerMillion": 1000, "outputPerMillion": 5000}}
    with ChatServer(lambda _body: Reply("fine"), token="real-token") as server:

        async def scenario() -> list[int]:
            async with sidecar(socket_dir, tmp_path, server.url) as side:
                key = await claimed(side.socket_path, prices=prices, maxCostUsd=0.5)
                headers = {KEY_HEADER: key, CELL_HEADER: "T-1/1"}
                return [
                    (await post(side.socket_path, "/v1/chat/completions", CALL, headers)).status_code
                    for _ in range(5)
                ]

        statuses = asyncio.run(scenario())
        served = len(server.requests)
    assert statuses == [200, 200, 200, 402, 402] and served == 3  # $0.6 spent: one call past $0.5
    ledger = read_ledger(tmp_path / "ledger" / LEDGER_FILE)
    assert ledger.cells["T-1/1"].cost_usd == pytest.approx(0.6)
    assert "budget is spent" in (ledger.stopped or "")


def test_a_restarted_sidecar_carries_on_and_keeps_what_was_in_flight_as_lost(
    socket_dir: Path, tmp_path: Path
) -> None:
    """The first sidecar is stopped while a reply is in flight (the upstream answers slowly); the second one,
    on the same ledger, still knows the runner's key, hands out no other, and keeps the call as lost — which
    blocks that cell when the judge reconciles."""

    def slow(_body: dict[str, object]) -> Reply:
        return Reply("late", delay=30)

    with ChatServer(slow, token="real-token") as server:

        async def first_life() -> str:
            side = sidecar(socket_dir, tmp_path, server.url)
            async with side:
                key = await claimed(side.socket_path)
                headers = {KEY_HEADER: key, CELL_HEADER: "T-2/1"}
                call = asyncio.create_task(post(side.socket_path, "/v1/chat/completions", CALL, headers))
                while read_ledger(side.ledger_path).cells.get("T-2/1") is None:
                    await asyncio.sleep(0.05)  # admitted: in flight, on record
            call.cancel()
            return key

        key = asyncio.run(first_life())

    with ChatServer(lambda _body: Reply("fine"), token="real-token") as server:

        async def second_life() -> tuple[int, int]:
            async with sidecar(socket_dir, tmp_path, server.url) as side:
                again = await post(side.socket_path, CLAIM_PATH, {})
                headers = {KEY_HEADER: key, CELL_HEADER: "T-1/1"}
                ok = await post(side.socket_path, "/v1/chat/completions", CALL, headers)
                return again.status_code, ok.status_code

        assert asyncio.run(second_life()) == (409, 200)
    ledger = read_ledger(tmp_path / "ledger" / LEDGER_FILE)
    assert ledger.restarts == 1 and ledger.cells["T-2/1"].lost == 1 and ledger.cells["T-1/1"].requests == 1
    found = reconcile(ledger, {"T-1/1": None, "T-2/1": None}, None)
    assert "in flight" in found.cells["T-2/1"]


def test_a_new_pod_sets_aside_the_ledger_of_the_pod_before_it(
    socket_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retried shard's pod finds the ledger its earlier pod left on the claim. That pod's runner and key
    are gone and the new runner answers the shard again: its ledger starts afresh (the new runner can claim
    a key), the earlier one is kept beside it, and a restart within the new pod still carries on."""
    with ChatServer(lambda _body: Reply("fine"), token="real-token") as server:

        async def life(pod: str) -> tuple[int, int]:
            monkeypatch.setenv(POD_UID_ENV, pod)
            async with sidecar(socket_dir, tmp_path, server.url) as side:
                claim = await post(side.socket_path, CLAIM_PATH, {})
                if claim.status_code != 200:
                    return claim.status_code, 0
                headers = {KEY_HEADER: claim.json()["key"], CELL_HEADER: "T-1/1"}
                call = await post(side.socket_path, "/v1/chat/completions", CALL, headers)
                return claim.status_code, call.status_code

        assert asyncio.run(life("pod-a")) == (200, 200)
        assert asyncio.run(life("pod-b")) == (200, 200)  # a new pod: a new key for its runner
        assert asyncio.run(life("pod-b")) == (409, 0)  # its sidecar restarted: the key was handed out
    folder = tmp_path / "ledger"
    ledger = read_ledger(folder / LEDGER_FILE)
    assert (ledger.pod, ledger.set_aside, ledger.restarts) == ("pod-b", ["ledger-pod-a.json"], 1)
    assert ledger.cells["T-1/1"].requests == 1  # pod-b's own call only
    earlier = read_ledger(folder / "ledger-pod-a.json")
    assert earlier.pod == "pod-a" and earlier.cells["T-1/1"].requests == 1


def test_a_retried_pods_budget_is_what_its_earlier_pods_left(
    socket_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget a claim gives is the shard's: each pod of a retried shard spends from what the pods before
    it left, and its runner is told how much that was (the earlier spend is in no cell of its ledger)."""
    # Each call: $0.2 (as above); a budget of $0.5, of which pod-a spends $0.4 before it is killed.
    prices = {"m": {"inputPerMillion": 1000, "outputPerMillion": 5000}}
    with ChatServer(lambda _body: Reply("fine"), token="real-token") as server:

        async def life(pod: str, calls: int) -> tuple[float, list[int]]:
            monkeypatch.setenv(POD_UID_ENV, pod)
            async with sidecar(socket_dir, tmp_path, server.url) as side:
                reply = await post(side.socket_path, CLAIM_PATH, {"prices": prices, "maxCostUsd": 0.5})
                granted = Granted.model_validate_json(reply.content)
                assert granted.pod == pod
                headers = {KEY_HEADER: granted.key, CELL_HEADER: "T-1/1"}
                statuses = [
                    (await post(side.socket_path, "/v1/chat/completions", CALL, headers)).status_code
                    for _ in range(calls)
                ]
                return granted.spent_before, statuses

        assert asyncio.run(life("pod-a", 2)) == (0.0, [200, 200])
        before, statuses = asyncio.run(life("pod-b", 3))
        served = len(server.requests)
    assert before == pytest.approx(0.4)
    assert statuses == [200, 402, 402] and served == 3  # $0.6 in all: one call past $0.5, as with one pod
    ledger = read_ledger(tmp_path / "ledger" / LEDGER_FILE)
    assert ledger.spent_before == pytest.approx(0.4) and ledger.cells["T-1/1"].cost_usd == pytest.approx(0.2)
    assert "of it by earlier attempts" in (ledger.stopped or "")
