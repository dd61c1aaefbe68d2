"""Which files make up a brain: one rule (`contract.is_brain_file`) for the operator, which digests a brain
ConfigMap's keys, and the runner, which digests and copies what the kubelet mounts from it.

A dot-named key such as `.clinerules` (Cline's instructions file) is part of the brain on both sides; the
kubelet's own `..data` and `..<timestamp>` entries are part of it on neither. When the two sides disagreed,
every run of such a brain ended ResultUnreadable on a cluster (the digests differed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_dev.cluster.volumes import write_atomic_dir
from assay_operator.evaluation.build.snapshots import brain_digest as operator_brain_digest
from assay_runner.agents.workspace import WorkspaceFactory
from assay_runner.contract import is_brain_file
from assay_runner.core.digests import tree_digest
from assay_runner.suite.models import Ticket

BRAIN = {
    "AGENTS.md": "# Support agent\nCite the KB.\n",
    ".clinerules": "Always cite articles as [KB-1234].\n",
    ".cursorrules": "Be brief.\n",
    "tone.md": "Friendly, precise.\n",
}


def mounted(tmp_path: Path) -> Path:
    """The brain as the kubelet mounts a ConfigMap: `..<ts>/` holding the files, `..data` -> it, and one
    symlink per key through `..data`."""
    root = tmp_path / "brain"
    write_atomic_dir(root, {key: (text.encode(), 0o644) for key, text in BRAIN.items()})
    assert (root / "..data").is_symlink() and (root / ".clinerules").is_symlink()
    return root


def test_the_operator_and_the_runner_digest_a_dot_named_brain_alike(tmp_path: Path) -> None:
    assert tree_digest(mounted(tmp_path)) == operator_brain_digest(BRAIN)


def test_the_agent_gets_every_brain_file_and_none_of_the_kubelets(tmp_path: Path) -> None:
    factory = WorkspaceFactory(tmp_path / "work", mounted(tmp_path), {})
    workspace = factory.create(Ticket(id="T-1", split="validation", question="q"), 1)
    try:
        names = sorted(p.name for p in workspace.brain.iterdir())
        assert names == sorted(BRAIN)
        assert (workspace.brain / ".clinerules").read_text() == BRAIN[".clinerules"]
        assert factory.untouched(workspace)
        # The dot-named file is watched like any other: an agent that edits it is caught.
        (workspace.brain / ".clinerules").chmod(0o644)
        (workspace.brain / ".clinerules").write_text("Never cite anything.\n")
        assert not factory.untouched(workspace)
    finally:
        factory.discard(workspace)


@pytest.mark.parametrize(
    ("path", "counted"),
    [
        ("AGENTS.md", True),
        (".clinerules", True),
        ("docs/.hidden.md", True),
        ("..data", False),
        ("..2026_12_04_00_00_00.123/AGENTS.md", False),
        ("..data/.clinerules", False),
    ],
)
def test_the_rule(path: str, counted: bool) -> None:
    assert is_brain_file(path) is counted
