"""Benchmark: the orchestration overhead of `assay run` against the ideal lower bound.

Workload: N tickets x 1 repetition, concurrency 4, an agent that takes a fixed time (a shell `sleep`, so the
agent itself costs almost no CPU), one code judge, no model judge. The whole command is timed, from process
start to exit. Printed figures:
- wall time over the ideal ceil(N / 4) x agent time (the lower bound for any orchestrator);
- time from process start to the first agent start (start-up cost: imports, suite loading);
- the agents' span (first start to last end) over the ideal;
- CPU seconds of the runner and its agents, per ticket; peak memory (max RSS) of the runner.
Each figure is the median of `--runs` runs (default 5): these machines are noisy.
Run: `.venv/bin/python bench/run_overhead.py [--tickets 30 120] [--agent-seconds 0.5] [--runs 5]`.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUITE = """\
name: bench
judges:
  - name: nonempty
    type: code
    weight: 1
    threshold: 1.0
    code: |
      return (1.0, "ok") if outputs["answer"].strip() else (0.0, "empty")
gate: {minScore: 0.9, ticketFloor: 0.7}
tickets:
"""

# bash builtins for the timestamps ($EPOCHREALTIME): the agent's own cost is one `sleep`, nothing else.
AGENT = """#!/bin/bash
echo "start $EPOCHREALTIME" >> "$EVENTS"
sleep {seconds}
printf '## Summary\\nDone.\\n' > answer.md
echo "end $EPOCHREALTIME" >> "$EVENTS"
"""


def make_suite(root: Path, tickets: int) -> Path:
    suite = root / "suite"
    suite.mkdir()
    lines = "".join(f"  - {{id: T-{i:03d}, split: validation, question: 'q{i}'}}\n" for i in range(tickets))
    (suite / "suite.yaml").write_text(SUITE + lines)
    return suite


def measure(tickets: int, agent_seconds: float, concurrency: int) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="assay-bench-"))
    try:
        suite = make_suite(root, tickets)
        brain = root / "brain"
        brain.mkdir()
        (brain / "AGENTS.md").write_text("Answer.\n")
        events = root / "events"
        agent = root / "agent.sh"
        agent.write_text(AGENT.replace("{seconds}", str(agent_seconds)).replace("$EVENTS", str(events)))
        agent.chmod(0o755)
        assay = Path(sys.executable).with_name("assay")
        argv = [
            str(assay),
            "run",
            "--no-mlflow",
            str(suite),
            "--brain",
            str(brain),
            "--agent",
            "command",
            "--model",
            "m",
            "--command",
            str(agent),
            "--concurrency",
            str(concurrency),
            "--out",
            str(root / "out"),
            "-q",
        ]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.time()
        done = subprocess.run(
            argv, capture_output=True, text=True, check=False, env={**os.environ, "TMPDIR": str(root)}
        )
        wall = time.time() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"assay run failed ({done.returncode}): {done.stderr[-2000:]}")
        stamps = [line.split() for line in events.read_text().splitlines()]
        starts = [float(t) for kind, t in stamps if kind == "start"]
        ends = [float(t) for kind, t in stamps if kind == "end"]
        ideal = math.ceil(tickets / concurrency) * agent_seconds
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {
            "tickets": tickets,
            "wall": wall,
            "ideal": ideal,
            "first_agent": min(starts) - started,
            "span": max(ends) - min(starts),
            "cpu": cpu,
            "peak_mib": after.ru_maxrss / 1024,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def compile_sources() -> None:
    """An installed runner has its bytecode compiled (the image runs compileall); an editable checkout
    under PYTHONDONTWRITEBYTECODE never gets it for the files changed since `make setup`. Compile them, so
    the benchmark measures the runner, not the compiler."""
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "runner")], check=True)


# Pydantic imports most of its machinery on the first model built, so the floor builds one.
FLOOR_IMPORTS = (
    "import asyncio, yaml; from pydantic import BaseModel; "
    "type('M', (BaseModel,), {'__annotations__': {'x': int}})(x=1)"
)


def startup_floor(runs: int) -> float:
    """Seconds for a bare interpreter to import what any asyncio + pydantic + YAML runner needs and build
    one model: the part of "to 1st agent" no orchestration code can remove (measured here, in this run)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        # The same environment `assay` gives itself (no plugin scan), so only the imports differ.
        subprocess.run(
            [sys.executable, "-c", FLOOR_IMPORTS],
            check=True,
            env={**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"},
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tickets", type=int, nargs="+", default=[30, 120])
    parser.add_argument("--agent-seconds", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--runs",
        type=int,
        default=5,
        help="runs per size; the median of each figure is printed (noisy machines)",
    )
    args = parser.parse_args()
    compile_sources()
    print(
        f"{'tickets':>7} {'wall s':>7} {'ideal s':>7} {'wall/ideal':>10} {'to 1st agent s':>14} "
        f"{'span/ideal':>10} {'cpu s':>6} {'cpu/ticket ms':>13} {'peak MiB':>8}"
    )
    firsts = []
    for tickets in args.tickets:
        runs = [measure(tickets, args.agent_seconds, args.concurrency) for _ in range(args.runs)]
        m = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        firsts.append(m["first_agent"])
        print(
            f"{tickets:>7} {m['wall']:>7.2f} {m['ideal']:>7.2f} {m['wall'] / m['ideal']:>10.3f} "
            f"{m['first_agent']:>14.3f} {m['span'] / m['ideal']:>10.3f} {m['cpu']:>6.2f} "
            f"{1000 * m['cpu'] / tickets:>13.1f} {m['peak_mib']:>8.1f}"
        )
    floor = startup_floor(max(args.runs, 5))
    print(f'start-up floor (python -c "{FLOOR_IMPORTS}"): {floor:.3f} s')
    print(f"to 1st agent / start-up floor: {' '.join(f'{first / floor:.2f}' for first in firsts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
