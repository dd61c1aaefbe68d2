"""Benchmark: the largest Campaign grid (64 brains x 4 agents = 256 cells, plus the incumbent) end to end on
the real control plane and local kubelet, against a lower bound measured in the same run.

The grid is `assay_dev.operator_support.mute_grid_spec`: one agent (`mute`) writes no answer, so 64 cells
are incomplete and one more (b7-okay) is Blocked by its gate; each gives a reason line, and the Campaign must
still decide within the CRD (the property tests/operator_cluster/test_campaign_grid.py checks on a 16-cell
grid in `make test`). The runner is the fake one (canned summaries chosen by each cell's name), so the time is
the operator's, the Job controller's and the local kubelet's, not the scoring's.

Timed by this process's clock, from the Campaign's create call to its decision (Completed for generation 1).
The lower bound: a one-cell Campaign of the same spec (the incumbent and one cell: one wave of Evaluations)
measured --singles times on the idle cluster first; the grid runs ceil((cells + 1) / maxParallel) such waves,
so `waves x median(single)` is what it would take if maxParallel Evaluations ran as fast as one and the
operator cost nothing per cell. Also printed: the operator's CPU seconds and peak memory (VmHWM), per cell.

Exit 1 when the decision is missing or wrong (an eligible mute cell, a mute winner, the status refused);
nothing is asserted about time.
Run: `ASSAY_K8S_BIN_DIR=$(bash scripts/build-k8s.sh | tail -1) .venv/bin/python bench/campaign_grid.py
[--brains 64] [--max-parallel 16] [--singles 3]`.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.controlplane import running_control_plane
from assay_dev.cluster.node import local_node
from assay_dev.cluster.wait import wait_until
from assay_dev.images import build as images_build

Obj = dict[str, Any]
NAMESPACE = "bench-grid"
BRAIN = "brain-v1"


@dataclass
class GridRun:
    cells: int
    max_parallel: int
    singles: list[float] = field(default_factory=list)
    seconds: float = 0.0
    operator_cpu: float = 0.0
    hwm_kib: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def waves(self) -> int:
        return math.ceil((self.cells + 1) / self.max_parallel)

    @property
    def bound(self) -> float:
        return self.waves * statistics.median(self.singles)


def decide(api: KubeApi, operator: support.OperatorProcess, name: str, spec: Obj, timeout: float) -> Obj:
    """Create Campaign `name` and wait for its decision; returns the decided Campaign."""
    path = support.campaigns_path(NAMESPACE, name)
    api.create(support.campaigns_path(NAMESPACE), support.campaign(name, spec))

    def probe() -> Obj | None:
        if not operator.alive():
            raise RuntimeError(f"the operator died:\n{operator.log_tail()}")
        obj = support.get_or_none(api, path)
        return obj if obj is not None and support.campaign_decided(obj) else None

    decided: Obj = wait_until(probe, timeout=timeout, interval=0.2, what=f"the decision of {name}")
    return decided


def check(decided: Obj, brains: int, agents: tuple[str, ...]) -> list[str]:
    """What is wrong with the decision, if anything (the properties the 16-cell test asserts)."""
    status = decided.get("status") or {}
    cells = brains * len(agents)
    rows = {r["name"]: r for r in status.get("candidates") or []}
    ineligible = {name for name, row in rows.items() if not row.get("eligible")}
    expected = {f"b{i}-mute" for i in range(brains) if "mute" in agents}
    expected |= {"b7-okay"} if brains > 7 and "okay" in agents else set()
    problems = []
    if status.get("progress") != f"{cells + 1}/{cells + 1}":
        problems.append(f"progress {status.get('progress')}, not {cells + 1}/{cells + 1}")
    if ineligible != expected:
        problems.append(f"ineligible: {sorted(ineligible ^ expected)} differ from the canned summaries")
    if status.get("winner") is None or status.get("winner") in expected:
        problems.append(f"winner {status.get('winner')}")
    if any("StatusRefused" in str(c) for c in status.get("conditions") or []):
        problems.append("the apiserver refused a status")
    return problems


def run(
    plane: ControlPlane,
    scratch: Path,
    brains: int,
    agents: tuple[str, ...],
    max_parallel: int,
    singles: int,
    timeout: float,
    source: Path | None,
) -> GridRun:
    api = plane.api
    support.install_crd(api)
    support.bench_namespace(plane, NAMESPACE, BRAIN)
    operator = support.fake_runner_operator(plane, NAMESPACE, scratch / "operator.log", source)
    operator.start()
    out = GridRun(cells=brains * len(agents), max_parallel=max_parallel)
    try:
        for i in range(singles):
            one = support.mute_grid_spec(BRAIN, 1, ("okay",), max_parallel=max_parallel)
            started = time.monotonic()
            decide(api, operator, f"single-{i}", one, 300)
            out.singles.append(time.monotonic() - started)
        spec = support.mute_grid_spec(BRAIN, brains, agents, max_parallel=max_parallel)
        cpu_before = operator.cpu_seconds()
        started = time.monotonic()
        decided = decide(api, operator, "grid", spec, timeout)
        out.seconds = time.monotonic() - started
        out.operator_cpu = operator.cpu_seconds() - cpu_before
        out.hwm_kib = operator.memory_kib()[1]
        out.problems = check(decided, brains, agents)
    finally:
        operator.stop()
    return out


def report(result: GridRun, brains: int, agents: tuple[str, ...]) -> None:
    cells = result.cells
    print(
        f"campaign grid: {brains} brains x {len(agents)} agents = {cells} cells + the incumbent, "
        f"maxParallel {result.max_parallel}, fake runner"
    )
    single = statistics.median(result.singles)
    print(
        f"  one-cell Campaign (incumbent + 1 cell): median {single:6.1f} s  "
        f"(all: {', '.join(f'{s:.1f}' for s in result.singles)})"
    )
    print(
        f"  grid: create -> decision {result.seconds:7.1f} s   {result.seconds / (cells + 1):5.2f} s per "
        f"Evaluation"
    )
    print(
        f"  lower bound: {result.waves} waves x {single:.1f} s = {result.bound:6.1f} s   "
        f"ratio {result.seconds / result.bound:4.2f}"
    )
    per_evaluation = result.operator_cpu / (cells + 1) * 1000
    print(
        f"  operator: {result.operator_cpu:6.1f} CPU s ({per_evaluation:5.0f} ms per Evaluation), "
        f"VmHWM {result.hwm_kib / 1024:.0f} MiB"
    )
    print(f"  decision: {'; '.join(result.problems) or 'as expected'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--brains", type=int, default=64, help="grid brains (64 x 4 agents: the largest)")
    parser.add_argument(
        "--agents", default=",".join(support.MUTE_GRID_AGENTS), help="grid agents (one named `mute`)"
    )
    parser.add_argument("--max-parallel", type=int, default=16, help="the Campaign's maxParallel")
    parser.add_argument("--singles", type=int, default=3, help="one-cell Campaigns timed for the bound")
    parser.add_argument("--timeout", type=float, default=3300, help="seconds to wait for the decision")
    parser.add_argument(
        "--operator-source", type=Path, help="run another version of the operator (see bench/takeover.py)"
    )
    args = parser.parse_args()
    agents = tuple(args.agents.split(","))
    with running_control_plane() as plane, tempfile.TemporaryDirectory(prefix="assay-bench-") as scratch:
        runner = images_build.current(["runner"])[0]  # make images; built here when missing
        with local_node(plane, runner.base_image) as kubelet:
            support.register_images(kubelet, runner.reference)  # the fake runner, derived from the runner
            result = run(
                plane,
                Path(scratch),
                args.brains,
                agents,
                args.max_parallel,
                args.singles,
                args.timeout,
                args.operator_source,
            )
    report(result, args.brains, agents)
    return 1 if result.problems else 0


if __name__ == "__main__":
    sys.exit(main())
