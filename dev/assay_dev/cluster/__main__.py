"""A control plane for a developer: `python -m assay_dev.cluster` (or scripts/k8s-shell.sh).

Starts etcd, kube-apiserver, kube-controller-manager and the local kubelet (pods run under runc from the
images in the local store: `make images` builds Assay's), prints the `export` lines for KUBECONFIG and PATH
(the built kubectl and helm), and runs until Ctrl-C.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from .controlplane import ControlPlane, locate_binaries


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m assay_dev.cluster", description=__doc__)
    parser.add_argument("--no-kubelet", action="store_true", help="do not run pods")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    with ControlPlane(locate_binaries()) as plane:
        kubelet = None if args.no_kubelet else plane.local_kubelet()
        if kubelet is not None:
            kubelet.start()
        try:
            print(f"# control plane up; logs in {plane.logs_dir}", file=sys.stderr)
            print(f"export KUBECONFIG={plane.kubeconfig}")
            print(f"export PATH={plane.bin_dir}:$PATH")
            sys.stdout.flush()
            stop.wait()
        finally:
            if kubelet is not None:
                kubelet.stop()


if __name__ == "__main__":
    main()
