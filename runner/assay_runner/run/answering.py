"""The answer phase (`assay answer`): every cell answered and recorded into an answers tree; no judge is
built, no key is read, no verdict is made.

It is the answer step and the record step (`run.cell`) over the same loop as a whole evaluation
(`run.answer_loop`: bounded, repetition-major, stoppable). Whatever happens — a stop request, its own
deadline, an error — the phase ends with every cell accounted for: answered, or a `cell.json` saying why
not. Only bad input (exit 2) leaves no tree, so the judge phase always has something to give a verdict on.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import stat
import sys
import time
from pathlib import Path

from assay_runner.contract import MAX_STOPPED, AnswerSummary, RunConfig
from assay_runner.core.digests import tree_digest as tree_digest_of
from assay_runner.core.evidence import EvidenceKey
from assay_runner.core.results import now_iso
from assay_runner.errors import InputError
from assay_runner.gateway.access import run_model_access
from assay_runner.gateway.sidecar_link import SidecarLink, connect, sidecar_socket
from assay_runner.io import answers as answer_store
from assay_runner.io import plain, seal_records
from assay_runner.io.evidence_keys import key_for, named_key, new_stored_key
from assay_runner.run.answer_loop import Control, answer_cells
from assay_runner.run.cell import Cell, cell_key, unanswered
from assay_runner.run.preparation import Prepared, prepare
from assay_runner.run.record_step import RecordStep
from assay_runner.run.seal import (
    MANIFEST_FORGED,
    Seal,
    authentication_problem,
    cell_problem,
    digest,
    forged_seal,
    record_problem,
    seal_record,
    sealed_manifest,
)
from assay_runner.run.shards import cells_of, shard_index, shard_of
from assay_runner.suite.models import Ticket

DEADLINE_REACHED = "the answer phase reached its deadline ({seconds:g} s) before this cell finished"
STOPPED = "the answer phase was stopped (signal) before every cell finished"
SHOWN_REFUSALS = 5


def check_answer_config(config: RunConfig) -> Path:
    """The answer phase never takes answer keys; it needs somewhere to write. Returns the answers dir."""
    if config.keys is not None:
        raise InputError(
            "the answer phase never takes answer keys: remove `keys` from the run configuration "
            "(the judge phase, `assay score --config`, reads them)"
        )
    if config.answers_dir is None:
        raise InputError("give the answers directory (--answers-out DIR, or answersDir in the config)")
    answers_dir = Path(config.answers_dir)
    if config.resume:
        return answers_dir  # what is there is checked against the inputs (resumable) when the phase starts
    if answers_dir.exists() and any(p for p in answers_dir.iterdir() if not p.name.startswith(".")):
        raise InputError(f"{answers_dir}: must be empty; the answer phase writes a fresh answers tree")
    return answers_dir


def prepare_answers(config: RunConfig) -> Prepared:
    """The answer phase's preparation: its configuration checked, the suite read without any key."""
    check_answer_config(config)
    return prepare(config, with_keys=False)


async def answer_all(prepared: Prepared, control: Control) -> AnswerSummary:
    """Run the answer phase (`prepare_answers`); returns how many of its cells it answered (the manifest it
    wrote holds the rest)."""
    config = prepared.config
    answers_dir = check_answer_config(config)
    # The customers file adds only each conversational ticket's customer, which no agent's sandbox grants.
    if prepared.suite.has_answer_keys or (prepared.suite.has_keys and config.customers is None):
        print(
            f"assay: warning: {config.suite} holds answer keys, and an agent with a file tool can read them "
            "where the kernel gives no sandbox (each cell's `isolation` says): a local run is not a trust "
            "boundary (split the suite with `assay split`; on the cluster the operator mounts only the "
            "public part where agents run)",
            file=sys.stderr,
        )
    order = cells_of(prepared.tickets, config.repetitions)
    shard = None
    if config.shard is not None:
        shard = (shard_index(config.shard), config.shard.count)
        order = shard_of(order, *shard)
    inputs = answer_inputs_digest(prepared, shard)
    named = named_key(config.evidence.key_file)
    kept, earlier_key = resumable(answers_dir, inputs, order, named) if config.resume else fresh(answers_dir)
    # A resumed tree goes on under the key it was sealed with; a new one under the named key or a new one.
    key = named or earlier_key or new_stored_key()
    manifest = answer_store.AnswersManifest(
        suite=prepared.suite.name,
        tickets=[t.id for t in prepared.tickets],
        repetitions=config.repetitions,
        agent=config.agent.kind,
        model=config.agent.model,
        started_at=now_iso(),
        shard=shard,
        inputs_digest=inputs,
        evidence_key_id=key.key_id,
    )
    answer_store.write_manifest(answers_dir, manifest)
    to_answer = [(t, r) for t, r in order if cell_key(t.id, r) not in kept]
    refuse_model_customers_behind_sidecar(prepared)
    sidecar = await reach_sidecar(prepared, shard)
    record = RecordStep(answers_dir, key, inputs, sidecar.pod if sidecar is not None else None)
    for cell, (seal, answered_by) in kept.items():
        record.keep(cell, seal, answered_by)
    access = run_model_access(config, prepared.prices, sidecar=sidecar)
    deadline = _Deadline(config.answer_deadline_seconds, control.stop)
    started = time.monotonic()
    stopped: str | None = None
    ran: dict[Cell, Path | BaseException | None] = {}
    try:
        ran = await answer_cells(
            prepared, access, control, lambda pool: record.on(pool.file_work), to_answer, sidecar
        )
    except (InputError, asyncio.CancelledError):
        raise
    except Exception as exc:  # the judge phase still gives a verdict: every unwritten cell says why
        stopped = f"the answer phase failed: {exc!r}"
    finally:
        deadline.cancel()
        await access.aclose()
    unwritten = [(t.id, r) for t, r in order if not record.sealed(t.id, r)]
    # `stopped` says why cells were left: a stop that came once every cell was sealed left none.
    if stopped is None and unwritten and deadline.reached:
        stopped = DEADLINE_REACHED.format(seconds=config.answer_deadline_seconds)
    elif stopped is None and unwritten and control.stop.is_set():
        stopped = STOPPED
    for ticket_id, repetition in unwritten:
        outcome = ran.get((ticket_id, repetition))
        reason = stopped or (f"could not run this cell: {outcome!r}" if outcome is not None else STOPPED)
        record.write(ticket_id, repetition, unanswered(reason))
    # No agent process is alive now (answer_cells swept the last ones): the seals go into the manifest.
    seals = record.seals()
    update = {
        "finished_at": now_iso(),
        "stopped": stopped,
        "cells": seals,
        "answered_by": record.answered_by(),
    }
    seal_tree(answers_dir, sealed_manifest(key, manifest.model_copy(update=update)))
    resumed = f" ({len(kept)} kept from an earlier attempt)" if kept else ""
    print(
        f"answered {len(order) - len(unwritten)} of {len(order)} cell(s){resumed} in "
        f"{time.monotonic() - started:.1f} s into {answers_dir}",
        file=sys.stderr,
    )
    return AnswerSummary(
        shard=shard,
        cells=len(order),
        answered=record.clean(),
        kept=len(kept),
        total=len(prepared.tickets) * config.repetitions,
        stopped=stopped[:MAX_STOPPED] if stopped else None,
    )


def seal_tree(answers_dir: Path, manifest: answer_store.AnswersManifest) -> None:
    """The sealed manifest written (durably), then the seal records it supersedes removed."""
    answer_store.write_manifest(answers_dir, manifest)
    seal_records.remove_all(answers_dir)


def refuse_model_customers_behind_sidecar(prepared: Prepared) -> None:
    """A customer played by a model is not yet metered apart by the gateway sidecar (its ledger would count
    the customer's calls as the cell's, and the judge would block on them as calls around the cell's proxy):
    refused before any cell, saying so, rather than Blocked for a reason that is not the agent's."""
    if sidecar_socket() is None:
        return
    played = [
        t.id
        for t in prepared.tickets
        if t.key.conversation and t.key.conversation.customer.played_by == "model"
    ]
    if played:
        raise InputError(
            f"ticket(s) {', '.join(played)}: a customer played by a model is not supported behind the "
            "gateway sidecar yet (its calls are not metered apart from the agent's there): play it scripted "
            "(`playedBy: scripted`), or run it with `assay run` (docs/conversations.md, on the cluster)"
        )


async def reach_sidecar(prepared: Prepared, shard: tuple[int, int] | None) -> SidecarLink | None:
    """On the cluster (`ASSAY_GATEWAY_SOCKET`): the gateway sidecar's key, claimed before any agent runs,
    with this phase's prices, budget and shard. None where the phase holds the gateway's token itself."""
    socket = sidecar_socket()
    if socket is None:
        return None
    return await connect(socket, prepared.prices, prepared.config.max_cost_usd, shard)


def answer_inputs_digest(prepared: Prepared, shard: tuple[int, int] | None) -> str:
    """What a tree's cells were answered from: the brain, the suite's public part (and KB) as read, the
    selection and repetitions, the agent (kind, model, command, timeout) and the shard. A resumed phase
    keeps an earlier attempt's cells only when this is the same."""
    config = prepared.config
    facts = {
        "brain": prepared.inputs().brain_digest,
        "suite": tree_digest_of(Path(config.suite)),
        "customers": customers_digest(config.customers),
        "kb": tree_digest_of(Path(config.kb)) if config.kb else None,
        "tickets": [t.id for t in prepared.tickets],
        "repetitions": config.repetitions,
        "agent": config.agent.to_wire(),
        "shard": shard,
    }
    return digest(json.dumps(facts, sort_keys=True).encode())


def customers_digest(path: str | None) -> str | None:
    """The customers file's digest (None: none named, or none written: the suite has no conversation)."""
    if path is None or not Path(path).is_file():
        return None
    return digest(Path(path).read_bytes())


def resumable(
    answers_dir: Path, inputs: str, order: list[tuple[Ticket, int]], named: EvidenceKey | None = None
) -> tuple[dict[str, tuple[Seal, str | None]], EvidenceKey | None]:
    """The cells of an earlier attempt a resumed phase keeps, with their seals and the attempt (answer pod)
    that answered them: answered from the same inputs, sealed under the run's evidence key (`named`, else the
    key store's), their files as sealed and their record without an error; and that key. The seals come from
    the earlier attempt's sealed manifest, or, when it was killed before sealing one, from each cell's seal
    record (`io.seal_records`). Everything else in the tree is removed (an earlier attempt on other inputs,
    all of it), to be answered again, and every kept cell has its seal record on disk before this returns:
    an attempt killed before its own manifest is sealed leaves them to the next. Evidence that does not
    verify (a seal, a seal record or a manifest recomputed without the key, another run's key, no key to
    check it with) is refused, naming the cells: nothing of the tree is kept."""
    if not answers_dir.is_dir():
        return {}, None
    earlier = answer_store.read_manifest(answers_dir)
    kept: dict[str, tuple[Seal, str | None]] = {}
    key = None
    if earlier is not None and earlier.inputs_digest == inputs:
        if earlier.cells is not None:
            key = key_for(earlier.evidence_key_id, named)
            _refuse_unauthentic(answers_dir, earlier, key, order)
            by = earlier.answered_by or {}
            seals = {name: (seal, by.get(name)) for name, seal in earlier.cells.items()}
        else:  # killed before it sealed its manifest
            key, seals = _recorded_seals(answers_dir, earlier, named, inputs, order)
        for ticket, number in order:
            name = cell_key(ticket.id, number)
            folder = answers_dir / ticket.id / str(number)
            if name not in seals or key is None:
                continue
            if cell_problem(folder, name, seals[name][0], key) is None and _clean(folder):
                kept[name] = seals[name]
    # Nothing is followed: a link an agent left (to a folder outside, say) is removed, never entered.
    for entry in answers_dir.iterdir():
        if entry.name == seal_records.FOLDER:
            continue
        if not _is_folder(entry):
            if entry.name != answer_store.MANIFEST_FILE:
                entry.unlink()
            continue
        for cell in list(entry.iterdir()):
            if f"{entry.name}/{cell.name}" not in kept:
                shutil.rmtree(cell, ignore_errors=True) if _is_folder(cell) else cell.unlink()
        if not any(entry.iterdir()):
            entry.rmdir()
    # Each kept cell's record on disk, and no other: those read from records are there already.
    from_manifest = earlier is not None and earlier.cells is not None
    seal_records.keep_only(answers_dir, () if from_manifest else kept)
    if from_manifest and key is not None:
        for name, (seal, answered_by) in kept.items():
            seal_records.write_record(answers_dir, seal_record(key, name, seal, answered_by, inputs))
    return kept, key


def fresh(answers_dir: Path) -> tuple[dict[str, tuple[Seal, str | None]], None]:
    """A new tree keeps nothing, not even seal records an earlier phase left in its hidden folder (which the
    emptiness check does not look at): a retry of this phase must find only its own."""
    if answers_dir.is_dir():
        seal_records.remove_all(answers_dir)
    return {}, None


def _recorded_seals(
    answers_dir: Path,
    earlier: answer_store.AnswersManifest,
    named: EvidenceKey | None,
    inputs: str,
    order: list[tuple[Ticket, int]],
) -> tuple[EvidenceKey | None, dict[str, tuple[Seal, str | None]]]:
    """The run's key and the seals of the cells an attempt killed before sealing its manifest left in seal
    records; refuses (bad input) when a record of the shard's cells does not verify, naming each such cell."""
    records: dict[str, seal_records.SealRecord] = {}
    refused: list[str] = []
    for ticket, number in order:
        name = cell_key(ticket.id, number)
        try:
            found = seal_records.read_record(answers_dir, name)
        except seal_records.RecordUnreadable as exc:
            refused.append(f"cell {name}: its seal record cannot be read ({exc})")
            continue
        if found is not None:
            records[name] = found
    if not records and not refused:
        return None, {}
    key = key_for(earlier.evidence_key_id, named)
    if key is None:
        raise InputError(
            f"--resume: {answers_dir}: no evidence key {earlier.evidence_key_id} is available to check its "
            "cells' seal records (give the run's key file: --evidence-key FILE or evidence.keyFile); "
            "nothing of the earlier attempt is kept"
        )
    refused += [p for name, record in records.items() if (p := record_problem(record, name, key)) is not None]
    if refused:
        more = len(refused) - SHOWN_REFUSALS
        shown = "; ".join(refused[:SHOWN_REFUSALS]) + (f"; and {more} more" if more > 0 else "")
        raise InputError(f"--resume: {answers_dir}: {shown}; nothing of the earlier attempt is kept")
    seals = {
        name: (record.files, record.answered_by)
        for name, record in records.items()
        if record.inputs_digest == inputs
    }
    return key, seals


def _refuse_unauthentic(
    answers_dir: Path,
    earlier: answer_store.AnswersManifest,
    key: EvidenceKey | None,
    order: list[tuple[Ticket, int]],
) -> None:
    problem = authentication_problem(earlier, key)
    if problem is None:
        return
    if problem == MANIFEST_FORGED and key is not None and earlier.cells is not None:
        cells = [cell_key(t.id, n) for t, n in order]
        forged = [
            forged_seal(name)
            for name in cells
            if cell_problem(answers_dir / name, name, earlier.cells.get(name), key) is not None
        ]
        problem = "; ".join([*forged[:SHOWN_REFUSALS], problem])
    raise InputError(f"--resume: {answers_dir}: {problem}; nothing of the earlier attempt is kept")


def _is_folder(path: Path) -> bool:
    return stat.S_ISDIR(path.lstat().st_mode)


def _clean(folder: Path) -> bool:
    """A cell answered without an error of its own (a timeout or a missing answer is answered again)."""
    try:
        data = plain.read(folder, answer_store.CELL_FILE)
        record = answer_store.CellRecord.model_validate_json(data or b"")
    except (OSError, ValueError, plain.NotPlain):
        return False
    return record.error is None and record.exit_code == 0


class _Deadline:
    """Sets the stop switch once the phase has run `seconds` (when given)."""

    def __init__(self, seconds: float | None, stop: asyncio.Event) -> None:
        self.reached = False
        self._stop = stop
        self._timer = (
            asyncio.get_running_loop().call_later(seconds, self._reach) if seconds is not None else None
        )

    def _reach(self) -> None:
        self.reached = True
        self._stop.set()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
