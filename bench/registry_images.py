"""Benchmark: the images through a registry, per image of `out/images/images.json` (`make images`): pushed
to a fresh test registry on loopback over TLS (tools/registry), signed and its SBOM attested with a cosign key
made here, verified by `cosign verify`, by the operator's verifier (cold, then cached) and pulled by the local
kubelet's puller into an empty blob folder. Prints one JSON line per image; the table in docs/images.md.

Nothing is asserted about time; exit 1 when an image does not verify.
Run: `.venv/bin/python bench/registry_images.py [--sboms DIR] [NAME...]` (default: every recorded image;
SBOMs from out/images/).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from assay_dev.cluster.registry_pull import RegistryPuller
from assay_dev.images import push, registry_images, signing
from assay_dev.images.build import RECORD
from assay_dev.servers.registry import Registry
from assay_operator.image_verification import ImageVerifier


def timed(action: Callable[[], object]) -> float:
    started = time.monotonic()
    action()
    return time.monotonic() - started


def measure(
    name: str, source: str, sbom: Path, key: registry_images.KeyPair, work: Path
) -> dict[str, object]:
    with Registry(work / "registry") as registry:
        reference, push_seconds = push.push_image(source, f"{registry.host}/assay-{name}", ca=registry.ca)
        sign = timed(lambda: signing.sign(reference, key.private, ca=registry.ca))
        attest = None
        if sbom.exists():
            attest = timed(lambda: signing.attest_sbom(reference, sbom, key.private, ca=registry.ca))
        cosign = timed(lambda: signing.verify(reference, key.public, ca=registry.ca))
        verifier = ImageVerifier(key.public.read_bytes(), str(registry.ca))
        started = time.monotonic()
        verdict = verifier.verify(reference)
        cold = time.monotonic() - started
        cached = timed(lambda: verifier.verify(reference))
        puller = RegistryPuller({registry.host: registry.ca}, work / "pulled")
        pull = timed(lambda: puller.pull(reference))
        layers = registry_images.manifest(registry, reference)["layers"]
    shutil.rmtree(work / "pulled")
    shutil.rmtree(work / "registry")
    return {
        "image": name,
        "layers": len(layers),
        "layerBytes": sum(int(layer["size"]) for layer in layers),
        "pushSeconds": round(push_seconds, 2),
        "signSeconds": round(sign, 2),
        "attestSbomSeconds": None if attest is None else round(attest, 2),
        "cosignVerifySeconds": round(cosign, 2),
        "operatorVerifySeconds": round(cold, 2),
        "operatorVerifyCachedSeconds": round(cached, 4),
        "verdict": verdict.reason,
        "kubeletPullSeconds": round(pull, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--sboms", type=Path, default=RECORD.parent)
    args = parser.parse_args()
    record = json.loads(RECORD.read_text())["images"]
    failed = False
    with tempfile.TemporaryDirectory(prefix="assay-bench-registry-") as scratch:
        work = Path(scratch)
        key = registry_images.key_pair(work / "key")
        for name in args.names or list(record):
            line = measure(name, record[name]["reference"], args.sboms / f"{name}.spdx.json", key, work)
            failed |= line["verdict"] != "Verified"
            print(json.dumps(line), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
