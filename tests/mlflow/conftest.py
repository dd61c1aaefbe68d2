"""A real `mlflow server` on loopback, started once for the MLflow tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_dev.servers.mlflow_server import mlflow_server as running_mlflow_server

pytest.register_assert_rewrite("tests.mlflow.readback")  # its asserts say what differed


@pytest.fixture(scope="session")
def mlflow_server_with_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The server's URL, and its SQLite database (for a test that makes the store itself fail)."""
    root = tmp_path_factory.mktemp("mlflow-server")
    with running_mlflow_server(root) as url:
        yield url, root / "mlflow.db"


@pytest.fixture(scope="session")
def mlflow_server(mlflow_server_with_store: tuple[str, Path]) -> str:
    return mlflow_server_with_store[0]
