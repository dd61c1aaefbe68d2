"""Where the runner logs and how MLflow's client is set up for it: the store, the token, the retries."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_EXPERIMENT = "assay"
TOKEN_FILE_ENV = "MLFLOW_TRACKING_TOKEN_FILE"


def default_tracking_uri() -> str:
    """`MLFLOW_TRACKING_URI` when set, else a SQLite store in the working directory."""
    return os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{Path.cwd() / 'mlflow.db'}"


def _token_from_file() -> None:
    """MLflow reads its bearer token from `MLFLOW_TRACKING_TOKEN` only; on the cluster the token is a Secret
    mounted as a file (never an environment value in the pod spec), named by `MLFLOW_TRACKING_TOKEN_FILE`."""
    path = os.environ.get(TOKEN_FILE_ENV)
    if path and "MLFLOW_TRACKING_TOKEN" not in os.environ:
        token = Path(path).read_text(encoding="utf-8").strip()
        if token:
            os.environ["MLFLOW_TRACKING_TOKEN"] = token


def client_settings() -> None:
    """Before the first client is made: the token, and HTTP retries a runner pod's deadline can afford."""
    _token_from_file()
    # MLflow's HTTP client retries for minutes by default; a runner pod has a deadline to keep.
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "3")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "1")
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "20")


@dataclass
class RunInfo:
    """What the logger knows beyond the result: where it logs, and how the evaluation was run."""

    tracking_uri: str
    experiment: str = DEFAULT_EXPERIMENT
    run_name: str | None = None
    params: dict[str, str] = field(default_factory=dict)
    artifacts: list[Path] = field(default_factory=list)
