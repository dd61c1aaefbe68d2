"""A real `mlflow server` on loopback with a SQLite store: for the MLflow tests and `make demo`."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from assay_dev.cluster.ports import free_port

READY_SECONDS = 120


@contextlib.contextmanager
def mlflow_server(root: Path) -> Iterator[str]:
    """Start the server with its store, artifacts and log under `root`; yield its URL once /health answers;
    stop it at the end. A server that exits or never gets ready raises, with the tail of its log."""
    port = free_port()
    log_path = root / "mlflow-server.log"
    mlflow = Path(sys.executable).with_name("mlflow")
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                str(mlflow),
                "server",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                "1",
                "--backend-store-uri",
                f"sqlite:///{root / 'mlflow.db'}",
                "--artifacts-destination",
                str(root / "artifacts"),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=root,
            start_new_session=True,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_ready(process, url, log_path)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _wait_ready(process: subprocess.Popen[bytes], url: str, log_path: Path) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"mlflow server exited: {log_path.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"mlflow server not ready: {log_path.read_text(errors='replace')[-3000:]}")
        time.sleep(0.5)
