"""`io.plain`: only a plain file is read; anything else is refused with what it is, never read or awaited."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from assay_runner.io.plain import NotPlain, plain_tree, read


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    (workspace / "notes").mkdir(parents=True)
    (tmp_path / "keys.yaml").write_text("the key")
    return workspace


def test_a_plain_file_is_read_and_a_missing_one_is_none(root: Path) -> None:
    (root / "notes" / "a.md").write_text("hello")
    assert read(root, "notes/a.md") == b"hello"
    assert read(root, "answer.md") is None
    assert read(root, "missing/answer.md") is None


def bind(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()


CASES: dict[str, tuple[Callable[[Path, Path], object], str]] = {
    "symlink-outside": (lambda at, keys: at.symlink_to(keys), "is a symbolic link to {keys} (outside"),
    "symlink-inside": (lambda at, keys: at.symlink_to("notes"), "is a symbolic link to notes (inside"),
    "hard-link": (lambda at, keys: os.link(keys, at), "is a hard link (2 names"),
    "fifo": (lambda at, keys: os.mkfifo(at), "is a named pipe (FIFO): refused"),
    "socket": (lambda at, keys: bind(at), "is a socket: refused"),
    "folder": (lambda at, keys: at.mkdir(), "is a folder: refused"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_anything_but_a_plain_file_is_refused_with_what_it_is(root: Path, case: str) -> None:
    make, expected = CASES[case]
    keys = root.parent / "keys.yaml"
    make(root / "answer.md", keys)
    with pytest.raises(NotPlain) as refused:
        read(root, "answer.md")
    assert str(refused.value).startswith("answer.md ")
    assert expected.format(keys=keys) in str(refused.value)


def test_a_linked_folder_on_the_way_is_refused(root: Path) -> None:
    (root.parent / "elsewhere").mkdir()
    (root.parent / "elsewhere" / "answer.md").write_text("the key")
    (root / "out").symlink_to(root.parent / "elsewhere")
    with pytest.raises(NotPlain, match=r"out is a symbolic link to .*elsewhere"):
        read(root, "out/answer.md")


def test_a_tree_with_a_link_or_a_pipe_is_refused_and_a_plain_one_read(root: Path) -> None:
    (root / "notes" / "a.md").write_text("a")
    assert plain_tree(root) == {"notes/a.md": b"a"}
    os.mkfifo(root / "notes" / "pipe")
    with pytest.raises(NotPlain, match="notes/pipe is a named pipe"):
        plain_tree(root)
    (root / "notes" / "pipe").unlink()
    (root / "kb").symlink_to(root.parent)
    with pytest.raises(NotPlain, match="kb is a symbolic link"):
        plain_tree(root)


def test_a_root_that_is_a_link_is_refused(root: Path) -> None:
    (root.parent / "linked").symlink_to(root)
    with pytest.raises(NotPlain, match="is a symbolic link or not a folder"):
        plain_tree(root.parent / "linked")
    with pytest.raises(NotPlain, match="is a symbolic link or not a folder"):
        read(root.parent / "linked", "answer.md")
