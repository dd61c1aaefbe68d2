"""A real `mlflow server` on loopback with a SQLite store: for the MLflow tests and `make demo`.

With `auth`, it is MLflow's own basic-auth app (`--app-name basic-auth`, the `mlflow[auth]` extra) set up
the way docs/operating.md tells an install to: no permission by default, so an anonymous request gets 401 and
an account nobody granted anything gets 403; one writer account (the runner's credential) that may edit
every experiment; the readers the install names, who may read them. What it sets up is what the docs say,
done through MLflow's own REST API.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from assay_dev.cluster.ports import free_port

READY_SECONDS = 120
# The role every reader is given, and the writer's.
READERS_ROLE = "assay-readers"
WRITER_ROLE = "assay-writer"


@dataclass(frozen=True)
class Account:
    """An account of the server; its password is a fresh random one unless given."""

    username: str
    password: str = field(default_factory=lambda: secrets.token_urlsafe(18))

    @property
    def credential(self) -> str:
        """What the runner's credential file holds for this account (MLFLOW_TRACKING_TOKEN_FILE)."""
        return f"{self.username}:{self.password}"

    @property
    def basic(self) -> httpx.BasicAuth:
        return httpx.BasicAuth(self.username, self.password)


@dataclass(frozen=True)
class MlflowAuth:
    """The accounts of an authenticated server: its admin, the runner's writer, the named readers."""

    writer: Account = field(default_factory=lambda: Account("assay-runner"))
    readers: tuple[Account, ...] = field(default_factory=lambda: (Account("release-manager"),))
    admin: Account = field(default_factory=lambda: Account("admin"))


@contextlib.contextmanager
def mlflow_server(root: Path, auth: MlflowAuth | None = None) -> Iterator[str]:
    """Start the server with its store, artifacts and log under `root`; yield its URL once /health answers
    (and, with `auth`, once its accounts exist); stop it at the end. A server that exits or never gets ready
    raises, with the tail of its log."""
    port = free_port()
    log_path = root / "mlflow-server.log"
    mlflow = Path(sys.executable).with_name("mlflow")
    command = [
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
    ]
    environment = dict(os.environ)
    if auth is not None:
        command += ["--app-name", "basic-auth"]
        environment.update(_auth_environment(root, auth))
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, cwd=root, env=environment, start_new_session=True
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_ready(process, url, log_path)
            if auth is not None:
                _set_up_accounts(url, auth)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _auth_environment(root: Path, auth: MlflowAuth) -> dict[str, str]:
    """The basic-auth app's configuration: an ini file whose default permission is none, the first admin's
    password, and the key its CSRF protection signs with."""
    config = root / "basic_auth.ini"
    config.write_text(
        "[mlflow]\n"
        "default_permission = NO_PERMISSIONS\n"
        f"database_uri = sqlite:///{root / 'basic_auth.db'}\n"
        f"admin_username = {auth.admin.username}\n"
        "authorization_function = mlflow.server.auth:authenticate_request_basic_auth\n"
    )
    return {
        "MLFLOW_AUTH_CONFIG_PATH": str(config),
        "MLFLOW_AUTH_ADMIN_PASSWORD": auth.admin.password,
        "MLFLOW_FLASK_SERVER_SECRET_KEY": secrets.token_hex(32),
    }


def _set_up_accounts(url: str, auth: MlflowAuth) -> None:
    """As the admin: create the writer and the readers, a role that may edit every experiment for the writer
    and one that may read every experiment for the readers (MLflow's REST API, as docs/operating.md shows)."""
    with httpx.Client(base_url=url, auth=auth.admin.basic, timeout=30) as admin:

        def call(path: str, body: dict[str, Any]) -> dict[str, Any]:
            response = admin.post(path, json=body)
            if response.status_code != 200:
                raise RuntimeError(f"mlflow {path}: {response.status_code} {response.text[:300]}")
            answer: dict[str, Any] = response.json()
            return answer

        for account in (auth.writer, *auth.readers):
            call("/api/2.0/mlflow/users/create", {"username": account.username, "password": account.password})
        for role, permission, members in (
            (WRITER_ROLE, "EDIT", (auth.writer,)),
            (READERS_ROLE, "READ", auth.readers),
        ):
            created = call("/api/3.0/mlflow/roles/create", {"workspace": "default", "name": role})
            role_id = created["role"]["id"]
            grant = {"resource_type": "experiment", "resource_pattern": "*", "permission": permission}
            call("/api/3.0/mlflow/roles/permissions/add", {"role_id": role_id, **grant})
            for member in members:
                call("/api/3.0/mlflow/roles/assign", {"username": member.username, "role_id": role_id})


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
