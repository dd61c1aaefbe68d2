"""Every process-global singleton of the product has a `reset()`, and the autouse fixture in tests/conftest.py
calls it between tests, so no test sees what another left behind.

A singleton is a module-level `NAME = Class()` or a `functools.cache`d function in runner/, operator/ or dev/;
the check finds them in the sources, so a new one fails here until it is listed (or said to hold no state).
"""

from __future__ import annotations

import ast
import gc
import importlib
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import PROCESS_CACHES, PROCESS_SINGLETONS, reset_process_singletons

ROOT = Path(__file__).resolve().parents[2]
HOMES = {"assay_runner": ROOT / "runner", "assay_operator": ROOT / "operator", "assay_dev": ROOT / "dev"}
STATELESS = {
    ("assay_runner.io.answers", "DEFAULT_LIMITS"): "a frozen dataclass: the default limits, never changed",
    ("assay_runner.gateway.metering.reach", "PATIENCE"): "a frozen dataclass: how long to try connecting",
}


def found_singletons() -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    objects: set[tuple[str, str]] = set()
    caches: set[tuple[str, str]] = set()
    for package, home in HOMES.items():
        for path in (home / package).rglob("*.py"):
            parts = path.relative_to(home).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            for node in ast.parse(path.read_text(), str(path)).body:
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Name)
                    and node.value.func.id[:1].isupper()
                    and not node.value.args
                    and not node.value.keywords
                ):
                    objects.update((module, t.id) for t in node.targets if isinstance(t, ast.Name))
                elif isinstance(node, ast.FunctionDef) and any(
                    ast.unparse(d) in ("functools.cache", "cache") for d in node.decorator_list
                ):
                    caches.add((module, node.name))
    return objects, caches


def test_every_singleton_is_reset_between_tests() -> None:
    objects, caches = found_singletons()
    assert objects - set(STATELESS) == set(PROCESS_SINGLETONS)
    assert caches == set(PROCESS_CACHES)


@pytest.mark.parametrize("module, name", PROCESS_SINGLETONS)
def test_each_listed_singleton_has_a_reset(module: str, name: str) -> None:
    assert callable(getattr(getattr(importlib.import_module(module), name), "reset", None))


def test_the_reset_forgets_children_ends_idle_threads_and_resumes_the_collector() -> None:
    from assay_runner import processes
    from assay_runner.collector import SCHEDULE
    from assay_runner.judges.threads import JUDGE_THREADS

    processes.OWN.held.add(2**22 + 1)
    processes.CONTAINMENT.owner = True
    held = SCHEDULE.held  # pauses of code still running elsewhere (a judging thread over its budget) stay
    SCHEDULE.begin_startup()  # the console command's, never ended
    assert not gc.isenabled() and SCHEDULE.held == held + 1
    done = threading.Event()
    JUDGE_THREADS.submit(done.set)
    try:
        assert done.wait(30)
        deadline = time.monotonic() + 30
        while JUDGE_THREADS.idle == 0 and time.monotonic() < deadline:  # the thread goes idle after its job
            time.sleep(0.01)
        assert JUDGE_THREADS.idle >= 1
        judges = [t for t in threading.enumerate() if t.name == JUDGE_THREADS.name]
        reset_process_singletons()
        assert processes.OWN.pids() == frozenset()
        assert not processes.CONTAINMENT.owner
        assert SCHEDULE.held == held and gc.isenabled() == (held == 0)
        assert JUDGE_THREADS.idle == 0
        for thread in judges:  # an idle thread ends without waiting out its idle time
            thread.join(timeout=30 if thread.is_alive() else 0)
        assert any(not thread.is_alive() for thread in judges)
    finally:
        if SCHEDULE.held == 0:
            gc.enable()


def test_the_check_sees_a_singleton(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "assay_runner"
    package.mkdir()
    (package / "probe.py").write_text(
        "import functools\nSTATE = Registry()\nLIMIT = Limit(3)\n"
        "@functools.cache\ndef f() -> int:\n    return 1\n"
    )
    monkeypatch.setitem(HOMES, "assay_runner", tmp_path)
    monkeypatch.setitem(HOMES, "assay_operator", tmp_path / "none")
    monkeypatch.setitem(HOMES, "assay_dev", tmp_path / "none")
    assert found_singletons() == ({("assay_runner.probe", "STATE")}, {("assay_runner.probe", "f")})
