"""Benchmark: where a cell's sandbox costs its agent's start, part by part (issue 36).

bench/run_overhead.py shows the sandbox's cost on a whole run (handover, wall, CPU); this shows what it is
made of, in a process that has imported what `assay run` has before its agents and frozen its heap out of
the collector (as the cell pool does), with the pool's two file-work threads idle beside it. Each variant
starts bench/fixed_time_agent.c (0 s) in its own workspace, as run_process does (new session, stdin from
/dev/null, stderr to a file), the variants interleaved, `--cells` times each:

- off: no sandbox. No preexec_fn, so subprocess starts the agent with vfork (posix_spawn's way).
- fork: a preexec_fn that does nothing. Any preexec_fn makes subprocess fork() the runner instead: the
  runner's page tables are copied, the child runs Python's after-fork work, then its exec tears the copy
  down, and every page the runner writes afterwards faults once (fork write-protected them all).
- on: the cell's sandbox as `assay run` makes it (`Sandbox.for_cell`, then its preexec_fn).
- launcher: the same ruleset, applied by the sandbox's launcher (assay_runner.sandbox.launcher: the one
  `make launcher` built, else compiled here by scripts/build-launcher.sh), started with vfork, as
  `assay run` starts its agents when the launcher is there.

Figures (medians, and the 25th-75th percentiles): build = `for_cell` (the ruleset, in the runner);
spawn = the Popen call (the event loop is blocked that long); to start = from before `for_cell` to the
agent's own start stamp; child CPU = the agent's process, its Python part before exec included; after =
the runner's faults and time for one fixed walk over its heap right after the spawn (what the loop pays
for the pages fork write-protected).
Run: `PYTHONPATH=runner .venv/bin/python bench/sandbox_spawn.py [--cells 300]`.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import assay_runner.agents.command
import assay_runner.cli
import assay_runner.run.evaluation
import assay_runner.run.scheduler  # noqa: F401  (the modules a run has imported before its agents)
from assay_runner.sandbox import landlock, launcher
from assay_runner.sandbox.policy import Confined, Sandbox

BENCH = Path(__file__).resolve().parent
Prepared = tuple[list[str], Confined | None, Callable[[], None] | None, launcher.Launch | None]
"""What a variant starts: its argv, the cell's sandbox (if any), the preexec_fn (if any) and the launch
through the launcher (if any)."""


def compile_program(source: Path, directory: Path) -> Path | None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    program = directory / source.stem
    subprocess.run([compiler, "-O2", "-o", str(program), str(source)], check=True)
    return program


def anonymous_mib() -> float:
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("Anonymous:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def walk_heap() -> int:
    """A fixed walk over the runner's heap: every module's namespace, each value's reference count
    written (what the loop's next steps do to the pages they touch)."""
    count = 0
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            count += value is not None
    return count


class Variant:
    def __init__(self, name: str, prepare: Callable[[Path], Prepared]) -> None:
        self.name = name
        self.prepare = prepare
        self.rows: list[tuple[float, ...]] = []


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", type=int, default=300, help="agent starts per variant")
    args = parser.parse_args()
    abi = landlock.abi()
    if abi < 1:
        raise SystemExit("this kernel has no Landlock: nothing to measure")
    with tempfile.TemporaryDirectory(prefix="assay-bench-spawn-") as directory:
        root = Path(directory)
        agent = compile_program(BENCH / "fixed_time_agent.c", root)
        if agent is None:
            raise SystemExit("no C compiler (cc) on PATH: the benchmark's agent is a C program")
        native = launcher.find() or build_launcher(root)
        workspaces = root / "run" / "workspaces"
        workspaces.mkdir(parents=True)
        sandbox = Sandbox(abi, [str(root / "suite"), str(root / "run")])
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root), "LANG": "C.UTF-8"}
        argv = [str(agent), "0"]
        gateway = "http://127.0.0.1:4000/v1"

        def off(workspace: Path) -> Prepared:
            return argv, None, None, None

        def fork(workspace: Path) -> Prepared:
            return argv, None, _nothing, None

        def on(workspace: Path) -> Prepared:
            confined = sandbox.for_cell(workspace, argv, env, gateway)
            return argv, confined, confined.preexec, None

        def through_launcher(workspace: Path) -> Prepared:
            confined = sandbox.for_cell(workspace, argv, env, gateway)
            os.environ[launcher.LAUNCHER_ENV] = native
            launch = launcher.launch_for(confined.preexec, argv, env)
            assert launch is not None
            return launch.argv, confined, None, launch

        variants = [Variant("off", off), Variant("fork", fork), Variant("on", on)]
        variants.append(Variant("launcher", through_launcher))
        idle = threading.Event()
        for name in ("make", "check"):  # the cell pool's two file-work threads, waiting
            threading.Thread(target=idle.wait, name=name, daemon=True).start()
        gc.freeze()  # as the cell pool does when start-up ends
        walk_heap()
        print(
            f"runner: {anonymous_mib():.1f} MiB anonymous memory, {len(sys.modules)} modules, "
            f"{threading.active_count()} threads; Landlock ABI {abi}; python {platform.python_version()}; "
            f"load {os.getloadavg()[0]:.2f}"
        )
        for cell in range(args.cells):
            for variant in variants:
                variant.rows.append(start_one(variant, workspaces / f"{variant.name}-{cell}", env))
        idle.set()
        print(f"load {os.getloadavg()[0]:.2f} at the end; {args.cells} starts each, interleaved")
        header = ("build ms", "spawn ms", "to start ms", "child CPU ms", "after: faults", "after: ms")
        print(f"{'':>9}" + "".join(f"{name:>22}" for name in header))
        for variant in variants:
            columns = list(zip(*variant.rows, strict=True))
            print(f"{variant.name:>9}" + "".join(f"{_spread(column):>22}" for column in columns))
    return 0


def start_one(variant: Variant, workspace: Path, env: dict[str, str]) -> tuple[float, ...]:
    workspace.mkdir()
    wall_start = time.time()
    began = time.perf_counter()
    argv, confined, preexec, launch = variant.prepare(workspace)
    built = time.perf_counter()
    pass_fds = launch.pass_fds if launch is not None else ()
    with tempfile.TemporaryFile(dir=workspace) as stderr:
        process = subprocess.Popen(
            argv,
            cwd=workspace,
            env=env,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=preexec,  # noqa: PLW1509 (what is measured; the runner's threads are idle)
            pass_fds=pass_fds,
        )
        spawned = time.perf_counter()
        if launch is not None:
            launch.started()
        if confined is not None:
            confined.close()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        walk_began = time.perf_counter()
        walk_heap()
        walked = time.perf_counter()
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if launch is not None:
            failure = launch.failure()
            launch.close()
            if failure:
                raise SystemExit(f"{variant.name}: {failure}")
        if process.returncode != 0:
            raise SystemExit(f"{variant.name}: the agent exited {process.returncode}")
        stderr.seek(0)
        kind, stamp = stderr.read().split(b"\n", 1)[0].split()
        assert kind == b"start"
    shutil.rmtree(workspace)
    return (
        1000 * (built - began),
        1000 * (spawned - built),
        1000 * (float(stamp) - wall_start),
        1000 * (usage.ru_utime + usage.ru_stime),
        float(faults),
        1000 * (walked - walk_began),
    )


def build_launcher(directory: Path) -> str:
    """The launcher, compiled by the project's script, when `make launcher` has not built it."""
    target = directory / "assay-confine"
    script = BENCH.parent / "scripts" / "build-launcher.sh"
    subprocess.run(["bash", str(script), str(target), "any"], check=True)
    return str(target)


def _nothing() -> None:
    pass


def _spread(values: tuple[float, ...]) -> str:
    q1, median, q3 = statistics.quantiles(values, n=4)
    return f"{median:.3f} ({q1:.2f}-{q3:.2f})" if median < 100 else f"{median:.0f} ({q1:.0f}-{q3:.0f})"


if __name__ == "__main__":
    sys.exit(main())
