"""The local node: the local kubelet with the local-path provisioner beside it (storage.py), started and
stopped together — what every user of the local control plane runs pods on (tests, `make demo`, the
benchmarks, `python -m assay_dev.cluster`). Networked (opt-in): pods on their own network (network.py) and
kube-router enforcing NetworkPolicy (policy.py). Several nodes (`local_nodes`): kubelets of their own on the
same control plane and machine, sharing the provisioner."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from .controlplane import ControlPlane
from .kubelet import DEFAULT_NODE, LocalKubelet
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
    trivially on one machine, a stand-in for NFS or CephFS). Only the first node can be networked.

    A kubelet stopped by the caller before the end (a node lost) is not stopped again."""
    kubelets = [plane.local_kubelet(networked=networked and i == 0, node_name=n) for i, n in enumerate(names)]
    with contextlib.ExitStack() as stack:
        for kubelet in kubelets:
            kubelet.start()
            stack.callback(_stop, kubelet)
        first = kubelets[0]
        if first.network is not None:
            # The apiserver where pods reach it (the kubernetes Service's endpoint, in the pods' env).
            first.network.expose(plane.port, plane.port)
            enforcer = PolicyEnforcer(plane, first.network, first.node_name).start()
            stack.callback(enforcer.stop)
            first.enforcer = enforcer
        storage = start_storage(plane, helper_image)
        stack.callback(storage.stop)
        yield kubelets


def _stop(kubelet: LocalKubelet) -> None:
    if not kubelet.stopping.is_set():
        kubelet.stop()
