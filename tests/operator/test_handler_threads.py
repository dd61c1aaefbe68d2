"""How many handlers the operator runs at once: kopf's thread pool for synchronous handlers, and the
Kubernetes client's connection pool those threads share (a burst of Evaluations must not queue behind
kopf's default of CPUs + 4 threads, nor open a throw-away connection per request past the pool)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import kopf
import pytest

from assay_operator import kube, metrics, startup


def test_kopf_runs_the_handlers_in_the_operators_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(startup, "settings", lambda: SimpleNamespace(metrics_port=0))
    monkeypatch.setattr(startup, "login", lambda: None)
    monkeypatch.setattr(metrics, "serve", lambda port: None)
    settings = kopf.OperatorSettings()
    startup.configure(settings=settings)
    assert settings.execution.max_workers == startup.HANDLER_THREADS
    executor = settings.execution.executor
    assert isinstance(executor, ThreadPoolExecutor)
    assert executor._max_workers == startup.HANDLER_THREADS


def test_every_handler_thread_keeps_a_connection_of_the_clients_pool() -> None:
    pool = kube.api_client().rest_client.pool_manager
    assert pool.connection_pool_kw["maxsize"] == kube.CONNECTIONS
    assert kube.CONNECTIONS > startup.HANDLER_THREADS
