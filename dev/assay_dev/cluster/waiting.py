"""How the local kubelet reports a pod it cannot start yet, as a real kubelet does.

A volume that cannot be set up (a missing Secret or ConfigMap, or a key of one) leaves the pod's containers
waiting with kubelet's default reasons — PodInitializing when the pod has init containers, else
ContainerCreating — and no message: the reason is reported only in a Warning Event on the pod,
`FailedMount` with `MountVolume.SetUp failed for volume "<volume>" : <why>`, repeated while it lasts
(aggregated into the Event's count, as kubelet's event recorder does). Operators that want to know why a pod
is stuck must read that Event: this module makes the local kubelet give them the same signal.

(A missing Secret or key that an env var refers to is different: the container waits with
CreateContainerConfigError and the message — the kubelet already reports that in the container status.)
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .kubeapi import ApiError, KubeApi
from .volumes import MountError

Obj = dict[str, Any]
REPEAT_SECONDS = 10.0
"""A repeated Event is re-posted (its count raised) at most this often, like kubelet's backoff."""


class FailedMount(Exception):
    """A pod's volume cannot be set up yet."""

    def __init__(self, volume: str, cause: Exception) -> None:
        super().__init__(f'MountVolume.SetUp failed for volume "{volume}" : {cause}')
        self.volume = volume


def mount_all(volumes: list[Obj], mount: Callable[[Obj], Path]) -> dict[str, Path]:
    """Each volume's source, by name; the first that fails raises FailedMount naming it."""
    sources = {}
    for volume in volumes:
        try:
            sources[volume["name"]] = mount(volume)
        except MountError as cause:
            raise FailedMount(volume["name"], cause) from cause
    return sources


def default_waiting(pod: Obj) -> Obj:
    """A not-yet-started container's state as kubelet reports it, without a message."""
    has_init = bool((pod.get("spec") or {}).get("initContainers"))
    return {"waiting": {"reason": "PodInitializing" if has_init else "ContainerCreating"}}


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class PodEvents:
    """A pod's kubelet Events, aggregated: the same (reason, message) raises the count of one Event."""

    def __init__(self, api: KubeApi, pod: Mapping[str, Any], node: str) -> None:
        self.api = api
        meta = pod["metadata"]
        self.namespace, self.pod_name, self.uid = meta["namespace"], meta["name"], meta["uid"]
        self.node = node
        self._posted: dict[tuple[str, str], tuple[str, int, float]] = {}
        self._lock = threading.Lock()

    def warning(self, reason: str, message: str) -> None:
        key = (reason, message)
        with self._lock:
            seen = self._posted.get(key)
            if seen is not None and time.monotonic() - seen[2] < REPEAT_SECONDS:
                return
            name, count = (seen[0], seen[1] + 1) if seen else (f"{self.pod_name}.{secrets.token_hex(8)}", 1)
            self._posted[key] = (name, count, time.monotonic())
        path = f"/api/v1/namespaces/{self.namespace}/events"
        try:
            if count == 1:
                self.api.create(path, self._event(name, reason, message))
            else:
                self.api.merge_patch(f"{path}/{name}", {"count": count, "lastTimestamp": _stamp()})
        except ApiError:
            pass  # an Event is best effort, for kubelet too (the namespace may be going away)

    def _event(self, name: str, reason: str, message: str) -> Obj:
        at = _stamp()
        return {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": self.namespace},
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": self.pod_name,
                "namespace": self.namespace,
                "uid": self.uid,
            },
            "reason": reason,
            "message": message,
            "type": "Warning",
            "source": {"component": "kubelet", "host": self.node},
            "reportingComponent": "kubelet",
            "reportingInstance": self.node,
            "firstTimestamp": at,
            "lastTimestamp": at,
            "count": 1,
        }
