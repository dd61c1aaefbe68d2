"""Benchmark: how the local kubelet gets a container's root filesystem from an image in the local store.

- checkout (what the kubelet does): `buildah from` + `buildah mount` — an overlay of the image's layers with
  a private writable layer — then `buildah umount` + `buildah rm` when the container ends;
- unpack (the alternative): `buildah push IMAGE oci:DIR` + `umoci unpack` into a bundle — a full copy of
  the image on disk, made once per image (a cache), then a copy or an overlay per container on top.

Printed: the median of `--runs` runs of each (checkout: the whole create-and-remove cycle; unpack: push and
unpack alone, without the per-container step it would still need), and the ratio unpack/checkout.
Run: `.venv/bin/python bench/rootfs_checkout.py [--image localhost/assay-runner:latest] [--runs 3]`
(after `make images`).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid

from assay_dev.images import buildah


def checkout_cycle(image_id: str) -> float:
    name = f"assay-bench-{uuid.uuid4().hex[:10]}"
    started = time.perf_counter()
    buildah.checkout(image_id, name)
    buildah.release(name)
    return time.perf_counter() - started


def unpack(reference: str) -> float:
    umoci = shutil.which("umoci")
    if umoci is None:
        raise SystemExit("umoci is not installed: bash scripts/install-container-tools.sh")
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as work:
        started = time.perf_counter()
        buildah.run(["push", "--quiet", reference, f"oci:{work}/layout:image"], timeout=600)
        subprocess.run([umoci, "unpack", "--image", f"{work}/layout:image", f"{work}/bundle"], check=True)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="localhost/assay-runner:latest")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    info = buildah.inspect_image(args.image)
    checkout_cycle(info.id)  # warm the store's metadata once
    checkouts = [checkout_cycle(info.id) for _ in range(args.runs)]
    unpacks = [unpack(args.image) for _ in range(args.runs)]
    checkout, unpacked = statistics.median(checkouts), statistics.median(unpacks)
    print(f"image: {args.image} ({info.digest})")
    print(f"checkout (buildah from + mount, then umount + rm): median {checkout:.3f} s over {args.runs}")
    print(f"unpack (buildah push oci: + umoci unpack):          median {unpacked:.3f} s over {args.runs}")
    print(f"ratio unpack / checkout: {unpacked / checkout:.1f}x")


if __name__ == "__main__":
    main()
