"""Sealed cells: what an agent did cannot be rewritten after its cell ended, nor its seal recomputed.

The answer phase writes each cell into the answers tree once everything the agent started is dead
(`assay_runner.processes`), and seals it: a MAC of every file it wrote there under the run's evidence key
(`core.evidence`), bound to the cell and the file's name. The seal goes to disk at once, in a record of the
cell's own with a MAC of its own (`io.seal_records`: a phase killed outright leaves what it sealed to its
retry, `answer --resume`). When the phase ends — after a last sweep, so that no agent process is alive — it
writes every seal into the tree's manifest (`answers.json`: `cells`), with the key's id, and `treeDigest`:
a MAC over the whole manifest, and removes the records. The judge phase checks the manifest's MAC and its
own RunConfig (suite, tickets, repetitions), then every cell against its seal: a seal or manifest
recomputed without the key, a file added, removed or changed after its cell ended (by another cell's
daemon, say) makes that cell an error that blocks, named with what is wrong. A hand-made tree (`assay
score SUITE --answers DIR` without a manifest) carries no seals and is taken as given: it is the user's
own, and its result is unauthenticated evidence of an agent run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from assay_runner.core.evidence import EvidenceKey, Label, canonical
from assay_runner.io import answers as answer_store
from assay_runner.io import seal_records
from assay_runner.run.cell import cell_key

Seal = dict[str, str]
"""A cell's files (name within its folder) -> the MAC of the file's sha256, bound to the cell and name."""


def digest(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def file_digest(path: Path) -> str:
    """A file's digest, read in blocks: a huge (or sparse) file in the tree costs time, never memory."""
    with path.open("rb") as stream:
        return f"sha256:{hashlib.file_digest(stream, 'sha256').hexdigest()}"


def file_mac(key: EvidenceKey, cell: str, name: str, file_digest: str) -> str:
    return key.mac(Label.CELL_FILE, cell, name, file_digest)


def seal_of(key: EvidenceKey, cell: str, written: Mapping[str, bytes]) -> Seal:
    return {name: file_mac(key, cell, name, digest(data)) for name, data in sorted(written.items())}


def seal_record(
    key: EvidenceKey, cell: str, seal: Seal, answered_by: str | None, inputs: str
) -> seal_records.SealRecord:
    """The cell's seal record (`io.seal_records`), with its MAC under `key`."""
    record = seal_records.SealRecord(
        cell=cell, files=seal, answered_by=answered_by, inputs_digest=inputs, evidence_key_id=key.key_id
    )
    return record.model_copy(update={"mac": key.mac(Label.SEAL_RECORD, cell, canonical(record.to_wire()))})


def record_problem(record: seal_records.SealRecord, cell: str, key: EvidenceKey) -> str | None:
    """Why `record`, found as `cell`'s, is not a seal record the answer phase wrote under `key`, or None."""
    if record.evidence_key_id != key.key_id:
        return (
            f"cell {cell}: its seal record was made under evidence key {record.evidence_key_id}, not under "
            f"this run's key {key.key_id}"
        )
    unsigned = canonical(record.model_copy(update={"mac": None}).to_wire())
    if record.cell != cell or not key.verifies(record.mac, Label.SEAL_RECORD, cell, unsigned):
        return (
            f"cell {cell}: its seal record does not verify under this run's evidence key (edited or forged)"
        )
    return None


def manifest_mac(key: EvidenceKey, manifest: answer_store.AnswersManifest) -> str:
    """`treeDigest`: the MAC over the whole manifest as written (everything but itself)."""
    return key.mac(Label.MANIFEST, canonical(_unsealed(manifest).to_wire()))


def sealed_manifest(key: EvidenceKey, manifest: answer_store.AnswersManifest) -> answer_store.AnswersManifest:
    manifest = manifest.model_copy(update={"evidence_key_id": key.key_id, "tree_digest": None})
    return manifest.model_copy(update={"tree_digest": manifest_mac(key, manifest)})


UNSEALED = "the answers tree was not sealed (its manifest has no cells' seals)"


def authentication_problem(manifest: answer_store.AnswersManifest, key: EvidenceKey | None) -> str | None:
    """Why the manifest is not authentic under this run's evidence key, or None when it is."""
    if manifest.cells is None or manifest.tree_digest is None:
        return UNSEALED
    if manifest.evidence_key_id is None:
        return "the answers tree was sealed without an evidence key (an older Assay?): it cannot be verified"
    if key is None:
        return (
            f"no evidence key {manifest.evidence_key_id} is available to check the answers tree (give the "
            "run's key file: --evidence-key FILE or evidence.keyFile): it cannot be verified"
        )
    if manifest.evidence_key_id != key.key_id:
        return (
            f"the answers tree was sealed under evidence key {manifest.evidence_key_id}, not under this "
            f"run's key {key.key_id} (another run's tree)"
        )
    if not key.verifies(manifest.tree_digest, Label.MANIFEST, canonical(_unsealed(manifest).to_wire())):
        return MANIFEST_FORGED
    return None


MANIFEST_FORGED = (
    "the answers manifest does not verify under this run's evidence key (it was edited or re-sealed)"
)


def forged_seal(cell: str) -> str:
    return f"cell {cell}: its seal does not verify under this run's evidence key: blocked"


def _unsealed(manifest: answer_store.AnswersManifest) -> answer_store.AnswersManifest:
    return manifest.model_copy(update={"tree_digest": None})


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
    """Why the tree is not the sealed tree of this run, or None when it is (its MAC is checked apart,
    `authentication_problem`). `shard` and `cells`: the shard this tree must be, and its cells (default:
    every cell of the run)."""
    if manifest is None:
        return f"the answers tree has no {answer_store.MANIFEST_FILE}: it was not sealed by the answer phase"
    if manifest.cells is None or manifest.tree_digest is None:
        return UNSEALED
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


def cell_problem(folder: Path, cell: str, seal: Seal | None, key: EvidenceKey) -> str | None:
    """Why a cell's files are not what was sealed under `key`, or None when they are."""
    if seal is None:
        return "the cell has no seal in the answers manifest"
    present = answer_store.plain_files(folder) if folder.is_dir() else {}
    changed = sorted(
        name
        for name in set(seal) | set(present)
        if name not in present
        or name not in seal
        or not key.verifies(seal[name], Label.CELL_FILE, cell, name, file_digest(present[name]))
    )
    if changed:
        return (
            f"the cell's files do not match their seal ({', '.join(changed)} added, removed or changed after "
            "the cell ended): blocked"
        )
    return None
