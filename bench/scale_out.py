"""Benchmark: an evaluation of real size answered by 1, 5 and 10 answer pods on the local control plane, each
against its ideal share of the work.

The workload: a suite of --tickets tickets (default 300) x --repetitions (5) = 1500 cells, answered by a
command agent that sleeps a fixed time per cell (--agent-seconds) and writes a passing answer, at most
--concurrency cells at once per pod (4), judged by deterministic judges (no model, no MLflow). The real
operator, the real runner image under runc, a claim from the real local-path provisioner.

For each number of answer pods P, from watch events this process receives (one clock):
- start: the answer Job created -> the last of its pods' answer containers running (the claim bound, the
  sandbox, the suite's split, the runner's start);
- answer: the answer Job created -> Complete;
- ideal: the largest shard's cells / concurrency (rounded up) x the agent's time — cells / (P x concurrency)
  x agent time when the shards divide evenly;
- ratio: answer / (ideal + start); the goal is 1.1 or less;
- judge: the judge Job created -> Complete (one pod judging every cell), and the operator's step between the
  two Jobs (answers in -> judge Job created);
- total: the Evaluation created -> its verdict.

Prints figures and ratios; asserts nothing about time (exit 1 only if a run gets no verdict or is not Pass).
Run: `ASSAY_K8S_BIN_DIR=$(bash scripts/build-k8s.sh | tail -1) .venv/bin/python bench/scale_out.py
[--pods 1,5,10] [--agent-seconds 1.0]`.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.controlplane import running_control_plane
from assay_dev.cluster.node import local_node
from assay_dev.images import build as images_build

Obj = dict[str, Any]
NAMESPACE = "scale-out"
ANSWER = (
    "## Summary\nExport from the app; see [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nDone.\n"
)
JUDGES = [
    {"name": "kb", "type": "kb_citation", "weight": 0.5, "threshold": 0.9},
    {"name": "facts", "type": "must_mention", "weight": 0.5, "threshold": 0.9},
    {"name": "exit_code", "type": "exit_code", "weight": 0, "threshold": 1.0},
]


def suite_config_maps(tickets: int) -> list[Obj]:
    """A synthetic suite of `tickets` tickets (one ConfigMap, split by the operator) and its KB."""
    suite = {
        "name": "scale-out",
        "judges": JUDGES,
        "gate": {"minScore": 0.9, "ticketFloor": 0.7},
        "tickets": [
            {
                "id": f"T-{i:04d}",
                "split": "validation",
                "question": f"How do I export notebook {i}?",
                "key": {"kb": ["KB-1"], "mustMention": ["Settings > Export"]},
            }
            for i in range(1, tickets + 1)
        ],
    }
    kb = "# KB-1: Export\nOpen Settings > Export and pick a format.\n"
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "suite"},
            "data": {"suite.yaml": yaml.safe_dump(suite)},
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kb"}, "data": {"KB-1.md": kb}},
    ]


def spec(pods: int, repetitions: int, concurrency: int, seconds: float) -> Obj:
    write = f"sleep {seconds}; cat > {{answer_file}} <<'EOF'\n{ANSWER}EOF\n"
    return {
        "brain": {"configMap": {"name": "brain"}},
        "suite": {"configMap": {"name": "suite"}, "kbConfigMap": {"name": "kb"}},
        "agent": {"kind": "command", "model": "none", "command": ["sh", "-c", write], "timeoutSeconds": 600},
        "repetitions": repetitions,
        "concurrency": concurrency,
        "parallelism": pods,
        "resources": {"cpu": "1", "memory": "1Gi"},
        "deadlineSeconds": 7200,
    }


class Clock:
    """The first time (monotonic) each event of interest was seen in a watch stream."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.job_added: dict[str, float] = {}
        self.job_done: dict[str, float] = {}
        self.container_running: dict[str, float] = {}  # by answer pod name
        self.pod_job: dict[str, str] = {}
        self.verdict: dict[str, float] = {}

    def _first(self, table: dict[str, float], key: str) -> None:
        with self.lock:
            table.setdefault(key, time.monotonic())

    def on_job(self, kind: str, obj: Obj) -> None:
        name = obj["metadata"]["name"]
        self._first(self.job_added, name)
        conditions = (obj.get("status") or {}).get("conditions") or []
        if any(c["type"] in ("Complete", "Failed") and c["status"] == "True" for c in conditions):
            self._first(self.job_done, name)

    def on_pod(self, kind: str, obj: Obj) -> None:
        statuses = (obj.get("status") or {}).get("containerStatuses") or []
        if any(s["name"] == "answer" and "running" in s.get("state", {}) for s in statuses):
            name = obj["metadata"]["name"]
            self._first(self.container_running, name)
            with self.lock:
                self.pod_job[name] = (obj["metadata"].get("labels") or {}).get("job-name", "")

    def on_evaluation(self, kind: str, obj: Obj) -> None:
        if support.has_verdict()(obj):
            self._first(self.verdict, obj["metadata"]["name"])

    def started(self, job: str) -> float:
        with self.lock:
            return max(at for pod, at in self.container_running.items() if self.pod_job.get(pod) == job)


@dataclass
class Figures:
    pods: int
    cells: int
    ideal: float
    start: float
    answer: float
    between: float
    judge: float
    total: float
    verdict: str
    cells_summary: str

    @property
    def ratio(self) -> float:
        return self.answer / (self.ideal + self.start)


def wait_for(what: str, probe: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.2)


def one_run(api: KubeApi, clock: Clock, pods: int, args: argparse.Namespace) -> Figures:
    name = f"p{pods}"
    cells = args.tickets * args.repetitions
    largest = math.ceil(cells / pods)
    ideal = math.ceil(largest / args.concurrency) * args.agent_seconds
    created = time.monotonic()
    support.create_evaluation(
        api, NAMESPACE, name, spec(pods, args.repetitions, args.concurrency, args.agent_seconds)
    )
    timeout = 4 * ideal + 900
    wait_for(f"the verdict of {name}", lambda: name in clock.verdict, timeout)
    answer_job, judge_job = support.answer_job(name), f"{name}-g1"
    status = api.get(support.evaluations_path(NAMESPACE, name))["status"]
    figures = Figures(
        pods=pods,
        cells=cells,
        ideal=ideal,
        start=clock.started(answer_job) - clock.job_added[answer_job],
        answer=clock.job_done[answer_job] - clock.job_added[answer_job],
        between=clock.job_added[judge_job] - clock.job_done[answer_job],
        judge=clock.job_done[judge_job] - clock.job_added[judge_job],
        total=clock.verdict[name] - created,
        verdict=str(status.get("verdict")),
        cells_summary=str((status.get("answer") or {}).get("cellsSummary")),
    )
    api.delete(support.evaluations_path(NAMESPACE, name))  # its claim goes with it
    return figures


def run(plane: ControlPlane, scratch: Path, args: argparse.Namespace) -> list[Figures]:
    api = plane.api
    support.install_crd(api)
    support.bench_namespace(plane, NAMESPACE, "brain")
    for config_map in suite_config_maps(args.tickets):
        api.create(support.config_maps_path(NAMESPACE), config_map)
    operator = support.OperatorProcess(
        plane, [NAMESPACE], scratch / "operator.log", image=support.images().runner
    )
    operator.start()
    clock = Clock()
    out = []
    try:
        with (
            support.recording(plane, support.jobs_path(NAMESPACE), clock.on_job),
            support.recording(plane, support.pods_path(NAMESPACE), clock.on_pod),
            support.recording(plane, support.evaluations_path(NAMESPACE), clock.on_evaluation),
        ):
            for pods in args.pods:
                figures = one_run(api, clock, pods, args)
                report_one(figures, args)
                out.append(figures)
        if operator.problems():
            print("operator log problems:\n" + "\n".join(operator.problems()[:10]))
    finally:
        operator.stop()
    return out


def report_one(f: Figures, args: argparse.Namespace) -> None:
    print(
        f"{f.pods:3d} answer pod(s): answer {f.answer:7.1f} s = {f.ratio:4.2f} x (ideal {f.ideal:6.1f} s "
        f"+ start {f.start:5.1f} s); judge Job {f.judge:5.1f} s (+{f.between:.1f} s from answers in to "
        "judge Job); "
        f"total {f.total:7.1f} s; {f.verdict}, cells {f.cells_summary}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tickets", type=int, default=300)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=4, help="cells at once per answer pod")
    parser.add_argument("--agent-seconds", type=float, default=1.0, help="the agent's time per cell")
    parser.add_argument(
        "--pods", type=lambda text: [int(p) for p in text.split(",")], default=[1, 5, 10], help="e.g. 1,5,10"
    )
    args = parser.parse_args()
    cells = args.tickets * args.repetitions
    print(
        f"{args.tickets} tickets x {args.repetitions} repetitions = {cells} cells; agent "
        f"{args.agent_seconds:g} s per cell; {args.concurrency} at once per pod",
        flush=True,
    )
    with running_control_plane() as plane, tempfile.TemporaryDirectory(prefix="assay-bench-") as scratch:
        runner = images_build.current(["runner"])[0]  # make images; built here when missing
        with local_node(plane, runner.base_image) as kubelet:
            support.register_images(kubelet, runner.reference)
            results = run(plane, Path(scratch), args)
    print("\npods  ideal+start  answer  ratio  judge")
    for f in results:
        print(f"{f.pods:4d}  {f.ideal + f.start:11.1f}  {f.answer:6.1f}  {f.ratio:5.2f}  {f.judge:5.1f}")
    return 0 if all(f.verdict == "Pass" for f in results) else 1


if __name__ == "__main__":
    sys.exit(main())
