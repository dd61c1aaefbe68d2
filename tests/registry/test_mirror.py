"""Mirroring to a second registry (assay_dev.images.mirror, tools/mirror) between two real registries on
loopback, each over TLS from its own CA: an image, its cosign-style signature tag and a referrer (an SBOM
artifact whose subject is the image), and a suite artifact from `assay push` arrive under the mirror with the
same digests and bytes; the ImageDigestMirrorSet written for them sends a pull to the mirror once the first
registry is stopped, and without it the pull fails."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml

from assay_dev.cluster import images
from assay_dev.cluster.images import UnknownImage
from assay_dev.cluster.mirrors import MirrorPullError, load_mirror_sets, parse_mirror_sets, pull_with_mirrors
from assay_dev.cluster.registry_pull import RegistryPuller
from assay_dev.images.mirror import MirrorError, mirror, mirror_set
from assay_dev.servers.registry import Registry

pytestmark = pytest.mark.builds  # the registries and tools/mirror: scripts/build-go-tools.sh

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "support-desk"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
EMPTY = b"{}"

Obj = dict[str, Any]


@pytest.fixture
def registries(tmp_path: Path) -> Iterator[tuple[Registry, Registry]]:
    with Registry(tmp_path / "a") as source, Registry(tmp_path / "b") as target:
        yield source, target


def digest_of(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def put_blob(registry: Registry, repo: str, data: bytes) -> Obj:
    started = requests.post(f"{registry.url}/v2/{repo}/blobs/uploads/", verify=registry.ca, timeout=30)
    assert started.status_code == 202, started.text
    location = started.headers["Location"]
    url = location if location.startswith("https://") else f"{registry.url}{location}"
    done = requests.put(url, params={"digest": digest_of(data)}, data=data, verify=registry.ca, timeout=30)
    assert done.status_code == 201, done.text
    return {"digest": digest_of(data), "size": len(data)}


def put_manifest(registry: Registry, repo: str, manifest: Obj, tag: str | None = None) -> str:
    body = json.dumps(manifest, sort_keys=True).encode()
    target = tag or digest_of(body)
    put = requests.put(
        f"{registry.url}/v2/{repo}/manifests/{target}",
        data=body,
        headers={"Content-Type": OCI_MANIFEST},
        verify=registry.ca,
        timeout=30,
    )
    assert put.status_code == 201, put.text
    return digest_of(body)


def get_manifest(registry: Registry, repo: str, target: str) -> bytes:
    got = requests.get(
        f"{registry.url}/v2/{repo}/manifests/{target}",
        headers={"Accept": f"{OCI_MANIFEST}, application/vnd.oci.image.index.v1+json"},
        verify=registry.ca,
        timeout=30,
    )
    assert got.status_code == 200, f"{registry.host}/{repo}:{target}: {got.status_code} {got.text}"
    return got.content


def tar_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def small_image(registry: Registry, repo: str) -> tuple[str, str, str]:
    """An image of one layer, a signature under cosign's tag scheme and an SBOM artifact referring to it:
    (image digest, signature digest, SBOM digest)."""
    layer = tar_of({"etc/assay-mirror-test": b"mirrored\n"})
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Cmd": ["/bin/true"]},
            "rootfs": {"type": "layers", "diff_ids": [digest_of(layer)]},
        }
    ).encode()
    image = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            **put_blob(registry, repo, config),
        },
        "layers": [
            {
                "mediaType": "application/vnd.oci.image.layer.v1.tar",
                **put_blob(registry, repo, layer),
            }
        ],
    }
    image_digest = put_manifest(registry, repo, image)
    image_descriptor = {"mediaType": OCI_MANIFEST, "digest": image_digest, "size": len(json.dumps(image))}
    image_descriptor["size"] = len(json.dumps(image, sort_keys=True).encode())
    empty = {"mediaType": "application/vnd.oci.empty.v1+json", **put_blob(registry, repo, EMPTY)}
    payload = json.dumps({"critical": {"image": {"docker-manifest-digest": image_digest}}}).encode()
    signature = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": empty,
        "layers": [
            {
                "mediaType": "application/vnd.dev.cosign.simplesigning.v1+json",
                **put_blob(registry, repo, payload),
                "annotations": {"dev.cosignproject.cosign/signature": "MEUCIQ..."},
            }
        ],
    }
    signature_tag = image_digest.replace(":", "-") + ".sig"
    signature_digest = put_manifest(registry, repo, signature, tag=signature_tag)
    sbom = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "artifactType": "application/spdx+json",
        "config": empty,
        "layers": [
            {"mediaType": "application/spdx+json", **put_blob(registry, repo, b'{"spdxVersion": "2.3"}')}
        ],
        "subject": image_descriptor,
    }
    sbom_digest = put_manifest(registry, repo, sbom)
    # A registry without the referrers API keeps referrers in the fallback tag's index (OCI 1.1).
    referrers = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {
                "mediaType": OCI_MANIFEST,
                "digest": sbom_digest,
                "size": len(json.dumps(sbom, sort_keys=True).encode()),
                "artifactType": "application/spdx+json",
            }
        ],
    }
    body = json.dumps(referrers).encode()
    put = requests.put(
        f"{registry.url}/v2/{repo}/manifests/{image_digest.replace(':', '-')}",
        data=body,
        headers={"Content-Type": "application/vnd.oci.image.index.v1+json"},
        verify=registry.ca,
        timeout=30,
    )
    assert put.status_code == 201, put.text
    return image_digest, signature_digest, sbom_digest


def assay_pull(reference: str, out: Path, ca: Path) -> str:
    pulled = subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", "pull", reference, str(out), "--registry-ca", str(ca)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )
    if pulled.returncode != 0:
        raise RuntimeError(pulled.stderr.strip().splitlines()[-1])
    return pulled.stdout.strip()


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_mirror_keeps_digests_signatures_and_referrers_and_the_mirror_set_serves_pulls(
    registries: tuple[Registry, Registry], tmp_path: Path
) -> None:
    source, target = registries
    image_digest, signature_digest, sbom_digest = small_image(source, "assay/runner")
    pushed = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay_runner.cli",
            "push",
            str(EXAMPLE),
            f"{source.host}/assay/suites/support-desk:v1",
            "--registry-ca",
            str(source.ca),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert pushed.returncode == 0, pushed.stderr
    suite = pushed.stdout.strip()
    image = f"{source.host}/assay/runner@{image_digest}"

    copies = mirror([image, suite], f"{target.host}/mirror", [source.ca, target.ca])

    suite_digest = suite.partition("@")[2]
    assert copies == {
        image: f"{target.host}/mirror/assay/runner@{image_digest}",
        suite: f"{target.host}/mirror/assay/suites/support-desk@{suite_digest}",
    }
    for repo, target_ in (("assay/runner", image_digest), ("assay/suites/support-desk", suite_digest)):
        assert get_manifest(target, f"mirror/{repo}", target_) == get_manifest(source, repo, target_)
    signature_tag = image_digest.replace(":", "-") + ".sig"
    assert digest_of(get_manifest(target, "mirror/assay/runner", signature_tag)) == signature_digest
    assert get_manifest(target, "mirror/assay/runner", sbom_digest) == get_manifest(
        source, "assay/runner", sbom_digest
    )
    referrers = json.loads(get_manifest(target, "mirror/assay/runner", image_digest.replace(":", "-")))
    assert [m["digest"] for m in referrers["manifests"]] == [sbom_digest]

    idms = mirror_set(copies, never_contact_source=True)
    assert idms["spec"]["imageDigestMirrors"] == [
        {
            "source": f"{source.host}/assay/runner",
            "mirrors": [f"{target.host}/mirror/assay/runner"],
            "mirrorSourcePolicy": "NeverContactSource",
        },
        {
            "source": f"{source.host}/assay/suites/support-desk",
            "mirrors": [f"{target.host}/mirror/assay/suites/support-desk"],
            "mirrorSourcePolicy": "NeverContactSource",
        },
    ]

    source.__exit__(None, None, None)  # the first registry goes out of reach
    ca = {source.host: source.ca, target.host: target.ca}  # as a node trusts each registry it pulls from
    # Without the mirror set the one candidate is the stopped registry. (The manifest is asked for directly:
    # `assay pull` retries a refused connection for about two minutes before it gives up.)
    with pytest.raises(MirrorPullError, match=f"^{suite}: .*Connection refused"):
        pull_with_mirrors(
            suite, (), lambda ref: get_manifest(source, "assay/suites/support-desk", suite_digest)
        )

    sets = parse_mirror_sets([idms], "test")
    used, pulled = pull_with_mirrors(
        suite, sets, lambda ref: assay_pull(ref, tmp_path / "suite", ca[ref.split("/")[0]])
    )
    assert used == pulled == copies[suite]
    assert tree(tmp_path / "suite") == tree(EXAMPLE)


def test_a_tag_is_refused(registries: tuple[Registry, Registry]) -> None:
    source, target = registries
    with pytest.raises(MirrorError, match="by digest; these have none"):
        mirror([f"{source.host}/assay/runner:v1"], target.host, [source.ca, target.ca])


def test_the_kubelets_pull_honours_the_mirror_set(
    registries: tuple[Registry, Registry], tmp_path: Path
) -> None:
    """The node side: images.pull with the node's registries and mirror list, the first registry stopped.
    Without the list the pull is ErrImagePull saying the registry cannot be reached; with it the image comes
    from the mirror (verified, imported into the local store) under the name the pod asked for."""
    source, target = registries
    image_digest, _, _ = small_image(source, "assay/tiny")
    image = f"{source.host}/assay/tiny@{image_digest}"
    copies = mirror([image], target.host, [source.ca, target.ca])
    source.__exit__(None, None, None)
    puller = RegistryPuller({source.host: source.ca, target.host: target.ca}, tmp_path / "node")

    with pytest.raises(UnknownImage, match=f"^pulling {re.escape(image)}: the registry cannot be reached"):
        images.pull(image, puller)
    sets = load_mirror_sets(tmp_path / "absent.yaml")
    assert sets == ()
    (tmp_path / "mirrors.yaml").write_text(yaml.safe_dump(mirror_set(copies, never_contact_source=True)))
    pulled = images.pull(image, puller, load_mirror_sets(tmp_path / "mirrors.yaml"))
    assert (pulled.reference, pulled.image_id) == (image, image)
    assert pulled.spec.cmd == ("/bin/true",)
    layer = digest_of(tar_of({"etc/assay-mirror-test": b"mirrored\n"}))
    assert (tmp_path / "node" / "blobs" / "sha256" / layer.partition(":")[2]).exists()
