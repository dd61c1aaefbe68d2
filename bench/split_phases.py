"""Benchmark: the wall time of a split run (the cluster pod's phases) against today's single phase.

Workload: the bundled support-desk example (16 tickets, 7 judges, the model judge replayed from its
cassettes, offline), concurrency 4, with an agent that takes `--agent-seconds` per ticket and then gives the
example's recorded answer (a `sh -c 'sleep S; cp ...'` command agent, the cluster tests' slow agent; with 0
it is the replay agent, no process at all).

- single: `assay run --config` — one process; each answer is judged while the next agents run.
- split: the pod's containers one after the other, as processes: `assay split` (what a bundled suite's init
  container does), `assay answer --config`, `assay score --config` — the judge phase starts after the last
  answer, so its whole judging is a tail, plus two more interpreter start-ups.

Each is timed from process start to exit (the split one over its three processes), the median of `--runs`
runs; printed: both medians, the ratio split/single (aim: <= 1.10), and the split run's three parts.
Kubernetes' own cost of an extra container (the kubelet starting it) is not in these figures.
Run: `.venv/bin/python bench/split_phases.py [--agent-seconds 2] [--runs 5]`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "support-desk"
ASSAY = [str(Path(sys.executable).with_name("assay"))]


def agent(seconds: float) -> dict[str, object]:
    if seconds <= 0:
        return {"kind": "replay", "answers": str(EXAMPLE / "answers" / "v1")}
    script = f"sleep {seconds}; cp {EXAMPLE}/answers/v1/{{ticket_id}}/answer.md {{answer_file}}"
    return {"kind": "command", "model": "recorded", "command": ["sh", "-c", script]}


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def one_round(work: Path, seconds: float) -> tuple[float, tuple[float, float, float]]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    common = {
        "brain": str(EXAMPLE / "brains" / "v1"),
        "agent": agent(seconds),
        "judgeModel": "example-judge",
        "cassettes": {"dir": str(EXAMPLE / "cassettes")},
        "concurrency": 4,
        "mlflow": {"enabled": False},
    }
    single = work / "single.json"
    single.write_text(json.dumps({**common, "suite": str(EXAMPLE), "output": {"dir": str(work / "one")}}))
    single_seconds = timed([*ASSAY, "run", "--config", str(single), "-q"])

    public, keys, answers = work / "public", work / "key" / "keys.yaml", work / "answers"
    answer = work / "answer.json"
    answer.write_text(json.dumps({**common, "suite": str(public), "answersDir": str(answers)}))
    judge = work / "judge.json"
    judge.write_text(
        json.dumps(
            {
                **common,
                "suite": str(public),
                "keys": str(keys),
                "answersDir": str(answers),
                "output": {"dir": str(work / "two"), "summaryPath": str(work / "termination-log")},
            }
        )
    )
    parts = (
        timed([*ASSAY, "split", str(EXAMPLE), "--public", str(public), "--keys", str(keys)]),
        timed([*ASSAY, "answer", "--config", str(answer), "-q"]),
        timed([*ASSAY, "score", "--config", str(judge), "-q"]),
    )
    one = json.loads((work / "one" / "result.json").read_text())
    two = json.loads((work / "two" / "result.json").read_text())
    assert (one["verdict"], one["score"]) == (two["verdict"], two["score"]), "the two runs disagree"
    return single_seconds, parts


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--agent-seconds", type=float, default=2.0, help="per ticket (0: the replay agent)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    singles: list[float] = []
    splits: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="assay-bench-split-") as tmp:
        for index in range(args.runs):
            single, parts = one_round(Path(tmp) / str(index), args.agent_seconds)
            singles.append(single)
            splits.append(parts)
    single = statistics.median(singles)
    split = statistics.median(sum(parts) for parts in splits)
    medians = [statistics.median(p[i] for p in splits) for i in range(3)]
    print(f"support-desk, 16 tickets, concurrency 4, agent {args.agent_seconds:g} s/ticket, {args.runs} runs")
    print(f"single phase (assay run):           {single:6.2f} s")
    print(f"split (split + answer + score):     {split:6.2f} s")
    print(f"  split {medians[0]:.2f} s, answer {medians[1]:.2f} s, score {medians[2]:.2f} s")
    print(f"ratio split / single:               {split / single:6.3f}  (aim <= 1.10)")


if __name__ == "__main__":
    main()
