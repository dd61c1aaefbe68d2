"""Sealed cells: what an agent did cannot be rewritten after its cell ended.

The answer phase writes each cell into the answers tree once everything the agent started is dead
(`assay_runner.processes`), and keeps, in its own memory, the digest of every file it wrote there. When the
phase ends — after a last sweep, so that no agent process is alive — it writes those digests into the
tree's manifest (`answers.json`: `cells`, and `treeDigest` over them). The judge phase verifies the
manifest against its own RunConfig (suite, tickets, repetitions) and every cell against its seal: a file
added, removed or changed after its cell ended (by another cell's daemon, say) makes that cell an error
that blocks, named with what changed. A hand-made tree (`assay score SUITE --answers DIR` without a
manifest) carries no seals and is taken as given: it is the user's own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from assay_runner.io import answers as answer_store
from assay_runner.run.cell import cell_key

Seal = dict[str, str]
"""A cell's files (name within its folder) -> sha256 of their bytes."""


def digest(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def file_digest(path: Path) -> str:
    """A file's digest, read in blocks: a huge (or sparse) file in the tree costs time, never memory."""
    with path.open("rb") as stream:
        return f"sha256:{hashlib.file_digest(stream, 'sha256').hexdigest()}"


def tree_digest(seals: Mapping[str, Seal]) -> str:
    """The whole tree as sealed: every cell's files and their digests, canonically."""
    canonical = json.dumps(seals, sort_keys=True, separators=(",", ":"))
    return digest(canonical.encode())


def seal_of(written: Mapping[str, bytes]) -> Seal:
    return {name: digest(data) for name, data in sorted(written.items())}


def expected_cells(ticket_ids: list[str], repetitions: int) -> list[str]:
    return [cell_key(t, r) for r in range(1, repetitions + 1) for t in ticket_ids]


def manifest_problems(
    manifest: answer_store.AnswersManifest | None,
    suite: str,
    ticket_ids: list[str],
    repetitions: int,
    shard: tuple[int, int] | None = None,
    cells: list[str] | None = None,
) -> str | None:
    """`shard` and `cells`: the shard this tree must be, and its cells (default: every cell of the run)."""
    """Why the tree is not the sealed tree of this run, or None when it is."""
    if manifest is None:
        return f"the answers tree has no {answer_store.MANIFEST_FILE}: it was not sealed by the answer phase"
    if manifest.cells is None or manifest.tree_digest is None:
        return "the answers tree was not sealed (its manifest has no cells' digests)"
    if manifest.tree_digest != tree_digest(manifest.cells):
        return "the answers manifest's treeDigest does not match its cells (the manifest was edited)"
    differences = [
        f"{what} {mine!r} (the tree says {theirs!r})"
        for what, mine, theirs in (
            ("suite", suite, manifest.suite),
            ("tickets", ticket_ids, manifest.tickets),
            ("repetitions", repetitions, manifest.repetitions),
            ("shard", shard, manifest.shard),
        )
        if mine != theirs
    ]
    if differences:
        return "the answers tree was made for another run: this run has " + "; ".join(differences)
    expected = cells if cells is not None else expected_cells(ticket_ids, repetitions)
    if sorted(manifest.cells) != sorted(expected):
        return "the answers manifest does not seal exactly this run's cells"
    return None


def cell_problem(folder: Path, seal: Seal | None) -> str | None:
    """Why a cell's files are not what was sealed, or None when they are."""
    if seal is None:
        return "the cell has no seal in the answers manifest"
    present = answer_store.plain_files(folder) if folder.is_dir() else {}
    changed = sorted(
        name
        for name in set(seal) | set(present)
        if name not in present or name not in seal or file_digest(present[name]) != seal[name]
    )
    if changed:
        return (
            f"the cell's files do not match their seal ({', '.join(changed)} added, removed or changed after "
            "the cell ended): blocked"
        )
    return None
