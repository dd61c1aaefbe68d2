"""Suites as OCI artifacts: `assay push` packs a suite folder into one, `assay pull` and `oci://` suites fetch
one back by digest and verify it before anything reads it.

The artifact follows ORAS's conventions for artifacts: an OCI image manifest whose `artifactType` is
`application/vnd.assay.suite.v1`, the empty config, and one layer: the suite folder as a gzipped tar,
titled `suite.tar.gz`. One tar layer rather than one layer per file: a knowledge base of thousands of
articles is one upload and one download instead of thousands of requests, and the archive is built
reproducibly (sorted names, zero times and owners, fixed modes, gzip without a time stamp), so the same
folder gives the same layer and manifest digest on every push. The manifest's annotations name the suite
and its content digest as `assay validate` computes it (`core.digests.suite_digest`).

The registry client is the `oras` package (oras-py): its session, its authentication (credentials from the
docker config file, `$DOCKER_CONFIG/config.json` and `~/.docker/config.json`: `auths` and credential
helpers; and registries' bearer-token exchange) and its request retries. The manifest and the blob are
written and read here, not by its `push`/`pull`: those cannot set `artifactType`, and `pull` neither checks a
digest nor refuses links.

Pulling fails closed: a reference without a digest is refused unless the caller allows a tag; the manifest's
bytes must hash to the digest asked for; the artifact type, the layer's media type and size are checked; the
layer's bytes must hash to its digest; and the archive may hold only folders and regular files, inside the
destination, each at most `MAX_FILE_BYTES`, all together at most `MAX_SUITE_BYTES`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from assay_runner.contract.oci_reference import (
    DIGEST_PATTERN,
    NOT_PINNED,
    OCI_SCHEME,
    REGISTRY_CA_ENV,
    Reference,
    split_reference,
)
from assay_runner.errors import InputError, Problem

if TYPE_CHECKING:
    import oras.provider

ARTIFACT_TYPE = "application/vnd.assay.suite.v1"
MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip"
EMPTY_CONFIG_MEDIA_TYPE = "application/vnd.oci.empty.v1+json"
EMPTY_CONFIG = b"{}"
LAYER_TITLE = "suite.tar.gz"
ANNOTATION_TITLE = "org.opencontainers.image.title"
ANNOTATION_SUITE = "dev.assay.suite.name"
ANNOTATION_SUITE_DIGEST = "dev.assay.suite.digest"

MAX_FILE_BYTES = 256 * 1024 * 1024
"""One file of a pulled suite, unpacked (a KB article, a judge's data file)."""
MAX_SUITE_BYTES = 1024 * 1024 * 1024
"""A pulled suite unpacked, and its compressed layer: a bound on what a registry can make us write."""
MAX_MANIFEST_BYTES = 4 * 1024 * 1024
"""The OCI distribution spec's own limit on a manifest registries must accept."""


_DIGEST = re.compile(rf"^{DIGEST_PATTERN}$")
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Pushed:
    reference: str
    """REGISTRY/REPOSITORY@sha256:... of the manifest pushed."""
    suite_name: str
    suite_digest: str
    layer_size: int


@dataclass(frozen=True)
class Pulled:
    folder: Path
    manifest_digest: str
    suite_name: str | None
    suite_digest: str | None
    """As the pusher annotated it; the caller recomputes the digest from the files it loads."""


def parse_reference(text: str, *, where: str = "REF") -> Reference:
    """A registry reference: REGISTRY[:PORT]/REPOSITORY, then `:TAG`, `@sha256:...`, or both (the rule is
    the contract's, which the operator applies to an Evaluation's `suite.oci`)."""
    try:
        return split_reference(text)
    except ValueError as exc:
        raise _bad(where, text, str(exc)) from None


def _bad(where: str, text: str, what: str) -> InputError:
    return InputError([Problem(text, where, what)])


def registry_ca(given: str | Path | None) -> str | None:
    """The CA bundle to verify the registry with: the option, else $ASSAY_REGISTRY_CA, else the system's."""
    ca = str(given) if given else os.environ.get(REGISTRY_CA_ENV) or None
    if ca is not None and not Path(ca).is_file():
        raise InputError([Problem(ca, "--registry-ca", "registry CA file not found")])
    return ca


def _client(ref: Reference, ca: str | None) -> oras.provider.Registry:
    import oras.container
    import oras.provider

    client = oras.provider.Registry(hostname=ref.registry, tls_verify=ca if ca else True)
    # Credentials for this registry from the docker config file, if it names any (oras-py reads
    # ~/.docker/config.json itself; $DOCKER_CONFIG's is added here, as docker and oras-go honour it).
    docker_config = os.environ.get("DOCKER_CONFIG")
    configs = [str(Path(docker_config) / "config.json")] if docker_config else None
    client.auth.load_configs(oras.container.Container(ref.name, registry=ref.registry), configs=configs)
    return client


def _url(ref: Reference, kind: str, what: str) -> str:
    return f"https://{ref.registry}/v2/{ref.repository}/{kind}/{what}"


def _request(
    client: oras.provider.Registry, url: str, method: str = "GET", **kwargs: Any
) -> Any:  # requests.Response
    import requests

    try:
        return client.do_request(url, method, **kwargs)
    except (requests.RequestException, ValueError) as exc:
        raise InputError([Problem(url, method, f"registry request failed: {exc}")]) from exc


def _check(response: Any, url: str, what: str) -> None:
    if response.status_code not in (200, 201, 202):
        body = response.text[:300] if not getattr(response.raw, "closed", False) else ""
        raise InputError([Problem(url, what, f"registry answered HTTP {response.status_code}: {body}")])


# --- push -------------------------------------------------------------------------------------------------


def _suite_files(folder: Path) -> Iterator[tuple[str, Path]]:
    """Every folder and regular file under `folder` (sorted), refusing links and special files: the
    artifact holds what a pull may unpack, nothing else."""
    problems: list[Problem] = []
    entries: list[tuple[str, Path]] = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink():
            problems.append(
                Problem(str(path), "", "is a link: a suite artifact holds only files and folders")
            )
        elif path.is_dir() or path.is_file():
            entries.append((relative, path))
        else:
            problems.append(Problem(str(path), "", "is not a regular file or folder"))
    if problems:
        raise InputError(problems)
    yield from entries


def pack(folder: Path, destination: Path) -> None:
    """The suite folder as a reproducible gzipped tar at `destination`."""
    with (
        destination.open("wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for relative, path in _suite_files(folder):
            info = tarfile.TarInfo(relative)
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if path.is_dir():
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            else:
                info.mode = 0o644
                info.size = path.stat().st_size
                with path.open("rb") as handle:
                    tar.addfile(info, handle)


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"


def _upload_blob(client: oras.provider.Registry, ref: Reference, path: Path, digest: str, size: int) -> None:
    head = _request(client, _url(ref, "blobs", digest), "HEAD")
    if head.status_code == 200:
        return
    start_url = f"https://{ref.registry}/v2/{ref.repository}/blobs/uploads/"
    started = _request(client, start_url, "POST")
    _check(started, start_url, "POST")
    location = started.headers.get("Location", "")
    if not location:
        raise InputError([Problem(start_url, "POST", "registry gave no upload location")])
    if location.startswith("/"):
        location = f"https://{ref.registry}{location}"
    separator = "&" if "?" in location else "?"
    put_url = f"{location}{separator}digest={digest}"
    with path.open("rb") as handle:
        put = _request(
            client,
            put_url,
            "PUT",
            data=handle,  # streamed: a large KB is never held in memory
            headers={"Content-Type": "application/octet-stream", "Content-Length": str(size)},
        )
    _check(put, put_url, "PUT blob")


def push(folder: Path, target: str, ca: str | None) -> Pushed:
    """Validate the suite, pack it, upload the layer and the empty config, then the manifest; return the
    reference pinned to the manifest's digest (computed here from the bytes sent)."""
    from assay_runner.core.digests import suite_digest
    from assay_runner.suite import load_suite

    suite = load_suite(str(folder))
    content_digest = suite_digest(suite)
    ref = parse_reference(target)
    if ref.digest is not None:
        raise _bad("REF", target, "push to a repository or a tag: the digest is the registry's answer")
    client = _client(ref, ca)
    with tempfile.TemporaryDirectory(prefix="assay-push-") as scratch:
        layer = Path(scratch) / LAYER_TITLE
        pack(folder, layer)
        layer_digest, layer_size = _sha256_file(layer), layer.stat().st_size
        _upload_blob(client, ref, layer, layer_digest, layer_size)
        config = Path(scratch) / "config.json"
        config.write_bytes(EMPTY_CONFIG)
        config_digest = f"sha256:{hashlib.sha256(EMPTY_CONFIG).hexdigest()}"
        _upload_blob(client, ref, config, config_digest, len(EMPTY_CONFIG))
    manifest = {
        "schemaVersion": 2,
        "mediaType": MANIFEST_MEDIA_TYPE,
        "artifactType": ARTIFACT_TYPE,
        "config": {"mediaType": EMPTY_CONFIG_MEDIA_TYPE, "digest": config_digest, "size": len(EMPTY_CONFIG)},
        "layers": [
            {
                "mediaType": LAYER_MEDIA_TYPE,
                "digest": layer_digest,
                "size": layer_size,
                "annotations": {ANNOTATION_TITLE: LAYER_TITLE},
            }
        ],
        "annotations": {ANNOTATION_SUITE: suite.name, ANNOTATION_SUITE_DIGEST: content_digest},
    }
    body = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
    manifest_digest = f"sha256:{hashlib.sha256(body).hexdigest()}"
    url = _url(ref, "manifests", ref.tag or manifest_digest)
    response = _request(client, url, "PUT", data=body, headers={"Content-Type": MANIFEST_MEDIA_TYPE})
    _check(response, url, "PUT manifest")
    answered = response.headers.get("Docker-Content-Digest")
    if answered and answered != manifest_digest:
        raise InputError([Problem(url, "PUT manifest", f"registry stored {answered}, not {manifest_digest}")])
    return Pushed(ref.pinned(manifest_digest), suite.name, content_digest, layer_size)


# --- pull -------------------------------------------------------------------------------------------------


def _manifest(
    client: oras.provider.Registry, ref: Reference, text: str, allow_tag: bool
) -> tuple[dict[str, Any], str]:
    if ref.digest is None and not allow_tag:
        raise _bad(
            "REF", text, "has no @sha256:... digest: pull by digest (or pass --allow-tag to trust a tag)"
        )
    url = _url(ref, "manifests", ref.digest or str(ref.tag or "latest"))
    response = _request(client, url, "GET", headers={"Accept": MANIFEST_MEDIA_TYPE}, stream=True)
    _check(response, url, "GET manifest")
    body = response.raw.read(MAX_MANIFEST_BYTES + 1, decode_content=True)
    if len(body) > MAX_MANIFEST_BYTES:
        raise _bad("manifest", text, f"is larger than {MAX_MANIFEST_BYTES} bytes")
    digest = f"sha256:{hashlib.sha256(body).hexdigest()}"
    if ref.digest is not None and digest != ref.digest:
        raise _bad("manifest", text, f"the registry's manifest hashes to {digest}, not the digest asked for")
    try:
        manifest = json.loads(body)
    except ValueError as exc:
        raise _bad("manifest", text, f"is not JSON: {exc}") from exc
    if not isinstance(manifest, dict):
        raise _bad("manifest", text, "is not a JSON object")
    return manifest, digest


def _suite_layer(manifest: dict[str, Any], text: str) -> tuple[str, int]:
    if manifest.get("mediaType") != MANIFEST_MEDIA_TYPE:
        raise _bad("manifest", text, f"media type {manifest.get('mediaType')!r} is not an OCI image manifest")
    if manifest.get("artifactType") != ARTIFACT_TYPE:
        found = manifest.get("artifactType")
        raise _bad("manifest", text, f"artifact type {found!r} is not a suite ({ARTIFACT_TYPE})")
    layers = manifest.get("layers")
    if not isinstance(layers, list) or len(layers) != 1 or not isinstance(layers[0], dict):
        raise _bad("manifest", text, "a suite artifact has exactly one layer")
    layer = layers[0]
    digest, size = layer.get("digest"), layer.get("size")
    if layer.get("mediaType") != LAYER_MEDIA_TYPE:
        raise _bad("manifest", text, f"layer media type {layer.get('mediaType')!r} is not {LAYER_MEDIA_TYPE}")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise _bad("manifest", text, f"layer digest {digest!r} is not a sha256 digest")
    if not isinstance(size, int) or not 0 < size <= MAX_SUITE_BYTES:
        raise _bad("manifest", text, f"layer size {size!r} is not between 1 and {MAX_SUITE_BYTES} bytes")
    return digest, size


def _download(client: oras.provider.Registry, ref: Reference, digest: str, size: int, out: Path) -> None:
    """The blob into `out`, hashed as it streams; refused past its declared size or on another digest."""
    url = _url(ref, "blobs", digest)
    response = _request(client, url, "GET", stream=True)
    _check(response, url, "GET blob")
    hasher, written = hashlib.sha256(), 0
    with out.open("wb") as handle:
        for chunk in response.iter_content(chunk_size=_CHUNK):
            written += len(chunk)
            if written > size:
                raise InputError(
                    [Problem(url, "layer", f"is larger than the {size} bytes its manifest says")]
                )
            hasher.update(chunk)
            handle.write(chunk)
    if written != size or f"sha256:{hasher.hexdigest()}" != digest:
        found = f"sha256:{hasher.hexdigest()}"
        raise InputError(
            [Problem(url, "layer", f"{written} bytes hashing to {found}, not {size} to {digest}")]
        )


def unpack(archive: Path, destination: Path) -> None:
    """The layer's folders and regular files into `destination` (which must be empty), refusing links,
    devices, paths outside it, a file over `MAX_FILE_BYTES` and a total over `MAX_SUITE_BYTES`."""
    where = str(archive)
    total = 0
    root = destination.resolve()
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar:
                name = PurePosixPath(member.name)
                target = (root / name).resolve()
                if name.is_absolute() or ".." in name.parts or not target.is_relative_to(root):
                    raise InputError([Problem(where, member.name, "path escapes the suite folder")])
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isfile():
                    raise InputError(
                        [Problem(where, member.name, "is not a regular file or folder (a link?)")]
                    )
                if member.size > MAX_FILE_BYTES:
                    raise InputError([Problem(where, member.name, f"is larger than {MAX_FILE_BYTES} bytes")])
                total += member.size
                if total > MAX_SUITE_BYTES:
                    raise InputError([Problem(where, "", f"unpacks to more than {MAX_SUITE_BYTES} bytes")])
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None  # a regular file's member always has one
                with source, target.open("xb") as handle:
                    shutil.copyfileobj(source, handle, _CHUNK)
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, FileExistsError) as exc:
        raise InputError([Problem(where, "layer", f"is not a well-formed suite archive: {exc}")]) from exc


def pull(text: str, destination: Path, ca: str | None, *, allow_tag: bool = False) -> Pulled:
    """Fetch the suite artifact `text` into `destination` (created; must not exist or be empty), verified
    before anything is in it."""
    ref = parse_reference(text)
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise InputError([Problem(str(destination), "DIR", "exists and is not an empty folder")])
    client = _client(ref, ca)
    manifest, manifest_digest = _manifest(client, ref, text, allow_tag)
    layer_digest, layer_size = _suite_layer(manifest, text)
    annotations = manifest.get("annotations") if isinstance(manifest.get("annotations"), dict) else {}
    destination.parent.mkdir(parents=True, exist_ok=True)
    # Unpacked beside DIR and moved in whole: a refused artifact leaves nothing in DIR.
    with tempfile.TemporaryDirectory(prefix=".assay-pull-", dir=destination.parent) as scratch:
        archive = Path(scratch) / LAYER_TITLE
        _download(client, ref, layer_digest, layer_size, archive)
        unpacked = Path(scratch) / "suite"
        unpacked.mkdir()
        unpack(archive, unpacked)
        archive.unlink()
        if destination.exists():
            destination.rmdir()  # checked empty above
        unpacked.rename(destination)
    return Pulled(
        destination,
        manifest_digest,
        annotations.get(ANNOTATION_SUITE) if annotations else None,
        annotations.get(ANNOTATION_SUITE_DIGEST) if annotations else None,
    )


def cache_dir() -> Path:
    return Path(os.environ.get("ASSAY_CACHE") or Path.home() / ".cache" / "assay") / "suites"


def resolve_suite(suite: str, ca: str | None = None) -> tuple[str, str | None]:
    """A suite argument as a folder: `oci://REGISTRY/REPO@sha256:...` is pulled (once) into the cache,
    keyed by the manifest digest, and its folder returned with that digest; anything else is returned as
    is, with None. A digest is required: a tag could name other content tomorrow."""
    if not suite.startswith(OCI_SCHEME):
        return suite, None
    ref = parse_reference(suite, where="suite")
    if ref.digest is None:
        raise _bad("suite", suite, NOT_PINNED)
    folder = cache_dir() / ref.digest.replace(":", "-")
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=".pull-", dir=folder.parent) as scratch:
            pulled = Path(scratch) / "suite"
            pull(suite, pulled, registry_ca(ca))
            try:
                pulled.rename(folder)
            except OSError:  # another process pulled the same digest first: same bytes, keep theirs
                if not folder.is_dir():
                    raise
    return str(folder), ref.digest
