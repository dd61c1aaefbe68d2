"""The local node: the local kubelet with the local-path provisioner beside it (storage.py), started and
stopped together — what every user of the local control plane runs pods on (tests, `make demo`, the
benchmarks, `python -m assay_dev.cluster`). Networked (opt-in): pods on their own network (network.py) and
kube-router enforcing NetworkPolicy (policy.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .controlplane import ControlPlane
from .kubelet import LocalKubelet
from .policy import PolicyEnforcer
from .storage import start_storage


@contextlib.contextmanager
def local_node(plane: ControlPlane, helper_image: str, *, networked: bool = False) -> Iterator[LocalKubelet]:
    """A started kubelet, and the provisioner whose helper pods it runs from `helper_image` (the images'
    Debian base: a shell, run as root). `networked`: pods get network namespaces of their own and
    NetworkPolicy is enforced; a pod's containers start once its rules are in place."""
    kubelet = plane.local_kubelet(networked=networked)
    kubelet.start()
    try:
        with contextlib.ExitStack() as stack:
            if kubelet.network is not None:
                # The apiserver where pods reach it (the kubernetes Service's endpoint, in the pods' env).
                kubelet.network.expose(plane.port, plane.port)
                enforcer = PolicyEnforcer(plane, kubelet.network, kubelet.node_name).start()
                stack.callback(enforcer.stop)
                kubelet.enforcer = enforcer
            storage = start_storage(plane, helper_image)
            stack.callback(storage.stop)
            yield kubelet
    finally:
        kubelet.stop()
