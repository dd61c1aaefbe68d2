"""A real OCI registry on loopback, over TLS from a CA made here: go-containerregistry's registry
(tools/registry, built from the Go module proxy by scripts/build-go-tools.sh), for the suite-artifact tests
(`assay push`, `assay pull`, `oci://` suites) and the images pushed by digest, signed and pulled by the
local kubelet. Blobs are kept on disk in the registry's own folder (`blobs/sha256/<hex>`); with
`serve_as_stored` the registry serves them without re-hashing, so a test can change one byte of a layer."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from assay_dev.cluster.certs import write_loopback_serving_cert

REPO = Path(__file__).resolve().parents[3]
GO_TOOLS = REPO / "scripts" / "build-go-tools.sh"
READY_PREFIX = "listening on "


def locate() -> Path:
    """The registry binary, built on first use (a no-op when cached)."""
    built = subprocess.run(["bash", str(GO_TOOLS), "registry"], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise RuntimeError(f"{GO_TOOLS} registry failed:\n{built.stderr}")
    return Path(built.stdout.strip().splitlines()[-1])


@dataclass
class Registry:
    """Started on a free port of 127.0.0.1; `host` is HOST:PORT (what a reference begins with), `ca` the
    PEM file that verifies its certificate."""

    workdir: Path
    serve_as_stored: bool = False
    host: str = ""
    ca: Path = Path()
    _process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"https://{self.host}"

    def blob_path(self, digest: str) -> Path:
        """Where the registry keeps a blob on disk."""
        algorithm, _, hexdigest = digest.partition(":")
        return self.workdir / "blobs" / algorithm / hexdigest

    def __enter__(self) -> Self:
        ca, cert, key = write_loopback_serving_cert(self.workdir / "tls", "assay-test-registry")
        self.ca = ca
        blobs = self.workdir / "blobs"
        blobs.mkdir(parents=True, exist_ok=True)
        log = (self.workdir / "registry.log").open("w")
        self._process = subprocess.Popen(
            [
                str(locate()),
                "-address",
                "127.0.0.1:0",
                "-cert",
                str(cert),
                "-key",
                str(key),
                "-disk",
                str(blobs),
                *(["-serve-as-stored"] if self.serve_as_stored else []),
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        log.close()
        assert self._process.stdout is not None
        line = self._process.stdout.readline()  # blocks until bound, or EOF if it failed
        if not line.startswith(READY_PREFIX):
            self.__exit__(None, None, None)
            raise RuntimeError(
                f"registry did not start: {(self.workdir / 'registry.log').read_text()[-2000:]}"
            )
        self.host = line.removeprefix(READY_PREFIX).strip()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=30)
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None
