"""Benchmark: what the metering proxy costs, per model call and on a whole run.

Every program agent's model call goes through the runner's metering proxy (runner/assay_runner/gateway/
metering): the proxy relays the request, streams the reply back and reads its usage on the way. Measured
here against the same calls made straight to the upstream, in the same run of this script:

1. Per call: `--calls` sequential chat-completions calls from one client, streamed and not, to a loopback
   upstream that answers at once (so what is measured is the relay, not a model): the median added
   milliseconds per call, and the ratio through-proxy / direct.
   A third figure: through the proxy and the gateway sidecar behind it (the answer phase on the cluster:
   the proxy forwards over the sidecar's Unix socket, the sidecar adds the token and meters again), both
   in this process.
2. On a whole run: `assay run` over `--tickets` tickets with an agent (tests/support/agents/caller.py)
   making `--turns` streamed calls per cell to an upstream that takes `--model-seconds` per reply (a
   model's latency) — once through the proxy as Assay runs it, once with the agent sent straight to the
   upstream (its URL passed on the command line, bypassing the proxy). The difference in wall time, as a
   share of the run's wall time, is the proxy's share of a run; the goal is under 1%.
3. The sidecar on a whole answer phase: `assay answer` on the same cells, once with the token in the
   runner (the proxy straight to the upstream), once with `assay gateway-sidecar` as a process of its own
   holding it (the proxy through the sidecar's socket): the sidecar's share of the phase's wall time.

Each figure is the median of `--runs` runs. The two arms of 2 and 3 take turns (ABBA...), so a machine whose
load drifts during the measurement (a shared one) weighs on both alike; each arm's spread (slowest minus
fastest run) is printed beside the difference, which is called noise when it is smaller than half the wider
spread. Run: `.venv/bin/python bench/proxy_overhead.py [--calls 300] [--tickets 24] [--turns 4]
[--model-seconds 0.25] [--runs 5]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from assay_dev.servers.loopback import LoopbackServer, QuietHandler
from assay_runner.contract import GATEWAY_SOCKET_ENV
from assay_runner.gateway.metering.ledger import Ledger
from assay_runner.gateway.metering.proxy import MeteringProxy
from assay_runner.gateway.metering.sidecar import CLAIM_PATH, GatewaySidecar
from assay_runner.gateway.metering.sidecar_ledger import LEDGER_FILE, read_ledger
from assay_runner.gateway.sidecar_link import SidecarLink

ROOT = Path(__file__).resolve().parents[1]
CALLER = ROOT / "tests" / "support" / "agents" / "caller.py"
SUITE = """\
name: bench
judges:
  - {name: nonempty, type: code, weight: 1, threshold: 1.0, code: "return 1.0 if outputs['answer'] else 0.0"}
tickets:
"""


class Upstream(LoopbackServer):
    """Chat completions, streamed (a few chunks and the usage) or not, after `delay` seconds."""

    def __init__(self, delay: float) -> None:
        class Handler(QuietHandler):
            def setup(self) -> None:
                super().setup()
                # Headers and body go out as separate writes: without this, a delayed ACK holds each reply.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
                if delay:
                    time.sleep(delay)
                usage = {"prompt_tokens": 300, "completion_tokens": 20}
                if not body.get("stream"):
                    reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}
                    self.send(200, json.dumps({**reply, "usage": usage}).encode(), {}, "application/json")
                    return
                chunks = [{"choices": [{"index": 0, "delta": {"content": f"part {i} "}}]} for i in range(8)]
                chunks.append({"choices": [], "usage": usage})
                payload = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
                self.send(200, payload.encode(), {}, "text/event-stream")

        super().__init__(Handler, prefix="/v1")


def _body(stream: bool) -> bytes:
    return json.dumps(
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": stream}
    ).encode()


async def _timed_calls(base: str, calls: int, stream: bool, key: str = "none") -> list[float]:
    times = []
    # No Nagle in the client either (the proxy sets it upstream): else every call waits for a delayed ACK.
    nodelay = httpx.AsyncHTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
    async with httpx.AsyncClient(transport=nodelay) as client:
        for _ in range(calls):
            started = time.perf_counter()
            headers = {"authorization": f"Bearer {key}"}
            reply = await client.post(f"{base}/chat/completions", content=_body(stream), headers=headers)
            reply.read()
            times.append(time.perf_counter() - started)
    return times


async def per_call(calls: int, stream: bool) -> tuple[float, float, float]:
    """Median seconds per call: straight to the upstream, through the proxy, through the proxy and the
    gateway sidecar."""
    with Upstream(0.0) as upstream:
        direct = await _timed_calls(upstream.url, calls, stream)
        async with MeteringProxy(upstream.url, Ledger()) as proxy:
            cell = proxy.open_cell("T-1/1")
            proxied = await _timed_calls(cell.url, calls, stream, cell.key)
        folder = Path(tempfile.mkdtemp(prefix="as-"))
        try:
            async with GatewaySidecar(folder / "s.sock", folder / "ledger", upstream.url, None) as sidecar:
                claim = httpx.AsyncHTTPTransport(uds=str(sidecar.socket_path))
                async with httpx.AsyncClient(transport=claim) as http:
                    key = (await http.post(f"http://sidecar{CLAIM_PATH}", content=b"{}")).json()["key"]
                link = SidecarLink(sidecar.socket_path, key)
                async with MeteringProxy(upstream.url, Ledger(), transport=link.transport()) as proxy:
                    cell = proxy.open_cell("T-1/1")
                    both = await _timed_calls(cell.url, calls, stream, cell.key)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return statistics.median(direct), statistics.median(proxied), statistics.median(both)


def write_suite(root: Path, tickets: int) -> Path:
    """The benchmark's suite of `tickets` one-line questions, in `root/suite`."""
    suite = root / "suite"
    suite.mkdir()
    rows = "".join(f"  - {{id: T-{i:03d}, split: validation, question: 'q{i}'}}\n" for i in range(tickets))
    (suite / "suite.yaml").write_text(SUITE + rows)
    return suite


def whole_run(tickets: int, turns: int, model_seconds: float, direct: bool) -> float:
    root = Path(tempfile.mkdtemp(prefix="assay-bench-proxy-"))
    try:
        suite = write_suite(root, tickets)
        with Upstream(model_seconds) as upstream:
            agent = f"{sys.executable} {CALLER} chat {turns} stream"
            if direct:
                agent += f" - {upstream.url}"
            argv = [str(Path(sys.executable).with_name("assay")), "run", "--no-mlflow", "-q", str(suite)]
            argv += ["--agent", "command", "--model", "m", "--command", agent, "--gateway", upstream.url]
            argv += ["--out", str(root / "out"), "-j", "4"]
            started = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, text=True, check=False)
            wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"assay run failed ({done.returncode}): {done.stderr[-2000:]}")
        return wall
    finally:
        shutil.rmtree(root, ignore_errors=True)


def answer_phase(tickets: int, turns: int, model_seconds: float, sidecar: bool) -> float:
    """Wall seconds of `assay answer` on the cells, with the token in the runner or in a sidecar process."""
    root = Path(tempfile.mkdtemp(prefix="as-"))
    try:
        suite = write_suite(root, tickets)
        assay = str(Path(sys.executable).with_name("assay"))
        with Upstream(model_seconds) as upstream:
            argv = [assay, "answer", "-q", str(suite), "--agent", "command", "--model", "m", "-j", "4"]
            argv += ["--command", f"{sys.executable} {CALLER} chat {turns} stream", "--gateway", upstream.url]
            argv += ["--answers-out", str(root / "answers")]
            env = dict(os.environ)
            side = None
            if sidecar:
                socket_path = root / "s.sock"
                side_argv = [assay, "gateway-sidecar", "--socket", str(socket_path), "--gateway"]
                side = subprocess.Popen([*side_argv, upstream.url, "--ledger-dir", str(root / "ledger")])
                env[GATEWAY_SOCKET_ENV] = str(socket_path)
                deadline = time.monotonic() + 30
                while not socket_path.exists():  # listening: the answer phase's claim must not come first
                    if side.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit("the gateway sidecar did not start listening")
                    time.sleep(0.02)
            try:
                started = time.perf_counter()
                done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
                wall = time.perf_counter() - started
            finally:
                if side is not None:
                    side.terminate()
                    side.wait()
        if done.returncode != 0:
            raise SystemExit(f"assay answer failed ({done.returncode}): {done.stderr[-2000:]}")
        if sidecar:  # what is measured went through it: every cell's calls are in its ledger
            cells = read_ledger(root / "ledger" / LEDGER_FILE).cells
            metered = sum(cell.requests for cell in cells.values())
            if metered != tickets * turns:
                raise SystemExit(f"the sidecar metered {metered} calls, not {tickets * turns}")
        return wall
    finally:
        shutil.rmtree(root, ignore_errors=True)


def paired(measure: Callable[[bool], float], runs: int) -> tuple[list[float], list[float]]:
    """`runs` measurements of each arm (False, True), taking turns: ABBA ABBA..."""
    arms: dict[bool, list[float]] = {False: [], True: []}
    for run in range(runs):
        for arm in (False, True) if run % 2 == 0 else (True, False):
            arms[arm].append(measure(arm))
    return arms[False], arms[True]


def compared(without: list[float], with_: list[float]) -> str:
    """The median difference as a share of the slower arm's median, with each arm's spread."""
    low, high = statistics.median(without), statistics.median(with_)
    spreads = (max(without) - min(without), max(with_) - min(with_))
    verdict = "within the noise" if abs(high - low) < max(spreads) / 2 else "above the noise"
    return (
        f"{high - low:+.3f} s, {(high - low) / high:+.2%} of the run ({verdict}: spreads "
        f"{spreads[0]:.3f} s and {spreads[1]:.3f} s over {len(without)} runs each)"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--tickets", type=int, default=24)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--model-seconds", type=float, default=0.25)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"per call ({args.calls} sequential calls, an upstream that answers at once):")
    for stream in (False, True):
        direct, proxied, both = asyncio.run(per_call(args.calls, stream))
        print(
            f"  {'streamed' if stream else 'one body':>8}: direct {1000 * direct:6.2f} ms, through the proxy "
            f"{1000 * proxied:6.2f} ms: +{1000 * (proxied - direct):5.2f} ms, ratio {proxied / direct:.2f}; "
            f"through the proxy and the sidecar {1000 * both:6.2f} ms: +{1000 * (both - direct):5.2f} ms"
        )
    print(
        f"whole run ({args.tickets} tickets x {args.turns} streamed calls, {args.model_seconds:g} s per "
        f"reply, concurrency 4; median of {args.runs}):"
    )
    direct, proxied = paired(
        lambda through: whole_run(args.tickets, args.turns, args.model_seconds, not through), args.runs
    )
    print(
        f"  direct {statistics.median(direct):.2f} s, through the proxy {statistics.median(proxied):.2f} s: "
        f"the proxy's share of the run {compared(direct, proxied)}"
    )
    print(f"answer phase (the same cells; median of {args.runs}):")
    alone, behind = paired(
        lambda sidecar: answer_phase(args.tickets, args.turns, args.model_seconds, sidecar), args.runs
    )
    print(
        f"  token in the runner {statistics.median(alone):.2f} s, through the gateway sidecar "
        f"{statistics.median(behind):.2f} s: the sidecar's share of the phase {compared(alone, behind)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
