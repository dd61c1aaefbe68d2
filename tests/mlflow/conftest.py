"""A real `mlflow server` on loopback, started once for the MLflow tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay_dev.servers.mlflow_server import mlflow_server as running_mlflow_server


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_mlflow_server(tmp_path_factory.mktemp("mlflow-server")) as url:
        yield url
