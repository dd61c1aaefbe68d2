"""Coalesced Campaign reconciles: requests that arrive while one runs become exactly one more run; a parsed
Evaluation is reused only while its resourceVersion is unchanged."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from assay_operator.campaign import children
from assay_operator.campaign.children import ParsedCache
from assay_operator.coalesce import Coalescer


def test_requests_during_a_run_become_one_more_run() -> None:
    coalescer = Coalescer()
    started, release = threading.Event(), threading.Event()
    runs: list[int] = []

    def work() -> None:
        runs.append(len(runs))
        if len(runs) == 1:
            started.set()
            assert release.wait(10)

    first = threading.Thread(target=lambda: coalescer.run("c", work))
    first.start()
    assert started.wait(10)
    # Ten events while the first run is busy: none runs itself, all fold into one later run.
    assert [coalescer.run("c", work) for _ in range(10)] == [False] * 10
    assert coalescer.running("c")
    release.set()
    first.join(10)
    assert runs == [0, 1] and not coalescer.running("c")
    # Idle again: the next request runs at once.
    assert coalescer.run("c", work) and runs == [0, 1, 2]


def test_other_keys_are_not_folded() -> None:
    coalescer = Coalescer()
    inner: list[bool] = []
    assert coalescer.run("a", lambda: inner.append(coalescer.run("b", lambda: None)))
    assert inner == [True]


def test_a_failed_run_frees_its_key() -> None:
    coalescer = Coalescer()

    def fail() -> None:
        raise RuntimeError("apiserver away")

    with pytest.raises(RuntimeError):
        coalescer.run("c", fail)
    assert not coalescer.running("c")
    assert coalescer.run("c", lambda: None)


def evaluation(uid: str, version: str, verdict: str | None = None) -> dict[str, Any]:
    status = {"verdict": verdict} if verdict else {}
    return {
        "metadata": {"name": f"e-{uid}", "uid": uid, "resourceVersion": version, "generation": 1},
        "spec": {},
        "status": status,
    }


def test_parsed_evaluations_are_kept_by_resource_version(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = children.parse_child

    def counting(obj: Any) -> children.Child:
        parsed.append(obj["metadata"]["resourceVersion"])
        return real(obj)

    monkeypatch.setattr(children, "parse_child", counting)
    cache = ParsedCache(size=2)
    first = cache.parse(evaluation("u1", "10"))
    assert cache.parse(evaluation("u1", "10")) is first and parsed == ["10"]
    # A write changes the resourceVersion: parsed again, with the new status.
    changed = cache.parse(evaluation("u1", "11", verdict="Pass"))
    assert changed.status.verdict == "Pass" and parsed == ["10", "11"]
    # Bounded: the least recently used entry goes.
    cache.parse(evaluation("u2", "12"))
    assert len(cache) == 2
    cache.parse(evaluation("u1", "10"))
    assert parsed == ["10", "11", "12", "10"]


def test_objects_without_a_resource_version_are_never_kept() -> None:
    cache = ParsedCache(size=4)
    obj = evaluation("u1", "")
    assert cache.parse(obj) is not cache.parse(obj) and len(cache) == 0
