"""The metering proxy: a program agent's model traffic goes through it; the usage in the result is what the
upstream itself reported, the budget is a spend cap that holds under a lying gateway and for killed cells,
the agent never holds the real gateway token, and what passed can be replayed offline.

Upstreams are real HTTP servers on loopback (assay_dev.servers), the agent is a real program
(tests/support/agents/caller.py) using its own HTTP client on the URL it is given."""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from assay_dev.servers.chat_server import ChatServer, Reply
from assay_dev.servers.loopback import LoopbackServer, QuietHandler
from assay_dev.servers.model_server import ModelServer
from assay_runner.cli import main
from assay_runner.contract import Result

CALLER = Path(__file__).resolve().parents[1] / "support" / "agents" / "caller.py"


def run(
    suite: Path, brain: Path, out: Path, gateway: str | None, agent: str, *extra: str
) -> tuple[int, Result]:
    args = ["run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "command"]
    args += ["--model", "m", "--command", f"{sys.executable} {CALLER} {agent}", "--out", str(out), *extra]
    if gateway is not None:
        args += ["--gateway", gateway]
    code = main(args)
    return code, Result.model_validate_json((out / "result.json").read_text())


def cells(result: Result) -> list:  # type: ignore[type-arg]
    return [rep for ticket in result.tickets for rep in ticket.repetitions]


@pytest.mark.parametrize("protocol", ["chat", "responses", "messages"])
@pytest.mark.parametrize("stream", ["stream", "plain"])
def test_the_usage_in_the_result_is_the_upstreams_own_count(
    suite: Path, brain: Path, tmp_path: Path, protocol: str, stream: str
) -> None:
    with ModelServer([], model="m") as server:
        code, result = run(suite, brain, tmp_path / "out", server.url, f"{protocol} 2 {stream}", "-j", "3")
        billed = server.reported_usage()
        problems = list(server.problems)
    assert problems == []
    assert code == 0, result.reasons
    assert billed.prompt_tokens > 0 and len(server.requests) == 12  # 6 cells x 2 calls
    assert (result.usage.input_tokens, result.usage.output_tokens) == (
        billed.prompt_tokens,
        billed.output_tokens,
    )
    for cell in cells(result):  # each cell its own share: 2 calls of 300 prompt and 5 output tokens
        assert cell.usage is not None and (cell.usage.input_tokens, cell.usage.output_tokens) == (600, 10)


def test_the_agent_never_holds_the_real_token(
    suite: Path, brain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_GATEWAY_TOKEN", "real-secret-5f2a")
    with ChatServer(lambda _body: Reply("fine")) as server:
        code, result = run(suite, brain, tmp_path / "out", server.url, "chat 1 plain", "--tickets", "T-1")
        seen = [h.get("authorization") for h in server.headers]
    assert code == 0, result.reasons
    assert seen == ["Bearer real-secret-5f2a"]  # the proxy authenticates upstream, the agent's key is dropped
    answer = cells(result)[0].answer or ""
    assert "ENV " in answer and "ASSAY_GATEWAY_TOKEN" not in answer and "real-secret" not in answer


LIES = {
    "negative": {"prompt_tokens": -1000, "completion_tokens": 5},
    "nan": {"prompt_tokens": math.nan, "completion_tokens": 5},
    "inf": {"prompt_tokens": math.inf, "completion_tokens": 5},
    "float": {"prompt_tokens": 10.5, "completion_tokens": 5},
    "text": {"prompt_tokens": "100", "completion_tokens": 5},
    "missing": None,
}


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_lying_gateway_blocks_its_cells_and_stops_the_spending(
    suite: Path, brain: Path, tmp_path: Path, lie: str
) -> None:
    def reply(body: dict) -> Reply:  # type: ignore[type-arg]
        completion = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}}]}
        if LIES[lie] is not None:
            completion["usage"] = LIES[lie]
        return Reply(raw_body=json.dumps(completion).encode())

    with ChatServer(reply) as server:
        code, result = run(
            suite, brain, tmp_path / "out", server.url, "chat 3 plain", "--price", "m=1000,5000",
            "--max-cost-usd", "1", "-j", "1",
        )  # fmt: skip
        served = len(server.requests)
    assert code == 1 and result.verdict == "Blocked"
    first = cells(result)[0]
    assert "usage could not be counted" in (first.error or ""), first.error
    # Spend that cannot be counted cannot be capped: after the first such reply, nothing more is admitted.
    assert served == 1
    assert all(cell.error for cell in cells(result))


def test_the_budget_is_a_spend_cap(suite: Path, brain: Path, tmp_path: Path) -> None:
    # Each call: 100 prompt tokens at $1000/M + 20 output tokens at $5000/M = $0.2.
    with ChatServer(lambda _body: Reply("fine", prompt_tokens=100, completion_tokens=20)) as server:
        code, result = run(
            suite, brain, tmp_path / "out", server.url, "chat 3 plain", "--price", "m=1000,5000",
            "--max-cost-usd", "1.0", "-j", "4",
        )  # fmt: skip
        billed = 0.2 * len(server.requests)
    assert code == 1
    assert billed <= 1.0 + 0.2 + 1e-9  # at most one request's cost over the budget
    assert result.usage.cost_usd == pytest.approx(billed)  # the result's figure is the gateway's own
    assert any("budget" in (cell.error or "") for cell in cells(result))


class SlowStream(LoopbackServer):
    """Streams a chat completion slowly (the usage comes last), and counts what it billed."""

    def __init__(self, chunks: int, delay: float) -> None:
        self.billed = 0
        self.lock = threading.Lock()
        server = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for index in range(chunks):
                    delta = {"choices": [{"index": 0, "delta": {"content": f"part {index} "}}]}
                    self.wfile.write(f"data: {json.dumps(delta)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(delay)
                usage = {"choices": [], "usage": {"prompt_tokens": 1000, "completion_tokens": 100}}
                self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()
                with server.lock:
                    server.billed += 1100
                self.close_connection = True

        handler: type[BaseHTTPRequestHandler] = Handler
        super().__init__(handler, prefix="/v1")


def test_a_cell_killed_mid_reply_is_still_billed_and_counted(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    with SlowStream(chunks=10, delay=0.2) as server:
        code, result = run(
            suite, brain, tmp_path / "out", server.url, "chat 1 stream then-hang", "--tickets", "T-1",
            "--timeout", "1",
        )  # fmt: skip
        billed = server.billed
    cell = cells(result)[0]
    assert code == 1 and cell.exit_code == 124  # killed at its timeout, mid-reply
    assert billed == 1100
    assert cell.usage is not None and cell.usage.input_tokens + cell.usage.output_tokens == billed
    assert result.usage.input_tokens + result.usage.output_tokens == billed


def test_recorded_exchanges_replay_offline_with_the_same_verdict(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    cassettes = tmp_path / "cassettes"
    with ModelServer([], model="m") as server:
        recorded_code, recorded = run(
            suite, brain, tmp_path / "recorded", server.url, "responses 2 stream",
            "--cassettes", str(cassettes), "--cassette-mode", "record",
        )  # fmt: skip
    assert recorded_code == 0 and list((cassettes / "exchanges").rglob("*.json"))
    # The server is gone: the same agent, replayed through the proxy, gets the same replies.
    replayed_code, replayed = run(
        suite, brain, tmp_path / "replayed", None, "responses 2 stream",
        "--cassettes", str(cassettes), "--cassette-mode", "replay",
    )  # fmt: skip
    assert (replayed_code, replayed.verdict, replayed.score) == (
        recorded_code,
        recorded.verdict,
        recorded.score,
    )
    assert replayed.usage == recorded.usage
    # A call the recording does not have is an error of its cell, not someone else's reply.
    missing_code, missing = run(
        suite, brain, tmp_path / "missing", None, "responses 3 stream",
        "--cassettes", str(cassettes), "--cassette-mode", "replay",
    )  # fmt: skip
    assert missing_code == 1 and "-502" in (cells(missing)[0].answer or "")


@pytest.mark.parametrize("protocol", ["chat", "responses", "messages"])
@pytest.mark.parametrize("style", ["bridge", "twice"])
def test_a_streams_usage_is_its_largest_counts_whatever_the_events_that_state_it(
    suite: Path, brain: Path, tmp_path: Path, protocol: str, style: str
) -> None:
    # bridge: a messages stream opens with every count 0 and states the real ones only at its end (LiteLLM's
    # Anthropic bridge); the other protocols restate their usage with zeros after it. twice: the usage
    # event sent twice. Either way the upstream billed each call once, 300 prompt and 5 output tokens.
    with ModelServer([], model="m", usage_style=style) as server:  # type: ignore[arg-type]
        code, result = run(suite, brain, tmp_path / "out", server.url, f"{protocol} 2 stream", "-j", "3")
        billed = server.reported_usage()
    assert code == 0, result.reasons
    assert (result.usage.input_tokens, result.usage.output_tokens) == (
        billed.prompt_tokens,
        billed.output_tokens,
    )
    for cell in cells(result):
        assert cell.usage is not None and (cell.usage.input_tokens, cell.usage.output_tokens) == (600, 10)


def test_the_budget_holds_on_a_stream_that_states_its_input_only_at_its_end(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    # $0.30 a call (300 prompt tokens at $1000/M): under a $0.70 budget three calls are served, not twelve.
    with ModelServer([], model="m", usage_style="bridge") as server:
        code, result = run(
            suite, brain, tmp_path / "out", server.url, "messages 2 stream", "--price", "m=1000,0",
            "--max-cost-usd", "0.7", "-j", "1",
        )  # fmt: skip
        served = len(server.requests)
    assert code == 1
    assert served == 3
    assert result.usage.cost_usd == pytest.approx(0.3 * served)
    not_started = [c for c in cells(result) if c.error and "not started" in c.error]
    assert not_started and all("budget was spent" in (c.error or "") for c in not_started)


def test_a_model_without_a_price_is_refused_before_the_first_cell(
    suite: Path, brain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ModelServer([], model="m") as server:
        for extra in (["--price", "other=1,1"], ["--max-cost-usd", "5"]):
            code = main(
                [
                    "run", "--no-mlflow", "-q", str(suite), "--brain", str(brain), "--agent", "command",
                    "--model", "m", "--command", f"{sys.executable} {CALLER} chat 1 plain",
                    "--gateway", server.url, "--out", str(tmp_path / "out"), *extra,
                ]
            )  # fmt: skip
            error = capsys.readouterr().err
            assert code == 2
            assert "the agent's model 'm' has no price" in error and "--price MODEL=INPUT,OUTPUT" in error
        assert server.requests == []  # nothing was called, nothing billed at $0
        # Without a price table or a budget, costs are not tracked: the run goes on (every cost is 0).
        code, result = run(suite, brain, tmp_path / "free", server.url, "chat 1 plain", "--tickets", "T-1")
    assert code == 0 and result.usage.cost_usd == 0 and result.usage.input_tokens > 0


def test_cells_not_started_name_the_real_cause(suite: Path, brain: Path, tmp_path: Path) -> None:
    def reply(body: dict) -> Reply:  # type: ignore[type-arg]
        completion = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}}]}
        return Reply(raw_body=json.dumps(completion).encode())  # no usage: spending cannot be capped

    with ChatServer(reply) as server:
        code, result = run(
            suite, brain, tmp_path / "out", server.url, "chat 1 plain", "--price", "m=1000,5000",
            "--max-cost-usd", "1", "-j", "1",
        )  # fmt: skip
    assert code == 1
    not_started = [c for c in cells(result) if c.error and "not started" in c.error]
    assert not_started, [c.error for c in cells(result)]
    for cell in not_started:
        assert "budget was spent" not in (cell.error or "")
        assert "the spending was stopped: spending cannot be capped" in (cell.error or "")
