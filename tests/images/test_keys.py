"""The content key of an image build (assay_dev.images.keys): it follows exactly what `buildah bud` reads,
so equal keys mean equal inputs and a warm `make images` can skip the build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay_dev.images.keys import FileHashes, image_key


def test_the_content_key_follows_what_the_build_reads_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.py").write_text("print('one')\n")
    (tmp_path / "notes.txt").write_text("not copied\n")
    (tmp_path / ".containerignore").write_text("*\n!app/\n**/__pycache__\n")
    containerfile = tmp_path / "Containerfile"
    containerfile.write_text("ARG BASE=scratch\nFROM ${BASE}\nCOPY app/ /app/\n")
    hashes = FileHashes(None)

    def key(**args: str) -> str:
        return image_key(tmp_path, containerfile, {"BASE": "scratch", **args}, hashes)

    first = key()
    (tmp_path / "notes.txt").write_text("still not copied\n")
    (tmp_path / "app" / "__pycache__").mkdir()
    (tmp_path / "app" / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    assert key() == first  # files the build never sees do not count
    (tmp_path / "app" / "main.py").write_text("print('two')\n")
    assert key() != first  # a copied file's content does
    second = key()
    (tmp_path / "app" / "main.py").chmod(0o755)
    assert key() != second  # and its mode
    assert key(BASE="other") != key()  # and the build arguments (the base among them)
    containerfile.write_text("ARG BASE=scratch\nFROM ${BASE}\nCOPY app/ /srv/\n")
    assert key() != second


def test_a_copy_of_nothing_is_an_error_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / ".containerignore").write_text("*\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.py").write_text("x\n")
    containerfile = tmp_path / "Containerfile"
    containerfile.write_text("FROM scratch\nCOPY app/ /app/\n")
    with pytest.raises(FileNotFoundError, match=re.escape("Containerfile:2: COPY app/")):
        image_key(tmp_path, containerfile, {})
