"""Benchmark: the orchestration overhead of `assay run` against the ideal lower bound.

Workload: N tickets x 1 repetition, concurrency 4, an agent that takes a fixed time, one code judge, no model
judge. The agent is bench/fixed_time_agent.c (compiled here with `cc`): it stamps its start, sleeps, writes
the answer and stamps its end, and costs well under a millisecond besides, so what the figures show is
the orchestrator's. `--agent-program shell` uses a bash script with `sleep` instead, whose own start-up
and fork of `sleep` add a few milliseconds per run (shown for comparison). The whole command is timed,
from process start to exit. Printed figures:
- wall time over the ideal ceil(N / 4) x agent time (the lower bound for any orchestrator);
- time from process start to the first agent start (start-up cost: imports, suite loading);
- the agents' span (first start to last end) over the ideal;
- handover: the median time from an agent's end stamp to the next agent's start stamp in the slot it freed
  (noticing the exit, starting the next process, and the agent program's own start);
- tail: from the last agent's end stamp to the command's exit (its judging, result.json, report, exit);
- CPU seconds of the runner and its agents, per ticket; peak memory (max RSS) of the runner;
- the machine's 1-minute load average at the start and at the end (the figures move with it).
Each figure is the median of `--runs` runs (default 5): these machines are noisy.
The agents run in the cell's Landlock sandbox (assay_runner.sandbox), as in any run on a kernel that has
it, through its launcher where `make launcher` built it (assay_runner.sandbox.launcher). `--sandbox both`
(the default) also runs each size without it (ASSAY_LANDLOCK_ABI_MAX=0), the runs interleaved, and prints
the sandbox's cost per cell: how much later each agent starts in the slot it takes (the handover
difference) and the CPU it adds, then wall with / wall without. `--sandbox all` adds the sandbox without
the launcher (`forked`: ASSAY_SANDBOX_LAUNCHER=none, each agent confined in a fork of the runner).
bench/sandbox_spawn.py shows what that cost is made of.
Run: `.venv/bin/python bench/run_overhead.py [--tickets 30 120] [--agent-seconds 0.5] [--runs 5]
[--agent-program native|shell] [--sandbox both|all|on|forked|off]`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import shlex
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

# The comparison agent: bash builtins for the timestamps ($EPOCHREALTIME), one fork of `sleep`.
SHELL_AGENT = """#!/bin/bash
echo "start $EPOCHREALTIME" >&2
sleep "$1"
printf '## Summary\\nDone.\\n' > answer.md
echo "end $EPOCHREALTIME" >&2
"""
ABI_CAP_ENV = "ASSAY_LANDLOCK_ABI_MAX"  # assay_runner.sandbox.landlock: 0 runs the agents unconfined
LAUNCHER_ENV = "ASSAY_SANDBOX_LAUNCHER"  # assay_runner.sandbox.launcher: `none` confines in a forked child
MODES = {"on": "", "forked": " forked", "off": " off"}
"""The sandbox modes: confined through the launcher where there is one (on), confined by a forked child
(forked: as without the launcher), unconfined (off); and each one's label after the size in the table."""
NATIVE_AGENT_SOURCE = Path(__file__).with_name("fixed_time_agent.c")


def build_agent(program: str, directory: Path) -> Path:
    """The agent executable: `native` compiles fixed_time_agent.c, `shell` writes the bash script."""
    agent = directory / "agent"
    if program == "shell":
        agent.write_text(SHELL_AGENT)
        agent.chmod(0o755)
        return agent
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SystemExit("no C compiler (cc) on PATH: install one, or run with --agent-program shell")
    subprocess.run([compiler, "-O2", "-o", str(agent), str(NATIVE_AGENT_SOURCE)], check=True)
    return agent


def make_suite(root: Path, tickets: int) -> Path:
    suite = root / "suite"
    suite.mkdir()
    lines = "".join(f"  - {{id: T-{i:03d}, split: validation, question: 'q{i}'}}\n" for i in range(tickets))
    (suite / "suite.yaml").write_text(SUITE + lines)
    return suite


def handovers(starts: list[float], ends: list[float], concurrency: int) -> list[float]:
    """Each later agent's start minus the end of the agent whose slot it took (the k-th end frees the slot
    for the (concurrency + k)-th start: agents take the same time, so slots free in end order)."""
    starts, ends = sorted(starts), sorted(ends)
    return [start - end for start, end in zip(starts[concurrency:], ends, strict=False)]


def stamps_of(result_file: Path) -> list[list[str]]:
    """The agents' start and end stamps, from each cell's transcript (their stderr) in result.json."""
    result = json.loads(result_file.read_text())
    lines = [
        line.split()
        for ticket in result["tickets"]
        for cell in ticket["repetitions"]
        for line in (cell.get("transcript") or "").splitlines()
    ]
    return [line for line in lines if len(line) == 2 and line[0] in ("start", "end")]


def measure(
    tickets: int, agent_seconds: float, concurrency: int, agent: Path, mode: str = "on"
) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="assay-bench-"))
    try:
        suite = make_suite(root, tickets)
        brain = root / "brain"
        brain.mkdir()
        (brain / "AGENTS.md").write_text("Answer.\n")
        command = shlex.join([str(agent), str(agent_seconds)])
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
            command,
            "--concurrency",
            str(concurrency),
            "--out",
            str(root / "out"),
            "-q",
        ]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.time()
        env = {**os.environ, "TMPDIR": str(root)}
        if mode == "off":
            env[ABI_CAP_ENV] = "0"
        if mode == "forked":
            env[LAUNCHER_ENV] = "none"
        done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
        finished = time.time()
        wall = finished - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"assay run failed ({done.returncode}): {done.stderr[-2000:]}")
        stamps = stamps_of(root / "out" / "result.json")
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
            "handover": statistics.median(handovers(starts, ends, concurrency) or [0.0]),
            "tail": finished - max(ends),
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


def startup_floor() -> float:
    """Seconds for a bare interpreter to import what any asyncio + pydantic + YAML runner needs and build
    one model: the part of "to 1st agent" no orchestration code can remove. Measured right before each
    run, so that the ratio compares the same moments of a machine whose speed drifts."""
    started = time.perf_counter()
    # The same environment `assay` gives itself (no plugin scan), so only the imports differ.
    subprocess.run(
        [sys.executable, "-c", FLOOR_IMPORTS],
        check=True,
        env={**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"},
    )
    return time.perf_counter() - started


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
    parser.add_argument(
        "--agent-program",
        choices=["native", "shell"],
        default="native",
        help="native: bench/fixed_time_agent.c; shell: a bash script (adds its own start-up per run)",
    )
    parser.add_argument(
        "--sandbox",
        choices=["both", "all", *MODES],
        default="both",
        help="agents in the Landlock sandbox (on: through the launcher if built), confined by a forked "
        "child (forked), not confined (off); both: on and off, all: the three, interleaved, with the "
        "sandbox's cost printed",
    )
    args = parser.parse_args()
    compile_sources()
    load_before = os.getloadavg()
    modes = {"both": ["on", "off"], "all": list(MODES)}.get(args.sandbox, [args.sandbox])
    print(
        f"{'tickets':>7} {'wall s':>7} {'ideal s':>7} {'wall/ideal':>10} {'to 1st agent s':>14} "
        f"{'span/ideal':>10} {'handover ms':>11} {'tail s':>6} {'cpu s':>6} {'cpu/ticket ms':>13} "
        f"{'peak MiB':>8}"
    )
    ratios = []
    costs: list[str] = []
    with tempfile.TemporaryDirectory(prefix="assay-bench-agent-") as directory:
        agent = build_agent(args.agent_program, Path(directory))
        for tickets in args.tickets:
            runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
            for index in range(args.runs):
                # Interleaved, so that every mode sees the same moments of a drifting machine, and rotated,
                # so that none always runs first (right after another run's teardown).
                for mode in modes[index % len(modes) :] + modes[: index % len(modes)]:
                    floor = startup_floor()
                    run = measure(tickets, args.agent_seconds, args.concurrency, agent, mode=mode)
                    runs[mode].append({**run, "floor": floor, "first_over_floor": run["first_agent"] / floor})
            medians = {}
            for mode in modes:
                m = {key: statistics.median(run[key] for run in runs[mode]) for key in runs[mode][0]}
                medians[mode] = m
                if mode == modes[0]:
                    ratios.append((m["first_over_floor"], m["floor"]))
                label = f"{tickets}{MODES[mode]}"
                print(
                    f"{label:>7} {m['wall']:>7.2f} {m['ideal']:>7.2f} {m['wall'] / m['ideal']:>10.3f} "
                    f"{m['first_agent']:>14.3f} {m['span'] / m['ideal']:>10.3f} "
                    f"{1000 * m['handover']:>11.2f} {m['tail']:>6.3f} {m['cpu']:>6.2f} "
                    f"{1000 * m['cpu'] / tickets:>13.1f} {m['peak_mib']:>8.1f}"
                )
            for mode in modes:
                if mode == "off" or "off" not in medians:
                    continue
                on, off = medians[mode], medians["off"]
                costs.append(
                    f"{tickets:>7} tickets: the sandbox's cost per cell ({mode}): its agent starts "
                    f"{1000 * (on['handover'] - off['handover']):+.2f} ms later (handover), "
                    f"{1000 * (on['cpu'] - off['cpu']) / tickets:+.1f} ms CPU; "
                    f"wall {mode}/off {on['wall'] / off['wall']:.3f}"
                )
    print(f'start-up floor: python -c "{FLOOR_IMPORTS}", run before each run')
    # Interpreter builds differ by tens of milliseconds of start-up (a distribution's optimised build against
    # a plain source build), so every figure above names the one it ran on.
    print(f"python: {platform.python_version()} at {Path(sys.executable).resolve()}")
    # These figures move with the machine's other work: the 1-minute load at the start and at the end.
    print(f"load (1 min): {load_before[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    if "on" in modes:
        print(f"sandbox on: {_launcher()}")
    for tickets, (ratio, floor) in zip(args.tickets, ratios, strict=True):
        print(f"{tickets:>7} tickets: floor {floor:.3f} s, to 1st agent / floor {ratio:.2f}")
    for line in costs:  # "off" rows: the same runs with the agents unconfined (ASSAY_LANDLOCK_ABI_MAX=0)
        print(line)
    return 0


def _launcher() -> str:
    """How `assay` starts its confined agents here: through which launcher, or forked children."""
    found = subprocess.run(
        [sys.executable, "-c", "from assay_runner.sandbox.launcher import find; print(find() or '')"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return f"agents started through {found}" if found else "no launcher (make launcher): forked children"


if __name__ == "__main__":
    sys.exit(main())
