"""Benchmark: the operator's cost as its work grows, on the real control plane and local kubelet.

For each --sizes N (default 10, 100, 1000): a fresh namespace and a fresh operator, then N Evaluations created
in a burst (one after the other from one client, as fast as the apiserver takes them), and the run waits for
every verdict. With --held M (default 100), one more round of M Evaluations whose answer pods each hold for
6 s (the fake runner's `queued-*`), so that many are running at once. Per round:
- create -> answer Job: from just before an Evaluation's create call to its answer Job's ADDED event (watch
  events received by this process, so one clock), p50 and p99;
- burst -> every verdict: from the first create to the last verdict;
- the operator's CPU seconds (utime + stime from /proc) and its peak RSS (VmHWM) over the round, per
  Evaluation (RSS: the growth above the idle operator's, divided by N);
- API requests the operator made (the apiserver's audit log, counted by the operator's ServiceAccount
  user), per Evaluation;
- the most Evaluations running at once (an answer Job seen, no verdict yet).
Then how each per-Evaluation figure grows from the smallest N (1.00: linear in N; below: better).

`--start-only`: no node, so the Job controller's pods stay Pending and nothing runs; each round waits for
every answer Job instead of every verdict. What it measures is the operator's start of a burst alone
(validation, the run's objects, the answer Job, the status writes), without 2,000 runner pods on the same two
cores: the goal's "every answer Job within 10 s p99 at 1,000" is about that part, and on this machine the
full round is bound by the local kubelet, not the operator.

The runner is the fake one (assay_dev.operator_support: canned summaries), so the figures are the
operator's, the Job controller's and the local kubelet's, not the scoring's. The goals (issue 38): linear or
better, every answer Job within 10 s p99 at 1,000, RSS under 300 MiB. Asserts nothing about time; exits 1 if
a verdict is missing. The 1,000 round needs a quiet machine (2,000 pods on the local kubelet).
Run: `ASSAY_K8S_BIN_DIR=$(bash scripts/build-k8s.sh | tail -1) .venv/bin/python bench/operator_scale.py
[--sizes 10,100,1000] [--held 100] [--start-only]`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane
from assay_dev.cluster.controlplane import running_control_plane
from assay_dev.cluster.node import local_node
from assay_dev.images import build as images_build

Obj = dict[str, Any]
BRAIN = "brain"
HOLD_PREFIX = "queued-"
"""The fake runner's answer pod sleeps 6 s for an Evaluation named so (its Kueue test's quota holder)."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class Clock:
    """When each Evaluation's answer Job and verdict were first seen (watch events, this process's clock)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.job: dict[str, float] = {}
        self.verdict: dict[str, float] = {}
        self.answer_jobs: dict[str, str] = {}
        """answer Job name -> its Evaluation."""

    def on_job(self, kind: str, obj: Obj) -> None:
        evaluation = self.answer_jobs.get(obj["metadata"]["name"])
        if evaluation is not None:
            with self.lock:
                self.job.setdefault(evaluation, time.monotonic())

    def on_evaluation(self, kind: str, obj: Obj) -> None:
        if kind != "DELETED" and support.has_verdict()(obj):
            with self.lock:
                self.verdict.setdefault(obj["metadata"]["name"], time.monotonic())

    def running(self) -> int:
        with self.lock:
            return len(set(self.job) - set(self.verdict))


@dataclass
class Round:
    label: str
    size: int
    create_seconds: float = 0.0
    to_job: list[float] = field(default_factory=list)
    all_verdicts: float = float("nan")
    missing: list[str] = field(default_factory=list)
    cpu: float = 0.0
    idle_rss_kib: int = 0
    hwm_kib: int = 0
    requests: Counter[str] = field(default_factory=Counter)
    peak_running: int = 0

    @property
    def cpu_per(self) -> float:
        return self.cpu / self.size

    @property
    def rss_per_kib(self) -> float:
        return max(0, self.hwm_kib - self.idle_rss_kib) / self.size

    @property
    def requests_per(self) -> float:
        return self.requests.total() / self.size


def audit_requests(log: Path, user: str, start: int) -> Counter[str]:
    """Requests by `user` in the audit log after byte `start` (each request once: its audit ID), counted by
    verb and resource (`create jobs`, `patch evaluations/status`)."""
    seen: dict[str, str] = {}
    with log.open("rb") as events:
        events.seek(start)
        for line in events:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line being written
            if (event.get("user") or {}).get("username") == user:
                target = event.get("objectRef") or {}
                resource = "/".join(filter(None, (target.get("resource"), target.get("subresource"))))
                seen[event["auditID"]] = f"{event.get('verb')} {resource or event.get('requestURI')}"
    return Counter(seen.values())


def run_round(
    plane: ControlPlane,
    scratch: Path,
    label: str,
    size: int,
    prefix: str,
    timeout: float,
    start_only: bool = False,
) -> Round:
    api = plane.api
    namespace = f"scale-{label}"
    support.bench_namespace(plane, namespace, BRAIN)
    operator = support.fake_runner_operator(plane, namespace, scratch / f"operator-{label}.log")
    operator.start()
    out = Round(label, size)
    names = [f"{prefix}{i}" for i in range(size)]
    clock = Clock()
    clock.answer_jobs = {support.answer_job(name): name for name in names}
    user = f"system:serviceaccount:{namespace}:{support.OPERATOR_SA}"
    try:
        with (
            support.recording(plane, support.jobs_path(namespace), clock.on_job),
            support.recording(plane, support.evaluations_path(namespace), clock.on_evaluation),
        ):
            time.sleep(1)  # the operator's own start-up requests settle before the round is counted
            out.idle_rss_kib = operator.memory_kib()[0]
            cpu_before = operator.cpu_seconds()
            audit_start = plane.audit_log.stat().st_size
            created: dict[str, float] = {}
            first = time.monotonic()
            for name in names:
                created[name] = time.monotonic()
                support.create_evaluation(api, namespace, name, support.replay_spec(BRAIN))
            out.create_seconds = time.monotonic() - first
            deadline = first + timeout
            while time.monotonic() < deadline:
                out.peak_running = max(out.peak_running, clock.running())
                with clock.lock:
                    if len(clock.job if start_only else clock.verdict) == size:
                        break
                if not operator.alive():
                    raise RuntimeError(f"the operator died:\n{operator.log_tail()}")
                time.sleep(0.2)
            with clock.lock:
                reached = clock.job if start_only else clock.verdict
                out.missing = [n for n in names if n not in reached]
                if not out.missing:
                    out.all_verdicts = max(reached.values()) - first
                out.to_job = [clock.job[n] - created[n] for n in names if n in clock.job]
            out.cpu = operator.cpu_seconds() - cpu_before
            out.hwm_kib = operator.memory_kib()[1]
            out.requests = audit_requests(plane.audit_log, user, audit_start)
    finally:
        operator.stop()
    return out


def report(rounds: list[Round]) -> None:
    print("operator scale: N Evaluations created in a burst (fake runner), fresh operator per round")
    if any(r.label.startswith("start") for r in rounds):
        print("start rounds: no node; 'all in s': burst -> last answer Job; CPU, requests: the start's")
    header = (
        f"{'round':>14} {'create s':>8} {'job p50':>8} {'job p99':>8} {'all in s':>8} {'running':>7} "
        f"{'CPU s':>7} {'CPU/Eval':>9} {'VmHWM':>7} {'RSS/Eval':>9} {'req/Eval':>8}"
    )
    print(header)
    for r in rounds:
        print(
            f"{r.label:>14} {r.create_seconds:8.1f} {percentile(r.to_job, 0.5):7.2f}s "
            f"{percentile(r.to_job, 0.99):7.2f}s {r.all_verdicts:8.1f} {r.peak_running:7d} {r.cpu:7.1f} "
            f"{r.cpu_per * 1000:7.0f}ms {r.hwm_kib / 1024:5.0f}Mi {r.rss_per_kib:7.0f}Ki "
            f"{r.requests_per:8.1f}"
        )
    bursts = [r for r in rounds if not r.label.startswith("held")]
    if len(bursts) > 1:
        base = bursts[0]
        print(f"growth of the per-Evaluation figures from N={base.size} (1.00: linear in N)")
        for r in bursts[1:]:
            p99 = percentile(r.to_job, 0.99) / percentile(base.to_job, 0.99)
            print(
                f"  N={r.size:<5} create->Job p99 x{p99:.2f}   CPU/Eval x{r.cpu_per / base.cpu_per:.2f}   "
                f"requests/Eval x{r.requests_per / base.requests_per:.2f}   "
                f"all verdicts/Eval x{(r.all_verdicts / r.size) / (base.all_verdicts / base.size):.2f}"
            )
    for r in rounds:
        kinds = ", ".join(f"{what} {n / r.size:.1f}" for what, n in r.requests.most_common())
        print(f"  {r.label} requests per Evaluation: {kinds}")
    for r in rounds:
        if r.missing:
            reached = "answer Job" if r.label.startswith("start") else "verdict"
            print(f"  {r.label}: NO {reached.upper()} for {len(r.missing)}: {r.missing[:10]}")


def run_rounds(plane: ControlPlane, scratch: Path, sizes: list[int], args: argparse.Namespace) -> list[Round]:
    kind = "start" if args.start_only else "burst"
    rounds = [
        run_round(plane, scratch, f"{kind}-{size}", size, "e-", args.timeout, args.start_only)
        for size in sizes
    ]
    if args.held and not args.start_only:
        label = f"held-{args.held}"
        rounds.append(run_round(plane, scratch, label, args.held, HOLD_PREFIX, args.timeout))
    return rounds


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000", help="burst sizes, comma-separated")
    parser.add_argument(
        "--held", type=int, default=100, help="Evaluations whose answer pods hold 6 s (0: none)"
    )
    parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait for a round's verdicts")
    parser.add_argument(
        "--start-only",
        action="store_true",
        help="no node: every round waits for the answer Jobs only (the operator's start of a burst)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    rounds: list[Round] = []
    with (
        running_control_plane(audit=True) as plane,
        tempfile.TemporaryDirectory(prefix="assay-bench-") as scratch,
    ):
        runner = images_build.current(["runner"])[0]  # make images; built here when missing
        with local_node(plane, runner.base_image) as kubelet:
            support.register_images(kubelet, runner.reference)  # the fake runner, from the runner
            support.install_crd(plane.api)
            if not args.start_only:
                rounds.extend(run_rounds(plane, Path(scratch), sizes, args))
        if args.start_only:  # the node is stopped: no pod is bound, none runs
            rounds.extend(run_rounds(plane, Path(scratch), sizes, args))
    report(rounds)
    return 1 if any(r.missing for r in rounds) else 0


if __name__ == "__main__":
    sys.exit(main())
