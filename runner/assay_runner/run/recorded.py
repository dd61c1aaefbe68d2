"""Recorded cells: an answers tree read back as answered cells, for the judge phase and `assay score`.

Each cell says as precisely as the tree allows why it has no answer: its own record (`cell.json`), else
the answer phase's state (`answers.json`: cut short, stopped), else only that the file is missing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from assay_runner.core.evidence import EvidenceKey
from assay_runner.io import answers as answer_store
from assay_runner.io.evidence_keys import key_for
from assay_runner.run import seal
from assay_runner.run.cell import Answered, Cell, cell_key, no_answer_left, unanswered


def read_cells(
    answers_dir: Path,
    suite: str,
    ticket_ids: list[str],
    k: int,
    suite_ids: list[str],
    *,
    sealed: bool,
    limits: answer_store.Limits = answer_store.DEFAULT_LIMITS,
    shard: tuple[int, int] | None = None,
    cells: list[Cell] | None = None,
    named_key: EvidenceKey | None = None,
) -> tuple[dict[Cell, Answered], answer_store.AnswersManifest | None]:
    """Every ticket x repetition of the selection, answered or with the reason it is not; and the tree's
    manifest, when the answer phase wrote one.

    `sealed`: the tree must be this run's sealed tree (the judge phase of a split run): its manifest is
    checked against `suite`, the tickets and k, and every cell against its seal. A tree that carries seals
    is checked against them even when `sealed` is not asked for (a hand-made tree carries none). `limits`
    bound the files a cell may hold. `shard` (index, count) and `cells`: the tree is one shard's, holding
    those cells only. `named_key`: the run's evidence key when the RunConfig names one, else the key store's
    key of the id the manifest records is used."""
    manifest = answer_store.read_manifest(answers_dir)
    phase_tree = manifest is not None
    recorded = answer_store.load_answers(
        answers_dir, ticket_ids, k, suite_ids, limits, cells, phase_tree=phase_tree
    )
    read = {(r.ticket_id, r.repetition): _answered(r, manifest) for r in recorded}
    if phase_tree:
        read = _with_strays(read, answers_dir, shard)
    if not sealed and (manifest is None or manifest.cells is None):
        return read, manifest
    keys = [cell_key(*cell) for cell in cells] if cells is not None else None
    whole = seal.manifest_problems(manifest, suite, ticket_ids, k, shard, keys)
    key = key_for(manifest.evidence_key_id, named_key) if manifest is not None else None
    authentic = seal.authentication_problem(manifest, key) if manifest is not None else None
    for ticket_id, repetition in list(read):
        name = cell_key(ticket_id, repetition)
        problem = _cell_problem(
            answers_dir, k, name, (ticket_id, repetition), manifest, key, authentic, whole
        )
        refused = (read[(ticket_id, repetition)].error or "").startswith("refused")
        if problem is not None and not refused:  # a refusal names the link or the record: more precise
            read[(ticket_id, repetition)] = unanswered(problem)
    return read, manifest


def _with_strays(
    read: dict[Cell, Answered], answers_dir: Path, shard: tuple[int, int] | None
) -> dict[Cell, Answered]:
    """An answer phase's tree holding entries no cell owns (a link or a folder an agent left in it): which
    agent left them cannot be told, so every cell of the tree is still judged and carries the problem, which
    blocks the run and names them."""
    strays = answer_store.stray_entries(answers_dir, list(read))
    if not strays:
        return read
    where = f"shard {shard[0]}" if shard is not None else "the answers tree"
    problem = f"{where} holds entries no cell owns: {', '.join(strays)} (left by an agent?)"
    return {
        cell: replace(answered, error=f"{answered.error}; {problem}" if answered.error else problem)
        for cell, answered in read.items()
    }


def _cell_problem(
    answers_dir: Path,
    k: int,
    name: str,
    cell: Cell,
    manifest: answer_store.AnswersManifest | None,
    key: EvidenceKey | None,
    authentic: str | None,
    whole: str | None,
) -> str | None:
    """Why one cell cannot be judged as sealed: the tree's evidence first (a seal that does not verify
    names its cell; one that does still blocks while the manifest that lists the cells' files does not),
    then the run it was made for, then the cell's files against its seal."""
    if manifest is None or manifest.cells is None or key is None:
        return whole or authentic
    folder = answer_store.cell_dir(answers_dir, cell[0], cell[1], k)
    if authentic == seal.MANIFEST_FORGED:
        seal_holds = seal.cell_problem(folder, name, manifest.cells.get(name), key) is None
        return authentic if seal_holds else seal.forged_seal(name)
    return authentic or whole or seal.cell_problem(folder, name, manifest.cells.get(name), key)


def _answered(
    recorded: answer_store.RecordedAnswer, manifest: answer_store.AnswersManifest | None
) -> Answered:
    record = recorded.record or answer_store.CellRecord()
    error = record.error
    if recorded.answer is None and error is None:
        error = _missing(recorded, manifest)
    return Answered(
        answer=recorded.answer,
        exit_code=recorded.exit_code,
        error=error,
        transcript=recorded.transcript,
        files=recorded.files,
        wall_seconds=record.wall_seconds,
        started_at=record.started_at,
        usage=record.usage,
        trajectory=recorded.trajectory,
        containment=record.containment,
        isolation=record.isolation,
        conversation=record.conversation,
    )


def _missing(recorded: answer_store.RecordedAnswer, manifest: answer_store.AnswersManifest | None) -> str:
    if recorded.record is not None:
        return no_answer_left(recorded.record.exit_code)
    if manifest is not None and manifest.finished_at is None:
        return f"{answer_store.NOT_REACHED}: it did not finish (killed, out of memory or out of time?)"
    if manifest is not None and manifest.stopped:
        return f"{answer_store.NOT_REACHED}: {manifest.stopped}"
    if manifest is not None:
        return f"{answer_store.NOT_REACHED} (no answer file at {recorded.source})"
    return f"no answer file at {recorded.source}"
