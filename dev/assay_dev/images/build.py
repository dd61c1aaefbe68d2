"""`make images`: the operator and runner images (and the runner with the pinned agent CLIs), built with
buildah from the Containerfiles under images/, cached by content, with their digests and SBOMs recorded.

Each image is tagged `<repository>:<first 16 hex digits of its content key>` (see keys.py); a build whose
tag is already in the store is skipped, and `<repository>:latest` points at the newest. `buildah bud
--layers` keeps every stage's layers, so a new key that only changes the sources (the common case) reuses
the dependency layers and rebuilds in seconds. The record, out/images/images.json, names each image by its
manifest digest (`localhost/assay-runner@sha256:...`): the tests, `make demo`, the chart install and the
digest-pinned OLM bundle read it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import bases, buildah, launcher, node, requirements, sbom
from .keys import FileHashes, image_key

Log = Callable[[str], None]

REPO = Path(__file__).resolve().parents[3]
RECORD = Path("out/images/images.json")


def cache_dir() -> Path:
    return Path(os.environ.get("ASSAY_CACHE") or Path.home() / ".cache" / "assay") / "images"


@dataclass(frozen=True)
class ImageDef:
    name: str
    containerfile: Path
    repository: str
    args: dict[str, str] = field(default_factory=dict)
    needs_node: bool = False
    """The runner's images: Node (images/node) and the sandbox's launcher (images/launcher) are made
    first, on the build host."""


def agent_clis(root: Path) -> str:
    """Every CLI pinned in agents/package.json: what the runner-agents image carries."""
    pinned = json.loads((root / "agents" / "package.json").read_text())["dependencies"]
    return " ".join(sorted(pinned))


def definitions(root: Path = REPO) -> list[ImageDef]:
    runner = Path("images/runner/Containerfile")
    return [
        ImageDef("operator", Path("images/operator/Containerfile"), "localhost/assay-operator"),
        ImageDef("runner", runner, "localhost/assay-runner", {"AGENT_CLIS": ""}, needs_node=True),
        ImageDef(
            "runner-agents",
            runner,
            "localhost/assay-runner-agents",
            {"AGENT_CLIS": agent_clis(root)},
            needs_node=True,
        ),
    ]


DEFAULT_IMAGES = ("operator", "runner", "runner-agents")


@dataclass(frozen=True)
class BuiltImage:
    name: str
    repository: str
    tag: str
    key: str
    id: str
    digest: str
    base: str
    """`ubi` or `debian`."""
    base_image: str
    """The final stage's base (BASE): a plain image whose user is root."""
    seconds: float
    """Build time in this run; 0 when the key was already in the store."""
    sbom: str
    size: int

    @property
    def reference(self) -> str:
        """The image by digest, as pods and the chart name it."""
        return f"{self.repository}@{self.digest}"


class ImageBuildError(RuntimeError):
    """An image could not be built; the message has the tail of buildah's log."""


@contextlib.contextmanager
def locked(name: str) -> Iterator[None]:
    """One builder per image name on this machine (two worktrees, or two test workers, may build at once)."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    with (cache_dir() / f".lock-{name}").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _secrets() -> list[str]:
    """The host's CA bundle and pip config as build secrets: a network that re-signs TLS needs them in the
    builder stages, and secrets land in no layer."""
    args: list[str] = []
    bundles = [os.environ.get(v, "") for v in ("PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")]
    bundle = next(
        (b for b in [*bundles, "/etc/ssl/certs/ca-certificates.crt"] if b and Path(b).is_file()), ""
    )
    if bundle:
        args += ["--secret", f"id=ca-bundle,src={bundle}"]
    configs = [
        os.environ.get("PIP_CONFIG_FILE", ""),
        "/etc/pip.conf",
        str(Path.home() / ".config" / "pip" / "pip.conf"),
        str(Path.home() / ".pip" / "pip.conf"),
    ]
    config = next((c for c in configs if c and c != os.devnull and Path(c).is_file()), "")
    if config:
        args += ["--secret", f"id=pip-conf,src={config}"]
    return args


def _bud(
    root: Path, definition: ImageDef, build_args: dict[str, str], tag: str, key: str, log_file: Path
) -> None:
    argv = [
        "bud",
        "--isolation",
        "chroot",
        "--pull=never",
        "--layers",
        "--file",
        str(root / definition.containerfile),
        "--tag",
        tag,
        "--label",
        f"dev.assay.image.key={key}",
        *_secrets(),
    ]
    for name, value in sorted(build_args.items()):
        argv += ["--build-arg", f"{name}={value}"]
    argv.append(str(root))
    log_file.parent.mkdir(parents=True, exist_ok=True)
    import subprocess

    with log_file.open("w") as out:
        result = subprocess.run(
            [buildah.buildah_path(), *argv], stdout=out, stderr=subprocess.STDOUT, cwd=root, check=False
        )
    if result.returncode != 0:
        tail = "\n".join(log_file.read_text(errors="replace").splitlines()[-40:])
        raise ImageBuildError(f"building {definition.name} failed (log: {log_file}):\n{tail}")


def _keyed(
    root: Path, definition: ImageDef, chosen: bases.Bases, hashes: FileHashes
) -> tuple[dict[str, str], str, str]:
    build_args = {**chosen.build_args(), **definition.args}
    key = image_key(root, root / definition.containerfile, build_args, hashes)
    return build_args, key, f"{definition.repository}:{key[:16]}"


def build(
    names: Sequence[str] = DEFAULT_IMAGES,
    *,
    root: Path = REPO,
    base: str = "auto",
    with_sbom: bool = True,
    log: Log = print,
) -> list[BuiltImage]:
    """Build (or find cached) each named image; write out/images/images.json; return the records."""
    if os.environ.get("ASSAY_NO_BUILDS"):  # make test's first phase, which runs beside `make images`
        raise ImageBuildError(
            "ASSAY_NO_BUILDS is set (make test's first phase): a test that needs the images must be marked "
            "`builds`"
        )
    known = {d.name: d for d in definitions(root)}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ImageBuildError(f"unknown image(s) {unknown}: choose from {', '.join(known)}")
    stale = requirements.drift(root)
    if stale:
        raise ImageBuildError(
            "images/deps/ does not match pyproject.toml: run `python -m assay_dev.images.requirements`\n"
            + "".join(stale)
        )
    chosen = bases.choose(root, base, log)
    if any(known[n].needs_node for n in names):  # the runner images: Node and the sandbox's launcher
        node.prepare(root)
        launcher.prepare(root)
    hashes = FileHashes(cache_dir() / "file-hashes.json")
    syft: Path | None = None
    built: list[BuiltImage] = []
    for name in names:
        definition = known[name]
        with locked(name):
            build_args, key, tag = _keyed(root, definition, chosen, hashes)
            hashes.save()
            seconds = 0.0
            if not buildah.image_exists(tag):
                log(f"building {name} ({tag}) on the {chosen.kind} base")
                started = time.monotonic()
                _bud(root, definition, build_args, tag, key, cache_dir() / "logs" / f"{name}-{key[:16]}.log")
                seconds = time.monotonic() - started
            buildah.tag(tag, f"{definition.repository}:latest")
            info = buildah.inspect_image(tag)
            digest = info.digest if seconds else _as_recorded(root, definition.repository, name, key, info)
            sbom_file = cache_dir() / "sbom" / f"{name}-{key[:16]}.spdx.json"
            if with_sbom and not sbom_file.is_file():
                syft = syft or sbom.syft_binary(root)
                sbom.write_sbom(syft, info, f"assay-{name}", sbom_file)
        built.append(
            BuiltImage(
                name=name,
                repository=definition.repository,
                tag=tag,
                key=key,
                id=info.id,
                digest=digest,
                base=chosen.kind,
                base_image=chosen.base,
                seconds=round(seconds, 1),
                sbom=str(sbom_file) if sbom_file.is_file() else "",
                size=buildah.image_size(tag),
            )
        )
    write_record(root, built)
    return built


def _as_recorded(root: Path, repository: str, name: str, key: str, info: buildah.ImageInfo) -> str:
    """The digest this build recorded for an image it did not build now, while the store still names the same
    image by it. Pulling the image back from a registry (the local node does, through `buildah pull`) adds
    the registry's manifest to the same image (the same config, so the same ID) and makes that the store's
    first digest: the built one still names it, and is what the chart, the bundle and the tests were given."""
    with contextlib.suppress(ImageBuildError, buildah.ImageNotFound, KeyError, TypeError, ValueError):
        entry = read_record(root)[name]
        recorded = str(entry["digest"])
        same_build = entry["key"] == key and recorded != info.digest
        if same_build and buildah.inspect_image(f"{repository}@{recorded}").id == info.id:
            return recorded
    return info.digest


def current(
    names: Sequence[str] = DEFAULT_IMAGES, *, root: Path = REPO, base: str = "auto"
) -> list[BuiltImage]:
    """The images for this checkout as the store has them, building what is missing (warm: a second)."""
    return build(names, root=root, base=base, with_sbom=False, log=lambda _: None)


def write_record(root: Path, built: Sequence[BuiltImage]) -> Path:
    """Merge the built images into out/images/images.json (other images' entries are kept); copy each
    SBOM next to it as <name>.spdx.json."""
    target = root / RECORD
    target.parent.mkdir(parents=True, exist_ok=True)
    # Locked, through a temporary file of its own: two processes (the two workers of `make test`'s cluster
    # phase, which both locate the images at collection) must not write one temporary file or lose an entry.
    with locked("record"):
        return _merge_record(root, target, built)


def _merge_record(root: Path, target: Path, built: Sequence[BuiltImage]) -> Path:
    record: dict[str, dict[str, object]] = {}
    if target.is_file():
        with contextlib.suppress(ValueError):
            record = json.loads(target.read_text()).get("images", {})
    for image in built:
        entry = {**asdict(image), "reference": image.reference}
        if image.sbom:
            copy = target.parent / f"{image.name}.spdx.json"
            copy.write_bytes(Path(image.sbom).read_bytes())
            entry["sbom"] = str(copy.relative_to(root))
        elif isinstance(record.get(image.name), dict) and record[image.name].get("key") == image.key:
            entry["sbom"] = record[image.name].get("sbom", "")
        record[image.name] = entry
    temporary = target.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"images": record}, indent=2, sort_keys=True) + "\n")
    temporary.replace(target)
    return target


def read_record(root: Path = REPO) -> dict[str, dict[str, object]]:
    target = root / RECORD
    if not target.is_file():
        raise ImageBuildError(f"{RECORD} does not exist: run `make images`")
    images: dict[str, dict[str, object]] = json.loads(target.read_text())["images"]
    return images
