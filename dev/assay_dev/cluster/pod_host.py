"""What a pod's worker needs of the node it runs on: the kubelet's side of their seam, as a Protocol.

`LocalKubelet` (kubelet.py) starts a `PodWorker` (pod.py) per pod and the worker calls back into it; the
worker names this Protocol rather than the kubelet's class, so the two files do not import each other.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from .images import PullFault
from .kubeapi import KubeApi
from .mirrors import DigestMirror
from .network import NodeNetwork
from .podspec import Obj, ObjectSource
from .registry_pull import RegistryPuller
from .runtime import NodeRuntime


class Enforcer(Protocol):
    """What enforces NetworkPolicy on a networked node (policy.py)."""

    def rules_ready(self, pod: Obj, ip: str, policies: Iterable[Obj]) -> bool:
        """Whether the pod's packets already go through every policy in `policies` that selects it."""

    def stop(self) -> None:
        """Stop enforcing (the node is gone)."""


class PodHost(ObjectSource, Protocol):
    """The node a pod runs on: its API client, its runtime, its capacity and its way to end a pod."""

    api: KubeApi
    node_name: str
    work_dir: Path
    service_env: dict[str, str]
    pull_faults: dict[str, PullFault]
    registry_puller: RegistryPuller | None
    """Pulls images of the registries the node was given (by digest, verified); None: the local store only."""
    runtime: NodeRuntime
    memory_bytes: int
    allocatable: dict[str, str]
    stopping: threading.Event
    """Set when the node is stopping: every worker ends."""
    network: NodeNetwork | None
    """A networked node's network (pods get namespaces of their own); None: pods share the host's."""
    enforcer: Enforcer | None
    host_ip: str

    def mirror_sets(self) -> tuple[DigestMirror, ...]:
        """The node's mirror list now (ImageDigestMirrorSet shape, mirrors.py)."""
        ...

    def network_policies(self, namespace: str) -> list[Obj]:
        """The NetworkPolicies of `namespace`, as the apiserver has them now."""

    def confirm_deletion(self, pod: Obj) -> None:
        """Delete the pod for good (grace period 0), as a kubelet does once its containers are gone."""

    def token(self, pod: Obj, audience: str, expiration_seconds: int) -> str:
        """A service-account token bound to the pod."""
