"""Suites as OCI artifacts through a real registry (go-containerregistry's, tools/registry) on loopback over
TLS from the harness's own CA: push then pull by digest, the digest pinned, a tag refused unless allowed,
other digests, other artifact types, links and escaping paths refused, a 50 MB suite, and `assay run` on an
`oci://` suite giving the folder's verdict."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import shutil
import ssl
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from assay_dev.servers.loopback import LoopbackServer, QuietHandler
from assay_dev.servers.registry import Registry

pytestmark = pytest.mark.builds  # the registry: scripts/build-go-tools.sh

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "support-desk"


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    with Registry(tmp_path_factory.mktemp("registry")) as started:
        yield started


def assay(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assay_runner.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def push(registry: Registry, suite: Path, repo: str) -> str:
    pushed = assay("push", str(suite), f"{registry.host}/{repo}", "--registry-ca", str(registry.ca))
    assert pushed.returncode == 0, pushed.stderr
    return pushed.stdout.strip()


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_round_trip_by_digest(registry: Registry, tmp_path: Path) -> None:
    reference = push(registry, EXAMPLE, "suites/support-desk:v1")
    assert reference.startswith(f"{registry.host}/suites/support-desk@sha256:")
    assert push(registry, EXAMPLE, "suites/support-desk:v1") == reference  # a reproducible artifact
    pulled = assay("pull", reference, str(tmp_path / "out"), "--registry-ca", str(registry.ca))
    assert pulled.returncode == 0, pulled.stderr
    assert pulled.stdout.strip() == reference
    assert tree(tmp_path / "out") == tree(EXAMPLE)
    manifest = requests.get(
        f"{registry.url}/v2/suites/support-desk/manifests/{reference.split('@')[1]}",
        headers={"Accept": "application/vnd.oci.image.manifest.v1+json"},
        verify=registry.ca,
        timeout=30,
    ).json()
    assert manifest["artifactType"] == "application/vnd.assay.suite.v1"
    validated = assay(
        "validate",
        f"oci://{reference}",
        "--registry-ca",
        str(registry.ca),
        env={"ASSAY_CACHE": str(tmp_path)},
    )
    assert validated.returncode == 0, validated.stderr
    assert f"artifact {reference.split('@')[1]}, suite digest sha256:" in validated.stdout
    split = assay(
        "split", f"oci://{reference}", "--public", str(tmp_path / "public"),
        "--keys", str(tmp_path / "keys.yaml"),
        "--registry-ca", str(registry.ca), env={"ASSAY_CACHE": str(tmp_path)},
    )  # fmt: skip
    assert split.returncode == 0, split.stderr
    assert (tmp_path / "keys.yaml").is_file()
    assert (tmp_path / "public" / "suite.yaml").is_file()
    assert manifest["annotations"]["dev.assay.suite.name"] == "support-desk"
    assert manifest["annotations"]["dev.assay.suite.digest"].startswith("sha256:")


def test_tag_refused_unless_allowed(registry: Registry, tmp_path: Path) -> None:
    reference = push(registry, EXAMPLE, "suites/tagged:v1")
    refused = assay(
        "pull", f"{registry.host}/suites/tagged:v1", str(tmp_path / "a"), "--registry-ca", str(registry.ca)
    )
    assert refused.returncode == 2
    assert "--allow-tag" in refused.stderr
    assert not (tmp_path / "a").exists()
    allowed = assay(
        "pull",
        f"{registry.host}/suites/tagged:v1",
        str(tmp_path / "b"),
        "--allow-tag",
        "--registry-ca",
        str(registry.ca),
    )
    assert allowed.returncode == 0, allowed.stderr
    assert allowed.stdout.strip() == reference


def test_without_the_ca_the_registry_is_not_trusted(registry: Registry, tmp_path: Path) -> None:
    reference = push(registry, EXAMPLE, "suites/untrusted")
    refused = assay("pull", reference, str(tmp_path / "out"), env={"ASSAY_REGISTRY_CA": ""})
    assert refused.returncode == 2
    assert "CERTIFICATE_VERIFY_FAILED" in refused.stderr or "certificate verify failed" in refused.stderr
    by_env = assay("pull", reference, str(tmp_path / "env"), env={"ASSAY_REGISTRY_CA": str(registry.ca)})
    assert by_env.returncode == 0, by_env.stderr


def test_other_digest_refused(registry: Registry, tmp_path: Path) -> None:
    reference = push(registry, EXAMPLE, "suites/pinned")
    other = "sha256:" + hashlib.sha256(b"another manifest").hexdigest()
    refused = assay(
        "pull",
        reference.split("@")[0] + "@" + other,
        str(tmp_path / "out"),
        "--registry-ca",
        str(registry.ca),
    )
    assert refused.returncode == 2
    assert "404" in refused.stderr
    assert not (tmp_path / "out").exists()


class _Tampering(QuietHandler):
    """A man in the middle holding the registry's certificate: passes every request on, and changes one
    byte of what answers `target` (a blob, or the manifest)."""

    upstream = ""
    ca = ""
    target = ""

    def do_GET(self) -> None:
        answer = requests.get(
            self.upstream + self.path,
            headers={"Accept": self.headers.get("Accept", "*/*")},
            verify=self.ca,
            timeout=30,
        )
        body = bytearray(answer.content)
        if self.target in self.path and body:
            body[len(body) // 2] ^= 0x01
        headers = {k: v for k, v in answer.headers.items() if k.lower() in ("docker-content-digest",)}
        self.send(answer.status_code, bytes(body), headers, answer.headers.get("Content-Type", ""))


@pytest.mark.parametrize("tampered", ["blobs", "manifests"])
def test_tampered_bytes_are_refused(registry: Registry, tmp_path: Path, tampered: str) -> None:
    """The registry verifies its own blobs on disk, so the bytes are changed on the way: a pull hashes what
    it receives, manifest and layer, and refuses either changed by one bit."""
    reference = push(registry, EXAMPLE, "suites/tampered")
    handler = type(
        "Handler", (_Tampering,), {"upstream": registry.url, "ca": str(registry.ca), "target": tampered}
    )
    server = LoopbackServer(handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(registry.workdir / "tls" / "tls.crt", registry.workdir / "tls" / "tls.key")
    server._server.socket = context.wrap_socket(server._server.socket, server_side=True)
    with server:
        port = server.url.rsplit(":", 1)[1]
        through = reference.replace(registry.host, f"127.0.0.1:{port}")
        refused = assay("pull", through, str(tmp_path / "out"), "--registry-ca", str(registry.ca))
    assert refused.returncode == 2
    assert ("hashing to" if tampered == "blobs" else "hashes to") in refused.stderr
    assert not (tmp_path / "out").exists()


def _put_blob(registry: Registry, repo: str, data: bytes) -> dict[str, object]:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    start = requests.post(f"{registry.url}/v2/{repo}/blobs/uploads/", verify=registry.ca, timeout=30)
    location = start.headers["Location"]
    url = (registry.url + location if location.startswith("/") else location) + (
        "&" if "?" in location else "?"
    )
    put = requests.put(f"{url}digest={digest}", data=data, verify=registry.ca, timeout=30)
    assert put.status_code == 201, put.text
    return {"digest": digest, "size": len(data)}


def _put_artifact(registry: Registry, repo: str, archive: bytes, artifact_type: str) -> str:
    """A hand-made manifest: what a hostile or careless pusher could put in a registry."""
    layer = _put_blob(registry, repo, archive)
    config = _put_blob(registry, repo, b"{}")
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "artifactType": artifact_type,
        "config": {"mediaType": "application/vnd.oci.empty.v1+json", **config},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", **layer}],
    }
    body = json.dumps(manifest).encode()
    digest = "sha256:" + hashlib.sha256(body).hexdigest()
    put = requests.put(
        f"{registry.url}/v2/{repo}/manifests/{digest}",
        data=body,
        headers={"Content-Type": "application/vnd.oci.image.manifest.v1+json"},
        verify=registry.ca,
        timeout=30,
    )
    assert put.status_code == 201, put.text
    return f"{registry.host}/{repo}@{digest}"


def _archive(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb") as zipped, tarfile.open(fileobj=zipped, mode="w") as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def _link(name: str, target: str) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = tarfile.SYMTYPE
    info.linkname = target
    return info, b""


@pytest.mark.parametrize(
    ("members", "artifact_type", "said"),
    [
        (
            [(tarfile.TarInfo("suite.yaml"), b"name: x\n")],
            "application/vnd.oci.image.config.v1+json",
            "not a suite",
        ),
        ([_link("kb/KB-1.md", "/etc/shadow")], "application/vnd.assay.suite.v1", "not a regular file"),
        ([(tarfile.TarInfo("../escaped.yaml"), b"x")], "application/vnd.assay.suite.v1", "escapes"),
    ],
    ids=["other-artifact-type", "link", "escaping-path"],
)
def test_hostile_artifacts_refused(
    registry: Registry,
    tmp_path: Path,
    members: list[tuple[tarfile.TarInfo, bytes]],
    artifact_type: str,
    said: str,
) -> None:
    reference = _put_artifact(registry, "suites/hostile", _archive(*members), artifact_type)
    refused = assay("pull", reference, str(tmp_path / "out"), "--registry-ca", str(registry.ca))
    assert refused.returncode == 2
    assert said in refused.stderr
    assert not (tmp_path / "escaped.yaml").exists()
    assert not (tmp_path / "out").exists()  # unpacked beside it and refused: nothing left in DIR


def large_suite(root: Path, megabytes: int = 50) -> Path:
    """The example suite with a KB grown past `megabytes` (incompressible text: base64 of random bytes)."""
    suite = root / "large"
    shutil.copytree(EXAMPLE, suite)
    for index in range(megabytes // 5):
        text = base64.encodebytes(os.urandom(5 * 1024 * 1024 * 3 // 4)).decode()
        (suite / "kb" / f"KB-9{index:03d}.md").write_text(f"# Archive {index}\n\n{text}")
    return suite


def test_a_50_mb_suite(registry: Registry, tmp_path: Path) -> None:
    suite = large_suite(tmp_path)
    assert sum(len(d) for d in tree(suite).values()) > 50 * 1000 * 1000
    reference = push(registry, suite, "suites/large")
    pulled = assay("pull", reference, str(tmp_path / "out"), "--registry-ca", str(registry.ca))
    assert pulled.returncode == 0, pulled.stderr
    assert tree(tmp_path / "out") == tree(suite)


def _verdict(out: Path) -> tuple[str, str, str | None]:
    result = json.loads((out / "result.json").read_text())
    return result["verdict"], result["inputs"]["suiteDigest"], result["inputs"].get("suiteArtifactDigest")


def test_run_on_an_oci_suite_gives_the_folders_verdict(registry: Registry, tmp_path: Path) -> None:
    reference = push(registry, EXAMPLE, "suites/run")
    common = [
        "--brain", str(EXAMPLE / "brains" / "v1"), "--agent", "replay",
        "--answers", str(EXAMPLE / "answers" / "v1"),
        "--judge-model", "example-judge", "--cassettes", str(EXAMPLE / "cassettes"), "--no-mlflow",
    ]  # fmt: skip
    cache = {"ASSAY_CACHE": str(tmp_path / "cache")}
    local = assay("run", str(EXAMPLE), *common, "--out", str(tmp_path / "local"), env=cache)
    remote = assay(
        "run",
        f"oci://{reference}",
        *common,
        "--out",
        str(tmp_path / "oci"),
        "--registry-ca",
        str(registry.ca),
        env=cache,
    )
    assert remote.returncode == local.returncode, remote.stderr
    verdict, digest, artifact = _verdict(tmp_path / "oci")
    assert (verdict, digest) == _verdict(tmp_path / "local")[:2]
    assert artifact == reference.split("@")[1]
    assert _verdict(tmp_path / "local")[2] is None
    assert (tmp_path / "cache" / "suites" / artifact.replace(":", "-") / "suite.yaml").is_file()
    config = tmp_path / "run.yaml"  # a RunConfig names the artifact the same way
    config.write_text(
        json.dumps(
            {
                "suite": f"oci://{reference}",
                "brain": str(EXAMPLE / "brains" / "v1"),
                "agent": {"kind": "replay", "answers": str(EXAMPLE / "answers" / "v1")},
                "judgeModel": "example-judge",
                "cassettes": {"dir": str(EXAMPLE / "cassettes")},
                "mlflow": {"enabled": False},
                "output": {"dir": str(tmp_path / "config")},
            }
        )
    )
    configured = assay("run", "--config", str(config), env={**cache, "ASSAY_REGISTRY_CA": str(registry.ca)})
    assert configured.returncode == local.returncode, configured.stderr
    assert _verdict(tmp_path / "config") == (verdict, digest, artifact)
    tag_only = assay("validate", f"oci://{reference.split('@')[0]}", env=cache)
    assert tag_only.returncode == 2
    assert "by digest" in tag_only.stderr
