"""The operator's Kubernetes API access: one client per process, and the small idioms every handler uses."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar, cast

from kubernetes import client
from kubernetes.client.exceptions import ApiException

from assay_operator.schema import GROUP, VERSION

T = TypeVar("T")
CONNECTIONS = 40
"""The client's connection pool: kopf's handler threads (startup.HANDLER_THREADS) and the operator's own
(retries, the lease renewal) each hold one at a time. The client's default, 5 a CPU (10 on 2 cores), is
smaller: urllib3 would open an extra connection past it and then drop it, a new TLS handshake a request."""


@functools.cache
def api_client() -> client.ApiClient:
    """One client for the process, made after the startup handler loaded the credentials: its connection
    pool is reused. (`client.CoreV1Api()` without one makes a new ApiClient, so a new TLS connection, per
    call.)"""
    configuration = client.Configuration.get_default_copy()
    configuration.connection_pool_maxsize = CONNECTIONS
    return client.ApiClient(configuration)


def core() -> client.CoreV1Api:
    return client.CoreV1Api(api_client())


def batch() -> client.BatchV1Api:
    return client.BatchV1Api(api_client())


def networking() -> client.NetworkingV1Api:
    return client.NetworkingV1Api(api_client())


def custom() -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api_client())


def plain(obj: Any) -> dict[str, Any]:
    """A kubernetes client object in the API's own JSON shape (camelCase keys)."""
    return cast(dict[str, Any], api_client().sanitize_for_serialization(obj))  # type: ignore[no-untyped-call]


def read_plain(call: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """A read or list call's answer as the API's own JSON (camelCase keys, as `plain` gives and the watch
    events carry), parsed straight from the response: the client's models and `plain` turning them back
    were most of the CPU a Job's event cost the operator (its pods listed). An error raises ApiException
    as the call itself would."""
    response = call(*args, _preload_content=False, **kwargs)
    return cast(dict[str, Any], json.loads(response.data))


def create(create_call: Callable[..., Any], namespace: str, body: dict[str, Any]) -> bool:
    """Create; an existing object of that name is adopted (True when created now)."""
    try:
        create_call(namespace, body)
        return True
    except ApiException as exc:
        if exc.status == 409:
            return False
        raise


def if_present(call: Callable[[], T]) -> T | None:
    """The call's result, or None when the object it addresses does not exist (404): deleted meanwhile, by
    a user, the garbage collector or the TTL controller. Every other error is raised."""
    try:
        return call()
    except ApiException as exc:
        if exc.status == 404:
            return None
        raise


def delete_if_present(delete: Callable[[], object]) -> bool:
    """Delete; an object already gone is fine (True when this call deleted it)."""
    return if_present(delete) is not None


def get_custom(plural: str, namespace: str, name: str) -> dict[str, Any] | None:
    """One of Assay's custom resources in the API's JSON shape, or None when it does not exist."""
    found = if_present(lambda: custom().get_namespaced_custom_object(GROUP, VERSION, namespace, plural, name))
    return cast(dict[str, Any] | None, found)


def patch_status(plural: str, namespace: str, name: str, status: dict[str, Any]) -> bool:
    """Merge-patch the status subresource of one of Assay's custom resources. False when the object is gone:
    there is no one left to report to, and the garbage collector takes its children."""
    patched = if_present(
        lambda: custom().patch_namespaced_custom_object_status(
            GROUP, VERSION, namespace, plural, name, {"status": status}
        )
    )
    return patched is not None
