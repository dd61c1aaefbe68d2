"""Who may call through the metering proxy, and what: each cell's URL answers only its own credential, and
only the calls the proxy meters (or knows to spend nothing) are forwarded. Everything else is refused with a
4xx that says why, and recorded in the cells it names. A real proxy, a real model server on loopback."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import httpx
import pytest

from assay_dev.servers.model_server import ModelServer
from assay_runner.cli import main
from assay_runner.contract import PriceConfig, Result
from assay_runner.gateway.metering.exchanges import Exchanges
from assay_runner.gateway.metering.ledger import Ledger, Refused
from assay_runner.gateway.metering.proxy import MeteringProxy
from assay_runner.sandbox import landlock

NEIGHBOUR = Path(__file__).resolve().parents[1] / "support" / "agents" / "neighbour.py"
CHAT = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()


def bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def test_a_cells_url_answers_only_that_cells_credential(tmp_path: Path) -> None:
    async def scenario(upstream: str) -> None:
        proxy = MeteringProxy(upstream, Ledger(), exchanges=Exchanges(tmp_path), mode="record")
        async with proxy, httpx.AsyncClient() as http:
            a, b = proxy.open_cell("T-1/1"), proxy.open_cell("T-2/1")
            own = await http.post(f"{a.url}/chat/completions", content=CHAT, headers=bearer(a.key))
            assert own.status_code == 200
            assert (
                await http.post(f"{a.url}/messages", content=CHAT, headers={"x-api-key": a.key})
            ).status_code == 200
            # B's agent found A's URL (its environment, its cassettes): refused, and both cells named.
            stolen = await http.post(f"{a.url}/chat/completions", content=CHAT, headers=bearer(b.key))
            assert stolen.status_code == 403
            assert "cell T-1/1's URL presented cell T-2/1's credential" in stolen.text
            none = await http.post(f"{a.url}/chat/completions", content=CHAT)
            assert none.status_code == 401 and "no credential" in none.text
            forged = await http.post(f"{a.url}/chat/completions", content=CHAT, headers=bearer("guess"))
            assert forged.status_code == 403 and "no cell's" in forged.text
            proxy.close_cell("T-2/1")
            ended = await http.post(f"{a.url}/chat/completions", content=CHAT, headers=bearer(b.key))
            assert ended.status_code == 403 and "ended cell T-2/1's credential" in ended.text
            again = await http.post(f"{a.url}/chat/completions", content=CHAT, headers=bearer(a.key))
            assert again.status_code == 200
        first, second = proxy.ledger.cell("T-1/1"), proxy.ledger.cell("T-2/1")
        assert first.refusals == 4 and second.refusals == 1
        assert "T-2/1's credential" in (first.error or "") and "T-2/1's credential" in (second.error or "")
        assert first.requests == 3  # only its own calls were served, counted and recorded
        recorded = sorted(p.name for p in (tmp_path / "exchanges" / "T-1" / "1").glob("*.json"))
        # A refused call takes no turn: a replay without it meets the same recording.
        assert recorded == ["chat_completions-0001.json", "chat_completions-0002.json", "messages-0001.json"]

    with ModelServer([], model="m") as server:
        asyncio.run(scenario(server.url))
        assert len(server.requests) == 3


def test_only_the_calls_the_proxy_meters_or_knows_are_free_are_forwarded() -> None:
    async def scenario(upstream: str) -> None:
        async with MeteringProxy(upstream, Ledger()) as proxy, httpx.AsyncClient() as http:
            cell = proxy.open_cell("T-1/1")
            key = bearer(cell.key)
            assert (await http.get(f"{cell.url}/models", headers=key)).status_code == 200
            refused = [
                await http.post(f"{cell.url}/messages/count_tokens", content=CHAT, headers=key),
                await http.get(f"{cell.url}/messages/count_tokens", headers=key),
                await http.post(f"{cell.url}/embeddings", content=CHAT, headers=key),
                await http.get(f"{cell.url}/chat/completions", headers=key),
                await http.post(f"{cell.url}/v1/v1/chat/completions", content=CHAT, headers=key),
                await http.delete(f"{cell.url}/responses/abc", headers=key),
            ]
            assert [r.status_code for r in refused] == [403] * len(refused)
            assert all("not a model call Assay meters" in r.text for r in refused)
        spend = proxy.ledger.cell("T-1/1")
        assert spend.refusals == len(refused) and "count_tokens" in spend.refused[0]
        assert spend.error is not None and "refused a call" in spend.error

    with ModelServer([], model="m") as server:
        asyncio.run(scenario(server.url))
        assert [r.path.split("?")[0] for r in server.requests] == ["/v1/models"]
        assert server.problems == []


PROVIDER_RUN = {
    "messages": {"tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 50}]},
    "responses": {"tools": [{"type": "function", "name": "f"}, {"type": "web_search"}]},
    "responses/": {"background": True},
    "chat/completions": {"web_search_options": {}},
}
"""Model calls that ask the provider to run something billed apart from tokens (a web search is billed per
search, a code container per session, a background response's usage is in no reply the proxy sees): the
proxy counts tokens only, so it would let spend through uncounted (and the provider's fetches reach what
the cell's network rules keep out)."""


def test_a_call_that_asks_the_provider_for_work_billed_apart_from_tokens_is_refused() -> None:
    async def scenario(upstream: str) -> None:
        async with MeteringProxy(upstream, Ledger()) as proxy, httpx.AsyncClient() as http:
            cell = proxy.open_cell("T-1/1")
            key = bearer(cell.key)
            message = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
            refused = [
                await http.post(
                    f"{cell.url}/{path.rstrip('/')}", content=json.dumps({**message, **extra}), headers=key
                )
                for path, extra in PROVIDER_RUN.items()
            ]
            assert [r.status_code for r in refused] == [403] * len(refused), [r.text for r in refused]
            assert all("billed apart from the tokens" in r.text for r in refused)
        spend = proxy.ledger.cell("T-1/1")
        assert spend.refusals == len(refused) and "web_search_20250305" in spend.refused[0]

    with ModelServer([], model="m") as server:
        asyncio.run(scenario(server.url))
        assert server.requests == []


AMBIGUOUS = {
    "responses": b'{"model": "m", "input": "hi", "tools": [{"type": "web_search"}], "tools": []}',
    "chat/completions": b'{"model": "cheap", "messages": [{"role": "user", "content": "hi"}], "model": "m"}',
    "messages": b'{"model": "m", "max_tokens": NaN, "messages": [{"role": "user", "content": "hi"}]}',
}
"""Bodies parsers read differently: the proxy's parser keeps the last repeated key, a provider's may keep the
first (a hosted search the proxy never saw, a dearer model than the one it priced) or take NaN."""


def test_a_call_whose_body_could_be_read_two_ways_is_refused_before_it_is_priced() -> None:
    async def scenario(upstream: str) -> None:
        priced = {"m": PriceConfig(input_per_million=1, output_per_million=1)}
        async with MeteringProxy(upstream, Ledger(priced, 5.0)) as proxy, httpx.AsyncClient() as http:
            cell = proxy.open_cell("T-1/1")
            refused = [
                await http.post(f"{cell.url}/{path}", content=body, headers=bearer(cell.key))
                for path, body in AMBIGUOUS.items()
            ]
            assert [r.status_code for r in refused] == [403] * len(refused), [r.text for r in refused]
            assert all("not one JSON object every provider reads alike" in r.text for r in refused)
            plain = await http.post(f"{cell.url}/chat/completions", content=CHAT, headers=bearer(cell.key))
            assert plain.status_code == 200, plain.text
        spend = proxy.ledger.cell("T-1/1")
        assert spend.refusals == len(AMBIGUOUS) and spend.requests == 1
        assert "'tools' appears twice" in spend.refused[0] and "'model' appears twice" in spend.refused[1]

    with ModelServer(["ok"], model="m") as server:
        asyncio.run(scenario(server.url))
        assert len(server.requests) == 1  # only the plain call reached the model


def test_a_call_for_a_model_without_a_price_is_refused_budget_or_not() -> None:
    async def scenario() -> None:
        priced = {"m": PriceConfig(input_per_million=1, output_per_million=1)}
        for budget in (None, 5.0):
            ledger = Ledger(priced, budget)
            try:
                await ledger.admit("T-1/1", "other")
            except Refused as exc:
                assert "no price for model 'other'" in str(exc)
            else:
                raise AssertionError("an unpriced model was admitted")
            assert (ledger.stopped is not None) == (budget is not None)  # a budget cannot be kept on it
            assert budget is not None or "no price" in (ledger.cell("T-1/1").error or "")

    asyncio.run(scenario())


def test_a_call_on_a_neighbours_url_blocks_both_cells_naming_them(
    suite: Path, brain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """T-2's agent calls the model on T-1's proxy URL (found where a neighbour finds it) with its own
    credential: refused, nothing reaches the gateway or T-1's record, and both cells block, named.

    The cells run as on a kernel without Landlock (ASSAY_LANDLOCK_ABI_MAX=0): in their sandboxes neither
    can write the shared folder nor read its neighbour's /proc/<pid>/environ, so T-2 would never learn the
    URL (tests/runner/test_sandbox.py shows the neighbour out of reach). This is the proxy's credential
    check, the layer behind the sandbox, for a kernel that has none."""
    monkeypatch.setenv(landlock.ABI_CAP_ENV, "0")
    shared = tmp_path / "shared"
    shared.mkdir()
    agent = f"{sys.executable} {NEIGHBOUR} {{ticket_id}} {shared}"
    with ModelServer([], model="m") as server:
        code = main(
            [
                "run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "command",
                "--model", "m", "--command", agent, "--gateway", server.url, "--out", str(tmp_path / "out"),
                "--tickets", "T-1,T-2", "-j", "2",
            ]
        )  # fmt: skip
        served = len(server.requests)
    result = Result.model_validate_json((tmp_path / "out" / "result.json").read_text())
    cells = {ticket.id: ticket.repetitions[0] for ticket in result.tickets}
    assert code == 1 and result.verdict == "Blocked"
    assert served == 0 and "STATUS 403" in (cells["T-2"].answer or "")
    why = "a call on cell T-1/1's URL presented cell T-2/1's credential"
    assert why in (cells["T-1"].error or "") and why in (cells["T-2"].error or ""), cells
