"""The local node: the local kubelet with the local-path provisioner beside it (storage.py), started and
stopped together — what every user of the local control plane runs pods on (tests, `make demo`, the
benchmarks, `python -m assay_dev.cluster`). Networked (opt-in): pods on their own network (network.py) and
kube-router enforcing NetworkPolicy (policy.py). Several nodes (`local_nodes`): kubelets of their own on the
same control plane and machine, sharing the provisioner; networked, each with its own pod CIDR and
kube-router, joined as a host-gw network (network.Underlay)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

from .controlplane import ControlPlane
from .kubelet import DEFAULT_NODE, LocalKubelet
from .network import Underlay, locate_plugins
from .policy import PolicyEnforcer
from .storage import start_storage

SECOND_NODE = "assay-local-node-2"


@contextlib.contextmanager
def local_node(plane: ControlPlane, helper_image: str, *, networked: bool = False) -> Iterator[LocalKubelet]:
    """A started kubelet, and the provisioner whose helper pods it runs from `helper_image` (the images'
    Debian base: a shell, run as root). `networked`: pods get network namespaces of their own and
    NetworkPolicy is enforced; a pod's containers start once its rules are in place."""
    with local_nodes(plane, helper_image, networked=networked) as (kubelet,):
        yield kubelet


@contextlib.contextmanager
def local_nodes(
    plane: ControlPlane,
    helper_image: str,
    names: Sequence[str] = (DEFAULT_NODE,),
    *,
    networked: bool = False,
) -> Iterator[list[LocalKubelet]]:
    """One started kubelet per name (two Nodes: `(DEFAULT_NODE, SECOND_NODE)`), and one provisioner. Each
    kubelet has its own work directory, runc state, cgroup subtree and image roots; they share the machine's
    image store and the provisioner's directory (its volumes are on every node: ReadWriteMany holds
    trivially on one machine, a stand-in for NFS or CephFS).

    `networked`: every node's pods on their own network, each node with its kube-router. One node: its
    network alone (network.NodeNetwork), host services at its address. Several: node i's pods in 10.88.i.0/24,
    the nodes joined by an underlay as a host-gw network is (network.Underlay), host services (the apiserver
    here, a test's gateway with `underlay.expose`) at network.HOST_IP for the pods of every node.

    A kubelet stopped by the caller before the end (a node lost) is not stopped again; its enforcer and its
    node namespace (its link to the others) go with it."""
    with contextlib.ExitStack() as stack:
        underlay: Underlay | None = None
        if networked and len(names) > 1:
            underlay = Underlay(plane.work_dir, len(names)).start()
            stack.callback(underlay.stop)
        kubelets = [
            plane.local_kubelet(
                networked=networked,
                node_name=name,
                network=underlay.node(i, node_work_dir(plane, name), locate_plugins()) if underlay else None,
            )
            for i, name in enumerate(names)
        ]
        for kubelet in kubelets:
            kubelet.start()
            stack.callback(_stop, kubelet)
        if underlay is not None:
            underlay.expose(plane.port, plane.port)
        for kubelet in kubelets:
            if kubelet.network is None:
                continue
            if underlay is None:
                # The apiserver where pods reach it (the kubernetes Service's endpoint, in the pods' env).
                kubelet.network.expose(plane.port, plane.port)
            enforcer = PolicyEnforcer(plane, kubelet.network, kubelet.node_name).start()
            stack.callback(enforcer.stop)
            kubelet.enforcer = enforcer
        storage = start_storage(plane, helper_image)
        stack.callback(storage.stop)
        yield kubelets


def node_work_dir(plane: ControlPlane, name: str) -> Path:
    return plane.work_dir / ("kubelet" if name == DEFAULT_NODE else f"kubelet-{name}")


def _stop(kubelet: LocalKubelet) -> None:
    if not kubelet.stopping.is_set():
        kubelet.stop()
