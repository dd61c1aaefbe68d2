"""A small typed JSON client for the Kubernetes API, over httpx.

The harness needs a handful of verbs (get, list, create, merge-patch, delete, watch) on a few resources and
full control of content types and subresources; the generated `kubernetes` client adds little here.
Objects are plain dicts, as the API returns them.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

Obj = dict[str, Any]


class ApiError(Exception):
    """A non-2xx answer from the apiserver; `status` is the HTTP code, `body` the Status object if any."""

    def __init__(self, method: str, path: str, status: int, body: Any) -> None:
        message = body.get("message") if isinstance(body, dict) else body
        super().__init__(f"{method} {path}: {status} {message}")
        self.status = status
        self.body = body

    @property
    def reason(self) -> str:
        return str(self.body.get("reason", "")) if isinstance(self.body, dict) else ""


@dataclass(frozen=True)
class Credentials:
    """How to reach and authenticate to an apiserver."""

    server: str
    ca: Path
    client_cert: Path | None = None
    client_key: Path | None = None
    token: str | None = None


def pods_path(namespace: str, name: str = "", subresource: str = "") -> str:
    return _join(f"/api/v1/namespaces/{namespace}/pods", name, subresource)


def _join(base: str, name: str, subresource: str) -> str:
    path = f"{base}/{name}" if name else base
    return f"{path}/{subresource}" if subresource else path


class KubeApi:
    """Thread-safe: httpx.Client pools connections across threads."""

    def __init__(self, credentials: Credentials, timeout: float = 30.0) -> None:
        context = ssl.create_default_context(cafile=str(credentials.ca))
        if credentials.client_cert is not None:
            context.load_cert_chain(str(credentials.client_cert), str(credentials.client_key))
        headers = {"Accept": "application/json"}
        if credentials.token is not None:
            headers["Authorization"] = f"Bearer {credentials.token}"
        self._client = httpx.Client(
            base_url=credentials.server, verify=context, headers=headers, timeout=timeout
        )
        self._watches: set[httpx.Response] = set()
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            watches = list(self._watches)
        for response in watches:
            # Closing the response from another thread does not wake a thread blocked reading it;
            # shutting the socket down does.
            stream = response.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self._client.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: dict[str, Any] | None = None,
        content_type: str = "application/json",
    ) -> Obj:
        content = None if body is None else json.dumps(body)
        headers = {"Content-Type": content_type} if content is not None else None
        response = self._client.request(method, path, content=content, params=params, headers=headers)
        if response.status_code >= 300:
            raise ApiError(method, path, response.status_code, _json_or_text(response))
        result: Obj = response.json() if response.content else {}
        return result

    def get_text(self, path: str) -> str:
        """A non-JSON endpoint such as /readyz or /version?output=..."""
        response = self._client.get(path, headers={"Accept": "*/*"})
        if response.status_code >= 300:
            raise ApiError("GET", path, response.status_code, response.text)
        return response.text

    def get(self, path: str, **params: Any) -> Obj:
        return self.request("GET", path, params=params or None)

    def create(self, path: str, body: Obj) -> Obj:
        return self.request("POST", path, body=body)

    def merge_patch(self, path: str, body: Obj) -> Obj:
        return self.request("PATCH", path, body=body, content_type="application/merge-patch+json")

    def delete(self, path: str, body: Obj | None = None) -> Obj:
        return self.request("DELETE", path, body=body)

    def watch(self, path: str, resource_version: str, timeout_seconds: int = 60) -> Iterator[Obj]:
        """Yield watch events ({type, object}) from `resource_version` until the server ends the watch."""
        params = {
            "watch": "1",
            "resourceVersion": resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(timeout_seconds),
        }
        timeout = httpx.Timeout(10.0, read=timeout_seconds + 30.0)
        with self._client.stream("GET", path, params=params, timeout=timeout) as response:
            if response.status_code >= 300:
                response.read()
                raise ApiError("WATCH", path, response.status_code, _json_or_text(response))
            with self._lock:
                self._watches.add(response)
            try:
                for line in response.iter_lines():
                    if line:
                        yield json.loads(line)
            finally:
                with self._lock:
                    self._watches.discard(response)


def _json_or_text(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text
