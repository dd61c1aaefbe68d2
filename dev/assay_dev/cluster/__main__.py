"""A control plane for a developer: `python -m assay_dev.cluster` (or scripts/k8s-shell.sh).

Starts etcd, kube-apiserver, kube-controller-manager and the local kubelet, prints the `export` lines for
KUBECONFIG and PATH (the built kubectl and helm), and runs until Ctrl-C.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path

from .controlplane import ControlPlane, locate_binaries
from .podspec import DEFAULT_PATH, ImageSpec


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m assay_dev.cluster", description=__doc__)
    parser.add_argument("--no-kubelet", action="store_true", help="do not run pods")
    parser.add_argument(
        "--image",
        action="append",
        default=[],
        metavar="IMAGE=ARGV0",
        help="map an image to a local entrypoint (repeatable); 'python' images map to this interpreter",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")

    python_bin = str(Path(sys.executable).parent)
    images = {"python": ImageSpec(entrypoint=("python",), env={"PATH": f"{python_bin}:{DEFAULT_PATH}"})}
    for mapping in args.image:
        image, _, entrypoint = mapping.partition("=")
        images[image] = ImageSpec(entrypoint=tuple(entrypoint.split()), env=images["python"].env)

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    with ControlPlane(locate_binaries()) as plane:
        kubelet = None if args.no_kubelet else plane.local_kubelet(images)
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
