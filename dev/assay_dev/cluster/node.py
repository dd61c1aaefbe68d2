"""The local node: the local kubelet with the local-path provisioner beside it (storage.py), started and
stopped together — what every user of the local control plane runs pods on (tests, `make demo`, the
benchmarks, `python -m assay_dev.cluster`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .controlplane import ControlPlane
from .kubelet import LocalKubelet
from .storage import start_storage


@contextlib.contextmanager
def local_node(plane: ControlPlane, helper_image: str) -> Iterator[LocalKubelet]:
    """A started kubelet, and the provisioner whose helper pods it runs from `helper_image` (the images'
    Debian base: a shell, run as root)."""
    kubelet = plane.local_kubelet()
    kubelet.start()
    try:
        storage = start_storage(plane, helper_image)
        try:
            yield kubelet
        finally:
            storage.stop()
    finally:
        kubelet.stop()
