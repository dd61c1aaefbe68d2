"""A control plane for a developer: `python -m assay_dev.cluster` (or scripts/k8s-shell.sh).

Starts etcd, kube-apiserver, kube-controller-manager, the local kubelet (pods run under runc from the
images in the local store: `make images` builds Assay's) and the local-path provisioner (the default
StorageClass; its helper pods use the runner image's base) — with `--networked`, pods on their own network and
NetworkPolicy enforced (docs/runtime.md) — prints the `export` lines for KUBECONFIG and PATH
(the built kubectl and helm), and runs until Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import threading

from .controlplane import ControlPlane
from .node import local_node
from .processes import locate_binaries


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m assay_dev.cluster", description=__doc__)
    parser.add_argument("--no-kubelet", action="store_true", help="do not run pods")
    parser.add_argument(
        "--networked",
        action="store_true",
        help="pods on their own network (10.88.0.0/16, in a node network namespace) with NetworkPolicy "
        "enforced by kube-router (docs/runtime.md)",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    with ControlPlane(locate_binaries()) as plane, contextlib.ExitStack() as node:
        if not args.no_kubelet:
            from assay_dev.images import build

            base = build.current(["runner"])[0].base_image
            node.enter_context(local_node(plane, base, networked=args.networked))
        print(f"# control plane up; logs in {plane.logs_dir}", file=sys.stderr)
        print(f"export KUBECONFIG={plane.kubeconfig}")
        print(f"export PATH={plane.bin_dir}:$PATH")
        sys.stdout.flush()
        stop.wait()


if __name__ == "__main__":
    main()
