"""Self-contained kubeconfig files (credentials inlined, so a file can be handed to any process)."""

from __future__ import annotations

import base64
from pathlib import Path

import yaml


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def write_kubeconfig(
    path: Path,
    *,
    server: str,
    ca: Path,
    user: str,
    client_cert: Path | None = None,
    client_key: Path | None = None,
    token: str | None = None,
    namespace: str | None = None,
) -> Path:
    """Write a kubeconfig with one cluster, one user (a client certificate or a bearer token), one context."""
    if (client_cert is None) == (token is None):
        raise ValueError("give either a client certificate or a token")
    credentials: dict[str, str] = {}
    if token is not None:
        credentials["token"] = token
    else:
        assert client_cert is not None and client_key is not None
        credentials["client-certificate-data"] = _b64(client_cert)
        credentials["client-key-data"] = _b64(client_key)
    context: dict[str, str] = {"cluster": "assay-test", "user": user}
    if namespace:
        context["namespace"] = namespace
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "assay-test", "cluster": {"server": server, "certificate-authority-data": _b64(ca)}}
        ],
        "users": [{"name": user, "user": credentials}],
        "contexts": [{"name": user, "context": context}],
        "current-context": user,
        "preferences": {},
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    return path
