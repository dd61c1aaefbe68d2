"""The suite archive's checks without a registry: references, and what `unpack` refuses (the bounds are
lowered here so the refusal is shown on small files; the registry tests show the rest end to end)."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest

from assay_runner.errors import InputError
from assay_runner.io import suite_artifact
from assay_runner.io.suite_artifact import pack, parse_reference, unpack

DIGEST = "sha256:" + "a" * 64


def test_references() -> None:
    ref = parse_reference(f"oci://registry.example:5000/team/suites/desk:v1@{DIGEST}")
    assert (ref.registry, ref.repository, ref.tag, ref.digest) == (
        "registry.example:5000",
        "team/suites/desk",
        "v1",
        DIGEST,
    )
    assert parse_reference("localhost/desk").tag is None
    for bad in ("desk", "desk:v1", "registry.example/Desk", f"registry.example/desk@sha256:{'A' * 64}"):
        with pytest.raises(InputError):
            parse_reference(bad)


def _archive(path: Path, *files: tuple[str, bytes]) -> Path:
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb") as zipped, tarfile.open(fileobj=zipped, mode="w") as tar:
        for name, data in files:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(raw.getvalue())
    return path


def test_a_file_over_the_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(suite_artifact, "MAX_FILE_BYTES", 1024)
    archive = _archive(tmp_path / "a.tar.gz", ("suite.yaml", b"x" * 100), ("kb/big.md", b"x" * 1025))
    (tmp_path / "out").mkdir()
    with pytest.raises(InputError, match=r"kb/big\.md: is larger than 1024 bytes"):
        unpack(archive, tmp_path / "out")


def test_a_suite_over_the_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(suite_artifact, "MAX_SUITE_BYTES", 2000)
    archive = _archive(tmp_path / "a.tar.gz", *[(f"kb/{i}.md", b"x" * 900) for i in range(3)])
    (tmp_path / "out").mkdir()
    with pytest.raises(InputError, match="unpacks to more than 2000 bytes"):
        unpack(archive, tmp_path / "out")


def test_not_an_archive(tmp_path: Path) -> None:
    (tmp_path / "a.tar.gz").write_bytes(b"not gzip")
    (tmp_path / "out").mkdir()
    with pytest.raises(InputError, match="not a well-formed suite archive"):
        unpack(tmp_path / "a.tar.gz", tmp_path / "out")


def test_pack_is_reproducible_and_refuses_links(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    (suite / "kb").mkdir(parents=True)
    (suite / "suite.yaml").write_text("name: x\n")
    (suite / "kb" / "a.md").write_text("# A\n")
    pack(suite, tmp_path / "one.tar.gz")
    (suite / "kb" / "a.md").touch()  # a new time stamp changes nothing
    pack(suite, tmp_path / "two.tar.gz")
    assert (tmp_path / "one.tar.gz").read_bytes() == (tmp_path / "two.tar.gz").read_bytes()
    (suite / "kb" / "b.md").symlink_to("/etc/passwd")
    with pytest.raises(InputError, match="is a link"):
        pack(suite, tmp_path / "three.tar.gz")
