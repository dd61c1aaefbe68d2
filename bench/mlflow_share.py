"""Benchmark: MLflow's share of the judge phase, with and without logging, on the same answers.

Workload: the support-desk example's suite and answers, repeated to N cells (tickets x `--repetitions`; a
ticket copies one of the example's, its answer is the example's v1 answer for it), judged by `assay score`
with every judge of the example except the model judge (no network: the judge phase at its fastest, so
MLflow's share is at its largest; a model judge's calls to a real gateway make the phase far longer and
the share far smaller). Per size, the same command twice, each timed from process start to exit:
- without: `assay score ...` (the judge phase logs only when asked);
- with: the same plus `--mlflow sqlite:///...` (a fresh SQLite store per run, its tables already made
  as any store's are after its first run; `--store server` sends it to a real `mlflow server` on loopback).
Printed per size: both wall times, their difference (MLflow: its import, the run, params, metrics, tags,
traces and feedback) and the share of the phase that difference is; the same for the `assay` process's CPU
seconds (user + system), which a busy shared machine disturbs much less than wall time (a server's own CPU
is not in it); how many traces and feedback the store holds afterwards, and whether the run was logged.
Medians of `--runs` runs.
Ratios only: no time is asserted anywhere.
Run: `.venv/bin/python bench/mlflow_share.py [--cells 30 300 1500] [--repetitions 5] [--runs 1]
[--store sqlite|server]`. It needs only what `assay score` had before this benchmark, so the same file runs
against an older checkout: `/other/checkout/.venv/bin/python bench/mlflow_share.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "support-desk"
ASSAY = str(Path(sys.executable).with_name("assay"))
NETWORK_JUDGES = {"model"}


class _NoAliases(yaml.SafeDumper):
    """Copied tickets share their key objects; a suite may not use YAML aliases, so write each in full."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def make_suite(root: Path, tickets: int) -> Path:
    """The example suite with `tickets` tickets (copies of the example's, cycled) and no model judge."""
    suite_doc = yaml.safe_load((EXAMPLE / "suite.yaml").read_text())
    suite_doc["judges"] = [j for j in suite_doc["judges"] if j["type"] not in NETWORK_JUDGES]
    suite_doc.pop("ticketsFile", None)
    examples = yaml.safe_load((EXAMPLE / "tickets.yaml").read_text())["tickets"]
    suite_doc["tickets"] = [
        {**examples[i % len(examples)], "id": f"B-{i:04d}", "split": "validation"} for i in range(tickets)
    ]
    suite = root / "suite"
    suite.mkdir()
    (suite / "suite.yaml").write_text(yaml.dump(suite_doc, Dumper=_NoAliases, sort_keys=False))
    shutil.copytree(EXAMPLE / "kb", suite / "kb")
    return suite


def make_answers(root: Path, tickets: int, k: int) -> Path:
    examples = yaml.safe_load((EXAMPLE / "tickets.yaml").read_text())["tickets"]
    answers = root / "answers"
    for i in range(tickets):
        source = EXAMPLE / "answers" / "v1" / examples[i % len(examples)]["id"] / "answer.md"
        for rep in range(1, k + 1):
            cell = answers / f"B-{i:04d}" / str(rep)
            cell.mkdir(parents=True)
            shutil.copyfile(source, cell / "answer.md")
    return answers


@dataclass(frozen=True)
class Cost:
    wall: float
    cpu: float
    """User + system seconds of the `assay` process: what a busy, shared machine changes least."""


def timed(argv: list[str]) -> Cost:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 0 Pass, 1 Blocked: both are a judged phase
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Cost(wall, cpu)


def empty_sqlite_store(work: Path) -> Path:
    """A store with MLflow's tables made once: creating them takes seconds, a cost of the first run only."""
    template = work / "empty-mlflow.db"
    if not template.exists():
        code = "import sys; from mlflow import MlflowClient; MlflowClient(sys.argv[1]).search_experiments()"
        subprocess.run([sys.executable, "-c", code, f"sqlite:///{template}"], check=True, capture_output=True)
    return template


@contextlib.contextmanager
def store(kind: str, root: Path, template: Path) -> Iterator[str]:
    if kind == "sqlite":
        shutil.copyfile(template, root / "mlflow.db")
        yield f"sqlite:///{root / 'mlflow.db'}"
        return
    from assay_dev.servers.mlflow_server import mlflow_server

    with mlflow_server(root) as url:
        yield url


def stored(uri: str, out: Path) -> tuple[int, int, bool]:
    """(traces, feedback, logged) of the run the phase logged, read back from the store."""
    from mlflow import MlflowClient

    ref = json.loads((out / "result.json").read_text())["mlflow"]
    if not ref.get("logged"):
        return 0, 0, False
    client = MlflowClient(tracking_uri=uri)
    traces = feedback = 0
    token = None
    while True:
        page = client.search_traces(
            locations=[ref["experimentId"]], run_id=ref["runId"], max_results=500, page_token=token
        )
        traces += len(page)
        feedback += sum(1 for t in page for a in t.info.assessments if a.feedback is not None)
        token = page.token
        if not token:
            return traces, feedback, True


def one_size(work: Path, cells: int, k: int, runs: int, store_kind: str, template: Path) -> dict[str, object]:
    tickets = max(1, cells // k)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    suite, answers = make_suite(work, tickets), make_answers(work, tickets, k)
    base = [ASSAY, "score", str(suite), "--answers", str(answers), "--repetitions", str(k), "-q"]
    without: list[Cost] = []
    with_: list[Cost] = []
    counts = (0, 0, False)
    for run in range(runs):
        without.append(timed([*base, "--out", str(work / f"plain-{run}")]))
        root = work / f"store-{run}"
        root.mkdir()
        with store(store_kind, root, template) as uri:
            out = work / f"logged-{run}"
            with_.append(timed([*base, "--out", str(out), "--mlflow", uri, "--experiment", "bench"]))
            counts = stored(uri, out)
    plain = statistics.median(c.wall for c in without)
    logged = statistics.median(c.wall for c in with_)
    plain_cpu = statistics.median(c.cpu for c in without)
    logged_cpu = statistics.median(c.cpu for c in with_)
    return {
        "cells": tickets * k,
        "shape": f"{tickets}x{k}",
        "without": plain,
        "with": logged,
        "mlflow": logged - plain,
        "share": (logged - plain) / logged,
        "cpu_without": plain_cpu,
        "cpu_with": logged_cpu,
        "cpu_share": (logged_cpu - plain_cpu) / logged_cpu,
        "traces": counts[0],
        "feedback": counts[1],
        "logged": counts[2],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, nargs="+", default=[30, 300, 1500])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--store", choices=["sqlite", "server"], default="sqlite")
    args = parser.parse_args()
    print(f"{ASSAY}, store {args.store}, median of {args.runs} run(s)")
    print(
        f"{'cells':>6} {'shape':>8} {'without':>8} {'with':>8} {'MLflow':>8} {'share':>6}"
        f" {'cpu w/o':>8} {'cpu with':>8} {'share':>6} {'traces':>7} {'feedback':>8} logged"
    )
    with tempfile.TemporaryDirectory(prefix="assay-mlflow-share-") as tmp:
        template = empty_sqlite_store(Path(tmp))
        for cells in args.cells:
            work = Path(tmp) / str(cells)
            row = one_size(work, cells, args.repetitions, args.runs, args.store, template)
            print(
                f"{row['cells']:>6} {row['shape']:>8} {row['without']:>7.2f}s {row['with']:>7.2f}s"
                f" {row['mlflow']:>7.2f}s {row['share']:>6.0%} {row['cpu_without']:>7.2f}s"
                f" {row['cpu_with']:>7.2f}s {row['cpu_share']:>6.0%} {row['traces']:>7}"
                f" {row['feedback']:>8} {row['logged']}",
                flush=True,
            )


if __name__ == "__main__":
    main()
