"""Benchmark: how fast a standby operator takes over when the leader dies during a burst, on the real control
plane and local kubelet.

Two replicas with leader election (ASSAY_LEASE_SECONDS=--lease). --kills times: a burst of --burst
Evaluations is created; once the leader has created the burst's first Job it is SIGKILLed (no cleanup, as
when its node dies) and one more Evaluation is created. Timed from the kill, by this process's clock:
- kill -> the standby holds the Lease;
- kill -> the next Job created (by the new leader: for a burst Evaluation the dead leader had not reached,
  or the one created at the kill).
The killed replica then comes back as the standby. At the end: every Evaluation has its verdict, and every
generation got exactly one Job (a takeover must never duplicate a run).

The lower bound of a takeover is the lease itself (a standby may not take a lease before it expires): the
figures are printed with their ratio to it. Asserts nothing about time; exits 1 only if a verdict is missing
or a generation got other than one Job. The runner is the fake one (assay_dev.operator_support): the figures
are the operators' and the control plane's.

Run: `ASSAY_K8S_BIN_DIR=$(bash scripts/build-k8s.sh | tail -1) .venv/bin/python bench/takeover.py
[--kills 6] [--lease 6] [--burst 8]`.
"""

from __future__ import annotations

import argparse
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
from assay_operator import rbac
from assay_operator.leader import LEASE_NAME

Obj = dict[str, Any]
NAMESPACE = "bench-takeover"
SETTLE = 0.3
"""A Job created this soon after the kill may be the dead leader's request still in flight: not counted."""


class JobClock:
    """When each Evaluation's first Job was seen (watch events, this process's clock)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.added: dict[str, float] = {}

    def on_job(self, kind: str, obj: Obj) -> None:
        owner = (obj["metadata"].get("ownerReferences") or [{}])[0].get("name", "")
        with self.lock:
            self.added.setdefault(owner, time.monotonic())

    def first_after(self, names: list[str], after: float) -> float | None:
        with self.lock:
            times = [self.added[n] for n in names if n in self.added and self.added[n] > after]
        return min(times) if times else None


@dataclass
class Takeovers:
    lease_seconds: int
    burst: int
    to_lease: list[float] = field(default_factory=list)
    to_job: list[float] = field(default_factory=list)
    duplicates: dict[tuple[str, str], int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    evaluations: int = 0
    source: Path | None = None


def wait_for(what: str, probe: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.02)


def holder(api: KubeApi) -> str | None:
    path = f"/apis/coordination.k8s.io/v1/namespaces/{NAMESPACE}/leases/{LEASE_NAME}"
    try:
        found = (api.get(path).get("spec") or {}).get("holderIdentity")
    except Exception:
        return None
    return str(found) if found else None


def run(
    plane: ControlPlane, scratch: Path, kills: int, lease: int, size: int, source: Path | None = None
) -> Takeovers:
    api = plane.api
    support.install_crd(api)
    support.bench_namespace(plane, NAMESPACE, "brain", [*rbac.role_rules(), *rbac.leader_election_rules()])
    env = {"ASSAY_LEADER_ELECTION": "true", "POD_NAMESPACE": NAMESPACE, "ASSAY_LEASE_SECONDS": str(lease)}
    replicas = {  # `source`: another version, for a before/after comparison
        name: support.fake_runner_operator(
            plane, NAMESPACE, scratch / f"{name}.log", source, env={**env, "POD_NAME": name}
        )
        for name in ("replica-a", "replica-b")
    }
    out = Takeovers(lease, size, source=source)
    clock = JobClock()
    replicas["replica-a"].start()
    wait_for("replica-a to lead", lambda: holder(api) == "replica-a", 60)
    replicas["replica-b"].start()
    names: list[str] = []
    try:
        with support.recording(plane, support.jobs_path(NAMESPACE), clock.on_job) as jobs:
            for kill in range(kills):
                leader = holder(api)
                assert leader in replicas, leader
                standby = next(n for n in replicas if n != leader)
                burst = [f"k{kill}-{i}" for i in range(size)]
                for name in burst:
                    support.create_evaluation(api, NAMESPACE, name, support.replay_spec("brain"))
                wait_for("the burst's first Job", lambda b=burst: clock.first_after(b, 0) is not None, 120)
                replicas[leader].kill()
                killed = time.monotonic()
                after = f"k{kill}-after"
                support.create_evaluation(api, NAMESPACE, after, support.replay_spec("brain"))
                names += [*burst, after]
                wait_for("the takeover", lambda s=standby: holder(api) == s, 4 * lease + 60)
                out.to_lease.append(time.monotonic() - killed)
                pending = [n for n in [*burst, after] if n not in clock.added or clock.added[n] > killed]
                wait_for(
                    "a Job by the new leader",
                    lambda p=pending, k=killed: clock.first_after(p, k + SETTLE) is not None,
                    120,
                )
                first = clock.first_after(pending, killed + SETTLE)
                assert first is not None
                out.to_job.append(first - killed)
                replicas[leader].start()  # back, as the standby
            out.evaluations = len(names)
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                items = api.get(support.evaluations_path(NAMESPACE))["items"]
                decided = {o["metadata"]["name"] for o in items if support.has_verdict()(o)}
                out.missing = [n for n in names if n not in decided]
                if not out.missing:
                    break
                time.sleep(1)
            out.duplicates = {k: len(v) for k, v in support.jobs_per_generation(jobs).items() if len(v) != 1}
    finally:
        for replica in replicas.values():
            if replica.alive():
                replica.stop()
    return out


def report(result: Takeovers) -> None:
    lease = result.lease_seconds
    print(
        f"takeover: 2 replicas, lease {lease} s, {len(result.to_lease)} SIGKILLs of the leader, each during "
        f"a burst of {result.burst} Evaluations ({result.evaluations} in all)"
    )
    for label, values in (
        ("kill -> standby holds the lease", result.to_lease),
        ("kill -> next Job created", result.to_job),
    ):
        p50 = statistics.median(values)
        print(
            f"  {label:32s} p50 {p50:5.1f} s   max {max(values):5.1f} s   "
            f"({p50 / lease:.2f} x the lease at p50, {max(values) / lease:.2f} x at max)   "
            f"all: {', '.join(f'{v:.1f}' for v in values)}"
        )
    print(f"  generations with other than one Job: {result.duplicates or 'none'}")
    print(f"  Evaluations without a verdict: {result.missing or 'none'}")
    if result.source is not None:
        print(f"  operator from {result.source}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--kills", type=int, default=6, help="SIGKILLs of the leader (at least 5 for a p50)")
    parser.add_argument("--lease", type=int, default=6, help="ASSAY_LEASE_SECONDS of both replicas")
    parser.add_argument("--burst", type=int, default=8, help="Evaluations created before each kill")
    parser.add_argument(
        "--operator-source",
        type=Path,
        help="run the operator from this directory (holding assay_operator/; its runner/ beside it) instead: "
        "another version to compare, e.g. `git archive main operator runner | tar -x -C /tmp/main` and "
        "/tmp/main/operator",
    )
    args = parser.parse_args()
    with running_control_plane() as plane, tempfile.TemporaryDirectory(prefix="assay-bench-") as scratch:
        runner = images_build.current(["runner"])[0]  # make images; built here when missing
        with local_node(plane, runner.base_image) as kubelet:
            # The tests' images, derived from the runner image.
            support.register_images(kubelet, runner.reference)
            result = run(plane, Path(scratch), args.kills, args.lease, args.burst, args.operator_source)
    report(result)
    return 0 if not (result.missing or result.duplicates) else 1


if __name__ == "__main__":
    sys.exit(main())
