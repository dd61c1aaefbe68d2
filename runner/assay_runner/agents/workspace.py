"""Fresh, private workspaces: one per ticket x repetition, holding only what the agent may see.

Layout: `prompt.md` (the ticket), `brain/` (the brain's files), `kb/` (the suite's articles), `AGENTS.md` (a
copy of the brain's, where agent CLIs look for instructions), `.home/` (the agent's HOME and TMPDIR), and
the answer the agent writes, `answer.md`.
brain/ and kb/ are made read-only, and because permissions do not stop a process running as root, their
digest is checked again after the agent ran: an agent that changed them gets a cell error, which blocks.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from assay_runner.agents.base import Workspace
from assay_runner.contract import is_brain_file
from assay_runner.core.digests import digest_files
from assay_runner.io.plain import FOLDER_FLAGS, NotPlain, plain_tree
from assay_runner.suite.models import Ticket

INSTRUCTIONS_FILE = "AGENTS.md"
HOME_DIR = ".home"  # the agent's HOME and TMPDIR
READ_ONLY_FILE = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
READ_ONLY_DIR = READ_ONLY_FILE | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
UNLISTED_DIR = stat.S_IRWXU | stat.S_IXGRP | stat.S_IXOTH  # 0711: others may enter, not list


def prompt_text(ticket: Ticket) -> str:
    return (
        f"# Support ticket {ticket.id}\n\n{ticket.question.strip()}\n\n"
        "---\n"
        f"Your instructions are in `brain/` (start with `brain/{INSTRUCTIONS_FILE}`). The knowledge-base "
        "articles are in `kb/`, one file per article, named by the article's id.\n"
        "Write your answer to the customer, in markdown, to `answer.md` in this directory.\n"
    )


def _not_brain_files(directory: str, names: list[str]) -> set[str]:
    """What `copytree` leaves out of a brain: the kubelet's `..` entries (`contract.is_brain_file`)."""
    return {name for name in names if not is_brain_file(name)}


def _make_read_only(root: Path) -> None:
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            os.chmod(Path(dirpath) / name, READ_ONLY_FILE)
        os.chmod(dirpath, READ_ONLY_DIR)


Placement = Callable[[Ticket, int], Path | None]
"""Where a cell's workspace must be, when it must be somewhere (a replayed cell: where it was recorded)."""


def placeable(root: Path) -> bool:
    """A path a workspace may be placed at: absolute, normal, a `cell-*` folder that does not exist yet
    (so what is removed when the cell ends is only what this run made)."""
    return (
        root.is_absolute()
        and os.path.normpath(root) == str(root)
        and root.name.startswith("cell-")
        and not os.path.lexists(root)
    )


class WorkspaceFactory:
    """Workspaces under a folder of the run's own (`assay-run-*` in the system's temporary folder, or in the
    configured workspace root): it can be entered but not listed, and each workspace has a random name
    that says nothing of its ticket, so one cell's agent cannot list the others' folders to find them.

    `placed`: a replayed cell's workspace is made where it was recorded (the folder's random name included):
    an agent CLI's recorded replies name absolute paths in it (a file to write), so the replayed CLI must
    find itself there. A place that is taken, or not a workspace's, gets a fresh workspace instead."""

    def __init__(
        self, base: Path | None, brain: Path | None, kb: Mapping[str, str], placed: Placement | None = None
    ) -> None:
        self.parent = base or Path(tempfile.gettempdir())
        self.placed = placed
        self._made_parents: list[Path] = []  # folders made for placed workspaces, outermost first
        self._placed: list[Path] = []  # placed workspaces (outside the run's folder)
        self._base: Path | None = None
        self.brain = brain
        self.kb = kb
        self._pristine: str | None = None
        self._pristine_bytes = 0
        self._lock = threading.Lock()
        self._base_lock = threading.Lock()  # its own: `reference` creates a workspace under `_lock`

    @property
    def base(self) -> Path:
        with self._base_lock:
            if self._base is None:
                self.parent.mkdir(parents=True, exist_ok=True)
                self._base = Path(tempfile.mkdtemp(prefix="assay-run-", dir=self.parent))
                os.chmod(self._base, UNLISTED_DIR)
            return self._base

    def close(self, keep: bool = False) -> None:
        """The run is over: remove its folder, and any workspace a stopped run left in it or placed
        elsewhere — unless workspaces are kept (then only empty folders go)."""
        with self._base_lock:
            if not keep:
                left = [*self._base.iterdir()] if self._base is not None else []
                for workspace in [*left, *self._placed]:
                    _remove(workspace)
            if self._base is not None:
                with contextlib.suppress(OSError):
                    self._base.rmdir()
            for made in reversed(self._made_parents):  # a placed workspace's folders, once empty
                with contextlib.suppress(OSError):
                    made.rmdir()

    def _root(self, ticket: Ticket, repetition: int) -> Path:
        place = self.placed(ticket, repetition) if self.placed is not None else None
        if place is not None and placeable(place):
            with self._base_lock:
                missing = [p for p in reversed(place.parents) if not p.exists()]
                self._made_parents += missing  # removed once empty, even when what follows fails
                try:
                    place.parent.mkdir(parents=True, exist_ok=True)
                    for folder in missing:
                        os.chmod(folder, UNLISTED_DIR)
                    place.mkdir(mode=stat.S_IRWXU)
                except OSError:
                    pass  # cannot be made there: a fresh workspace, and the replay says what it misses
                else:
                    self._placed.append(place)
                    return place
        return Path(tempfile.mkdtemp(prefix="cell-", dir=self.base))

    def create(self, ticket: Ticket, repetition: int) -> Workspace:
        root = self._root(ticket, repetition)
        brain_dir, kb_dir = root / "brain", root / "kb"
        if self.brain is not None:
            shutil.copytree(self.brain, brain_dir, ignore=_not_brain_files)
        else:
            brain_dir.mkdir()
        kb_dir.mkdir()
        for article, text in self.kb.items():
            (kb_dir / f"{article}.md").write_text(text, encoding="utf-8")
        instructions = brain_dir / INSTRUCTIONS_FILE
        if instructions.is_file():
            shutil.copyfile(instructions, root / INSTRUCTIONS_FILE)
            os.chmod(root / INSTRUCTIONS_FILE, READ_ONLY_FILE)
        (root / HOME_DIR).mkdir()  # made here, ahead of the agent, rather than in its slot
        prompt = root / "prompt.md"
        prompt.write_text(prompt_text(ticket), encoding="utf-8")
        _make_read_only(brain_dir)
        _make_read_only(kb_dir)
        return Workspace(
            root=root, brain=brain_dir, kb=kb_dir, prompt_file=prompt, answer_file=root / "answer.md"
        )

    def fingerprint(self, workspace: Workspace, max_bytes: int | None = None) -> str:
        """brain/ and kb/ as they are, no link followed (a link or a pipe the agent put there is a change,
        never read through: `io.plain`), and with `max_bytes` no more read than that (more is a change)."""
        try:
            return digest_files(self._files(workspace, max_bytes))
        except (NotPlain, OSError, RecursionError) as changed:  # nested deeper than os.walk goes: changed
            return f"changed: {changed!r}" if isinstance(changed, RecursionError) else f"changed: {changed}"

    @staticmethod
    def _files(workspace: Workspace, max_bytes: int | None) -> dict[str, bytes]:
        return {
            **{f"brain/{k}": v for k, v in plain_tree(workspace.brain, max_bytes).items()},
            **{f"kb/{k}": v for k, v in plain_tree(workspace.kb, max_bytes).items()},
        }

    def reference(self) -> str:
        """The fingerprint of brain/ and kb/ as every workspace starts (they start identical), computed once
        from a probe workspace, and how many bytes they hold (`_pristine_bytes`)."""
        with self._lock:  # called from worker threads
            if self._pristine is None:
                probe = self.create(Ticket(id="probe", split="validation", question="-"), 0)
                try:
                    files = self._files(probe, None)
                    self._pristine_bytes = sum(map(len, files.values()))
                    self._pristine = digest_files(files)
                except (NotPlain, OSError) as unreadable:
                    self._pristine = f"unreadable: {unreadable}"  # no workspace will match: each blocks
                self.discard(probe)
            return self._pristine

    def untouched(self, workspace: Workspace) -> bool:
        """Whether brain/ and kb/ are as the factory made them: never more read of them than they held."""
        pristine = self.reference()
        return self.fingerprint(workspace, self._pristine_bytes) == pristine

    def check_and_discard(self, workspace: Workspace, *, keep: bool) -> bool:
        """`untouched`, then the workspace is discarded unless kept: one trip to a worker thread."""
        untouched = self.untouched(workspace)
        if not keep:
            self.discard(workspace)
        return untouched

    def discard(self, workspace: Workspace) -> None:
        _remove(workspace.root)


def _remove(root: Path) -> None:
    """A workspace, with its read-only folders. Its root may have been swapped for a link (its parent is
    the runner's, and so the agents' user's): the link goes, and nothing it names is walked."""
    if os.path.islink(root):
        root.unlink()
        return
    _remove_tree(root)


def _remove_tree(root: Path) -> None:
    """`root` and everything below it, however deep the agent nested its folders (shutil.rmtree and os.walk
    recurse: 3,000 folders ended the run with a RecursionError, and a path cannot name the deepest): one
    folder open at a time, entered by name and left by "..", each folder listed once and made writable (as
    the agent's read-only brain/ and kb/ are) before it is emptied, no link followed. Every process of the
    cell is gone by now, so nothing moves a folder meanwhile. What cannot be removed is left."""
    with contextlib.suppress(OSError):
        os.chmod(root, stat.S_IRWXU)
    try:
        folder = os.open(root, FOLDER_FLAGS)
    except OSError:
        return
    pending = _empty_files(folder)  # the current folder's subfolders still to remove
    above: list[tuple[str, list[str]]] = []  # per folder entered: its name, and its parent's pending
    try:
        while True:
            if pending:
                name = pending.pop()
                try:
                    os.chmod(name, stat.S_IRWXU, dir_fd=folder)
                    child = os.open(name, FOLDER_FLAGS, dir_fd=folder)
                except OSError:
                    continue  # left: it cannot be entered
                os.close(folder)
                folder = child
                above.append((name, pending))
                pending = _empty_files(folder)
                continue
            if not above:
                break
            parent = os.open("..", FOLDER_FLAGS, dir_fd=folder)
            os.close(folder)
            folder = parent
            name, pending = above.pop()
            with contextlib.suppress(OSError):
                os.rmdir(name, dir_fd=folder)
    finally:
        os.close(folder)
    with contextlib.suppress(OSError):
        os.rmdir(root)


def _empty_files(folder: int) -> list[str]:
    """Unlink every entry of `folder` that is not a folder (a file, a link: never followed); its folders'
    names."""
    folders: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.name)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.name, dir_fd=folder)
    except OSError:
        pass
    return folders
