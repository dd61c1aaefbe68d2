"""Nothing is followed out of a workspace or an answers tree: a link, a hard link or anything but a plain file
where an answer (or a side file, or a read-only article) should be is refused, never read, and the cell
blocks with the file and the reason named.

The "keys" here are a file an agent must not hand to the judges: it holds a passing answer (so a judge that
read it would pass the cell) and a marker that must never reach result.json.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.test_sealed_cells import ASSAY, GOOD_AGENT

MARKER = "KEY-7f3a-never-judged"
KEYS = f"## Summary\nSee [KB-1]. {MARKER}\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nReply.\n"

# What the agent leaves as answer.md (argv[1]: the keys file, argv[2]: a folder outside the workspace).
LEAVES = {
    "symlink": "import os, sys; os.symlink(sys.argv[1], 'answer.md')",
    "hard-link": "import os, sys; os.link(sys.argv[1], 'answer.md')",
    "hard-link-in-workspace": "import os; os.link('prompt.md', 'answer.md')",
    "symlink-to-folder": "import os, sys; os.symlink(sys.argv[2], 'answer.md')",
    "fifo": "import os; os.mkfifo('answer.md')",
}
EXPECTED = {
    "symlink": "answer.md is a symbolic link to {keys} (outside the workspace): refused",
    "hard-link": "answer.md is a hard link (2 names",
    "hard-link-in-workspace": "answer.md is a hard link (2 names",
    "symlink-to-folder": "answer.md is a symbolic link to {folder} (outside the workspace): refused",
    "fifo": "answer.md is a named pipe (FIFO): refused",
}


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    path = tmp_path / "keys" / "tickets.yaml"
    path.parent.mkdir()
    path.write_text(KEYS)
    return path


def config(tmp_path: Path, suite: Path, brain: Path, agent: list[str]) -> Path:
    path = tmp_path / "run.json"
    answers = tmp_path / "answers"
    settings = {
        "suite": str(suite),
        "brain": str(brain),
        "tickets": ["T-1"],
        "mlflow": {"enabled": False},
        "answersDir": str(answers),
        "output": {"dir": str(tmp_path / "out")},
        "agent": {"kind": "command", "model": "m", "timeoutSeconds": 30, "command": agent},
    }
    path.write_text(json.dumps(settings))
    return path


UNSANDBOXED = {"hard-link"}
"""Run as on a kernel without Landlock: in a cell's sandbox a hard link from outside the workspace into it
is refused (it would gain write rights; tests/runner/test_sandbox.py shows it for the keys), so only
without one does the link reach io.plain, the layer behind the sandbox this case is about. The sandboxed
cell's own hard link (hard-link-in-workspace) reaches io.plain too."""


def assay(*args: str, env: dict[str, str] | None = None) -> int:
    return subprocess.run([*ASSAY, *args, "-q"], check=False, timeout=120, env=env).returncode


def error_of(tmp_path: Path) -> str:
    text = (tmp_path / "out" / "result.json").read_text()
    assert MARKER not in text
    return str(json.loads(text)["tickets"][0]["repetitions"][0]["error"])


@pytest.mark.parametrize("leaves", sorted(LEAVES))
def test_an_answer_that_is_not_a_plain_file_is_refused_in_the_workspace(
    suite: Path, brain: Path, tmp_path: Path, keys: Path, leaves: str
) -> None:
    agent = [sys.executable, "-c", LEAVES[leaves], str(keys), str(keys.parent)]
    env = {**os.environ, "ASSAY_LANDLOCK_ABI_MAX": "0"} if leaves in UNSANDBOXED else None
    assert assay("run", "--config", str(config(tmp_path, suite, brain, agent)), env=env) == 1
    assert EXPECTED[leaves].format(keys=keys, folder=keys.parent) in error_of(tmp_path)
    assert keys.read_text() == KEYS


def test_a_read_only_article_swapped_for_a_link_blocks_and_its_target_is_left_alone(
    suite: Path, brain: Path, tmp_path: Path, keys: Path
) -> None:
    """The agent makes kb/ writable (it runs as the runner's user) and puts a link in place of an article:
    brain/ and kb/ no longer match, the cell blocks; removing the workspace changes nothing the link names."""
    swap = (
        "import os, sys; os.chmod('kb', 0o700); os.unlink('kb/KB-1.md'); "
        "os.symlink(sys.argv[1], 'kb/KB-1.md'); " + GOOD_AGENT
    )
    keys.chmod(0o444)
    agent = [sys.executable, "-c", swap, str(keys)]
    assert assay("run", "--config", str(config(tmp_path, suite, brain, agent))) == 1
    assert "modified its read-only brain/ or kb/ files" in error_of(tmp_path)
    assert stat.S_IMODE(keys.stat().st_mode) == 0o444  # not made writable through the link


def test_a_read_only_folder_swapped_for_a_link_blocks_and_what_it_names_is_left_alone(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """The workspace's root is the agent's: it can move brain/ aside and put a link to any folder in its
    place. Removing the workspace must not walk into that folder (as root, chmod every file it holds)."""
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "file.md").write_text("not the workspace's")
    (outside / "deep" / "file.md").chmod(0o444)
    folder_mode = stat.S_IMODE((outside / "deep").stat().st_mode)
    swap = "import os, sys; os.rename('brain', 'moved'); os.symlink(sys.argv[1], 'brain'); " + GOOD_AGENT
    agent = [sys.executable, "-c", swap, str(outside)]
    assert assay("run", "--config", str(config(tmp_path, suite, brain, agent))) == 1
    assert "modified its read-only brain/ or kb/ files" in error_of(tmp_path)
    assert stat.S_IMODE((outside / "deep" / "file.md").stat().st_mode) == 0o444
    assert stat.S_IMODE((outside / "deep").stat().st_mode) == folder_mode


def good_tree(tmp_path: Path, suite: Path, brain: Path) -> tuple[Path, Path]:
    """A good answer phase's tree for T-1, and the config that scores it."""
    path = config(tmp_path, suite, brain, [sys.executable, "-c", GOOD_AGENT])
    assert assay("answer", "--config", str(path)) == 0
    return tmp_path / "answers" / "T-1" / "1", path


TREE_ENTRIES = {
    "answer-symlink": ("answer.md", lambda keys, to: to.symlink_to(keys), "answer.md is a symbolic link to"),
    "answer-fifo": ("answer.md", lambda keys, to: os.mkfifo(to), "answer.md is a named pipe (FIFO)"),
    "answer-folder-link": (
        "answer.md",
        lambda keys, to: to.symlink_to(keys.parent),
        "answer.md is a symbolic link to",
    ),
    "side-file-symlink": ("notes.md", lambda keys, to: to.symlink_to(keys), "notes.md is a symbolic link to"),
    "side-file-hard-link": ("notes.md", os.link, "notes.md is a hard link"),
}


@pytest.mark.parametrize("entry", sorted(TREE_ENTRIES))
def test_an_entry_of_an_answers_tree_that_is_not_a_plain_file_is_refused(
    suite: Path, brain: Path, tmp_path: Path, keys: Path, entry: str
) -> None:
    name, make, expected = TREE_ENTRIES[entry]
    cell, path = good_tree(tmp_path, suite, brain)
    target = cell / name
    target.unlink(missing_ok=True)
    make(keys, target)
    assert assay("score", "--config", str(path)) == 1
    error = error_of(tmp_path)
    assert expected in error and "refused" in error, error


def test_a_resumed_answer_phase_removes_links_an_agent_left_and_never_enters_them(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """A resumed phase removes what it does not keep; a link in the tree is removed as a link: what it
    names (a folder outside, which looks like a ticket's) is left as it is."""
    outside = tmp_path / "outside"
    (outside / "1").mkdir(parents=True)
    (outside / "1" / "mine.md").write_text("not the tree's")
    _cell, path = good_tree(tmp_path, suite, brain)
    tree = tmp_path / "answers"
    (tree / "evil").symlink_to(outside)
    (tree / "T-1" / "9").symlink_to(outside / "1")
    assert assay("answer", "--config", str(path), "--resume") == 0
    assert (outside / "1" / "mine.md").read_text() == "not the tree's"
    assert not os.path.lexists(tree / "evil") and not os.path.lexists(tree / "T-1" / "9")
    assert (tree / "T-1" / "1" / "answer.md").is_file()  # the sealed cell kept


DEEP = (
    "import os; os.chmod('kb', 0o700); os.chdir('kb')\n"
    "for _ in range(3000):\n"
    "    os.mkdir('d'); os.chdir('d')\n"
    "os.chmod('.', 0o500)\n"
)


def test_a_workspace_nested_deeper_than_any_path_is_removed_and_blocks_its_cell_alone(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """kb/ made writable and 3,000 folders nested in it (deeper than Python's recursion and than a path
    can name, the last one read-only): the cell blocks, the run still gives its verdict (no traceback), and
    nothing of the workspace is left."""
    agent = [sys.executable, "-c", GOOD_AGENT + "\n" + DEEP]
    base = tmp_path / "workspaces"
    path = config(tmp_path, suite, brain, agent)
    settings = json.loads(path.read_text())
    settings["output"]["workspaceRoot"] = str(base)
    path.write_text(json.dumps(settings))
    assert assay("run", "--config", str(path)) == 1
    assert "modified its read-only brain/ or kb/ files" in error_of(tmp_path)
    assert not base.exists() or not any(base.iterdir())


def test_a_huge_file_in_the_read_only_folders_is_a_change_never_read(
    suite: Path, brain: Path, tmp_path: Path
) -> None:
    """kb/ made writable and a sparse 64 GiB file put in it (no disk used): checking brain/ and kb/ must not
    read it into the runner's memory (a MemoryError, or at -j 4 a few such files, the machine's memory);
    no more is read than brain/ and kb/ held when the workspace was made, and the cell blocks as changed."""
    plant = "import os; os.chmod('kb', 0o700)\nwith open('kb/KB-9.md', 'wb') as f: f.truncate(64 << 30)\n"
    agent = [sys.executable, "-c", GOOD_AGENT + "\n" + plant]
    assert assay("run", "--config", str(config(tmp_path, suite, brain, agent))) == 1
    assert "modified its read-only brain/ or kb/ files" in error_of(tmp_path)
