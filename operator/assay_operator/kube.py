"""The operator's Kubernetes API access: one client per process, and the small idioms every handler uses."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, cast

from kubernetes import client
from kubernetes.client.exceptions import ApiException


@functools.cache
def api_client() -> client.ApiClient:
    """One client for the process, made after the startup handler loaded the credentials: its connection
    pool is reused. (`client.CoreV1Api()` without one makes a new ApiClient, so a new TLS connection, per
    call.)"""
    return client.ApiClient()


def core() -> client.CoreV1Api:
    return client.CoreV1Api(api_client())


def batch() -> client.BatchV1Api:
    return client.BatchV1Api(api_client())


def custom() -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api_client())


def plain(obj: Any) -> dict[str, Any]:
    """A kubernetes client object in the API's own JSON shape (camelCase keys)."""
    return cast(dict[str, Any], api_client().sanitize_for_serialization(obj))  # type: ignore[no-untyped-call]


def create(create_call: Callable[..., Any], namespace: str, body: dict[str, Any]) -> bool:
    """Create; an existing object of that name is adopted (True when created now)."""
    try:
        create_call(namespace, body)
        return True
    except ApiException as exc:
        if exc.status == 409:
            return False
        raise


def owned_by(obj: dict[str, Any], owner_uid: str) -> bool:
    meta = obj.get("metadata") or {}
    refs = meta.get("owner_references") or meta.get("ownerReferences") or []
    return any(ref.get("uid") == owner_uid for ref in refs)
