"""Benchmark: the operator's own latency and a burst, on the real control plane, against the apiserver's
round-trip time measured in the same run.

What is timed (all from watch events received by this process, so the clocks agree):
- create -> Job: from the Evaluation's create call to the Job's ADDED event (the operator);
- runner terminated -> verdict: from the pod update showing the runner terminated to the Evaluation update
  carrying the verdict, split at the Job's Complete condition (the Job controller, then the operator);
over --runs sequential Evaluations (p50/p95). Then a burst of --burst Evaluations created at once: time until
every verdict is in, whether every one arrived, Jobs per generation (must be 1), and the operator's peak
memory (VmHWM from /proc). The runner is a stand-in that writes a valid RunSummary built with
assay_runner.contract and exits 0 (assay_dev.operator_support), so the figures are the operator's,
the Job controller's and the local kubelet's, not the scoring's.

A takeover by a standby replica is measured by bench/takeover.py.

Prints figures and ratios; asserts nothing about time (exit 1 only if a verdict is missing or a generation
got two Jobs).
Run: `ASSAY_K8S_BIN_DIR=$(bash scripts/build-k8s.sh | tail -1) .venv/bin/python bench/operator_latency.py
[--runs 15] [--burst 200]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.controlplane import running_control_plane
from assay_dev.cluster.node import local_node
from assay_dev.images import build as images_build

Obj = dict[str, Any]
NAMESPACE = "bench"
RTT_SAMPLES = 60


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


class Clock:
    """The first time (monotonic) each event of interest was seen in a watch stream."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.job_added: dict[str, float] = {}  # by Evaluation name
        self.job_finished: dict[str, float] = {}  # by Job name
        self.pod_terminated: dict[str, float] = {}  # by Job name
        self.verdict: dict[str, float] = {}  # by Evaluation name

    def _first(self, table: dict[str, float], key: str) -> None:
        with self.lock:
            table.setdefault(key, time.monotonic())

    def on_job(self, kind: str, obj: Obj) -> None:
        owner = (obj["metadata"].get("ownerReferences") or [{}])[0].get("name", "")
        self._first(self.job_added, owner)
        conditions = (obj.get("status") or {}).get("conditions") or []
        if any(c["type"] in ("Complete", "Failed") and c["status"] == "True" for c in conditions):
            self._first(self.job_finished, obj["metadata"]["name"])

    def on_pod(self, kind: str, obj: Obj) -> None:
        statuses = (obj.get("status") or {}).get("containerStatuses") or []
        if any("terminated" in s.get("state", {}) for s in statuses):
            self._first(self.pod_terminated, (obj["metadata"].get("labels") or {}).get("job-name", ""))

    def on_evaluation(self, kind: str, obj: Obj) -> None:
        if support.has_verdict()(obj):
            self._first(self.verdict, obj["metadata"]["name"])


def wait_for(what: str, probe: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def round_trip(api: KubeApi) -> float:
    api.create(support.config_maps_path(NAMESPACE), {"metadata": {"name": "rtt"}, "data": {"k": "v"}})
    times = []
    for _ in range(RTT_SAMPLES):
        started = time.perf_counter()
        api.get(support.config_maps_path(NAMESPACE, "rtt"))
        times.append(time.perf_counter() - started)
    return statistics.median(times)


@dataclass
class Sequential:
    to_job: list[float] = field(default_factory=list)
    to_job_finished: list[float] = field(default_factory=list)
    to_verdict: list[float] = field(default_factory=list)


def sequential(api: KubeApi, clock: Clock, runs: int) -> Sequential:
    out = Sequential()
    for i in range(runs):
        name = f"seq-{i}"
        created = time.monotonic()
        support.create_evaluation(api, NAMESPACE, name, support.replay_spec("brain"))
        wait_for(f"the verdict of {name}", lambda: name in clock.verdict, 120)  # noqa: B023 (waited here)
        terminated = clock.pod_terminated[f"{name}-g1"]
        out.to_job.append(clock.job_added[name] - created)
        out.to_job_finished.append(clock.job_finished[f"{name}-g1"] - terminated)
        out.to_verdict.append(clock.verdict[name] - clock.job_finished[f"{name}-g1"])
    return out


@dataclass
class Burst:
    size: int
    created_in: float = 0.0
    all_in: float = float("nan")
    arrived: int = 0
    passed: int = 0
    duplicates: dict[tuple[str, str], int] = field(default_factory=dict)
    to_job: list[float] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    peak_rss_kib: int = 0
    hwm_kib: int = 0
    operator_cpu: float = 0.0


def burst(
    api: KubeApi,
    clock: Clock,
    jobs: support.Recorder,
    operator: support.OperatorProcess,
    size: int,
    timeout: float,
) -> Burst:
    out = Burst(size)
    names = [f"burst-{i:03d}" for i in range(size)]
    cpu_before = operator.cpu_seconds()
    started = time.monotonic()
    for name in names:
        support.create_evaluation(api, NAMESPACE, name, support.replay_spec("brain"))
    out.created_in = time.monotonic() - started

    def all_in() -> bool:
        out.peak_rss_kib = max(out.peak_rss_kib, operator.memory_kib()[0])
        return all(n in clock.verdict for n in names)

    try:
        wait_for("the burst's verdicts", all_in, timeout)
        out.all_in = time.monotonic() - started
    except TimeoutError:
        pass
    out.operator_cpu = operator.cpu_seconds() - cpu_before
    out.arrived = sum(n in clock.verdict for n in names)
    out.missing = [n for n in names if n not in clock.verdict]
    out.duplicates = {k: len(v) for k, v in support.jobs_per_generation(jobs).items() if len(v) != 1}
    items = api.get(support.evaluations_path(NAMESPACE))["items"]
    out.passed = sum(
        (o.get("status") or {}).get("verdict") == "Pass" for o in items if o["metadata"]["name"] in names
    )
    out.to_job = [clock.job_added[n] - started for n in names if n in clock.job_added]
    out.hwm_kib = operator.memory_kib()[1]
    return out


def run(
    plane: ControlPlane, scratch: Path, runs: int, size: int, timeout: float, source: Path | None = None
) -> tuple[float, Sequential, Burst]:
    api = plane.api
    support.install_crd(api)
    support.bench_namespace(plane, NAMESPACE, "brain")
    operator = support.fake_runner_operator(plane, NAMESPACE, scratch / "operator.log", source)
    operator.start()
    try:
        rtt = round_trip(api)
        clock = Clock()
        with (
            support.recording(plane, support.jobs_path(NAMESPACE), clock.on_job) as jobs,
            support.recording(plane, support.pods_path(NAMESPACE), clock.on_pod),
            support.recording(plane, support.evaluations_path(NAMESPACE), clock.on_evaluation),
        ):
            latencies = sequential(api, clock, runs)
            crowd = burst(api, clock, jobs, operator, size, timeout)
        if operator.problems():
            print("operator log problems:\n" + "\n".join(operator.problems()[:10]))
    finally:
        operator.stop()
    return rtt, latencies, crowd


def report(rtt: float, latencies: Sequential, crowd: Burst) -> None:
    print(f"apiserver round trip (median GET of a ConfigMap, {RTT_SAMPLES} samples): {ms(rtt)}")
    print(f"sequential Evaluations: {len(latencies.to_job)}")
    for label, values in (
        ("create -> Job created", latencies.to_job),
        ("runner terminated -> Job done", latencies.to_job_finished),
        ("Job done -> verdict", latencies.to_verdict),
    ):
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        print(
            f"  {label:30s} p50 {ms(p50)} ({p50 / rtt:6.1f} x RTT)   p95 {ms(p95)} ({p95 / rtt:6.1f} x RTT)"
        )
    print(f"burst: {crowd.size} Evaluations created in {crowd.created_in:.2f} s")
    print(
        f"  verdicts arrived: {crowd.arrived}/{crowd.size} ({crowd.passed} Pass); all in after "
        f"{crowd.all_in:.1f} s ({crowd.all_in / crowd.size * 1000:.0f} ms per Evaluation, "
        f"{crowd.all_in / crowd.size / rtt:.0f} x RTT)"
    )
    cores = os.cpu_count() or 1
    print(
        f"  operator CPU during the burst: {crowd.operator_cpu:.1f} s "
        f"({crowd.operator_cpu / crowd.size * 1000:.0f} ms per Evaluation; "
        f"{crowd.operator_cpu / (crowd.all_in * cores):.0%} of the machine's {cores} cores over the burst)"
    )
    if crowd.to_job:
        p50, p95 = percentile(crowd.to_job, 0.5), percentile(crowd.to_job, 0.95)
        print(f"  first create -> each Job: p50 {ms(p50)}  p95 {ms(p95)}")
    print(f"  generations with other than one Job: {crowd.duplicates or 'none'}")
    if crowd.missing:
        print(f"  NO VERDICT for {len(crowd.missing)}: {crowd.missing[:10]}")
    peak, hwm = crowd.peak_rss_kib / 1024, crowd.hwm_kib / 1024
    print(f"  operator memory: peak RSS {peak:.0f} MiB (VmHWM {hwm:.0f} MiB)")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="sequential Evaluations for the latencies")
    parser.add_argument("--burst", type=int, default=200, help="Evaluations created at once")
    parser.add_argument("--timeout", type=float, default=900, help="seconds to wait for the burst's verdicts")
    parser.add_argument(
        "--operator-source", type=Path, help="run another version of the operator (see bench/takeover.py)"
    )
    args = parser.parse_args()
    with running_control_plane() as plane, tempfile.TemporaryDirectory(prefix="assay-bench-") as scratch:
        runner = images_build.current(["runner"])[0]  # make images; built here when missing
        with local_node(plane, runner.base_image) as kubelet:
            # The tests' images, derived from the runner image.
            support.register_images(kubelet, runner.reference)
            rtt, latencies, crowd = run(
                plane, Path(scratch), args.runs, args.burst, args.timeout, args.operator_source
            )
    report(rtt, latencies, crowd)
    ok = not crowd.missing and not crowd.duplicates
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
