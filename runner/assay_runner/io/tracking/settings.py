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


def _credential_from_file() -> None:
    """MLflow's client reads its credential from the environment only; on the cluster it is a Secret mounted
    as a file (never an environment value in the pod spec), named by `MLFLOW_TRACKING_TOKEN_FILE`. The file
    holds a bearer token, or `username:password` for MLflow's basic-auth app (`mlflow server --app-name
    basic-auth`): a bearer token has no colon (RFC 6750's token68), so the two cannot be confused. A
    credential already in the environment wins."""
    path = os.environ.get(TOKEN_FILE_ENV)
    if not path or {"MLFLOW_TRACKING_TOKEN", "MLFLOW_TRACKING_USERNAME"} & os.environ.keys():
        return
    credential = Path(path).read_text(encoding="utf-8").strip()
    username, colon, password = credential.partition(":")
    if colon:
        if not username or not password:  # never the text itself: it is a secret
            raise ValueError(f"{TOKEN_FILE_ENV} ({path}): `username:password` with an empty part")
        os.environ["MLFLOW_TRACKING_USERNAME"] = username
        os.environ["MLFLOW_TRACKING_PASSWORD"] = password
    elif credential:
        os.environ["MLFLOW_TRACKING_TOKEN"] = credential


def client_settings() -> None:
    """Before the first client is made: the credential, and the HTTP retries a runner's deadline affords."""
    _credential_from_file()
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
