"""The answer phase (`assay answer`): every cell answered and recorded into an answers tree; no judge is
built, no key is read, no verdict is made.

It is the answer step and the record step (`run.cell`) over the same loop as a whole evaluation
(`run.answer_loop`: bounded, repetition-major, stoppable). Whatever happens — a stop request, its own
deadline, an error — the phase ends with every cell accounted for: answered, or a `cell.json` saying why
not. Only bad input (exit 2) leaves no tree, so the judge phase always has something to give a verdict on.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from assay_runner.contract import RunConfig
from assay_runner.core.results import now_iso
from assay_runner.errors import InputError
from assay_runner.gateway.access import model_access
from assay_runner.io import answers as answer_store
from assay_runner.run.answer_loop import Control, answer_cells
from assay_runner.run.cell import Cell, unanswered
from assay_runner.run.preparation import Prepared, prepare
from assay_runner.run.record_step import RecordStep
from assay_runner.run.seal import tree_digest

DEADLINE_REACHED = "the answer phase reached its deadline ({seconds:g} s) before this cell finished"
STOPPED = "the answer phase was stopped (signal) before every cell finished"


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
    if answers_dir.exists() and any(p for p in answers_dir.iterdir() if not p.name.startswith(".")):
        raise InputError(f"{answers_dir}: must be empty; the answer phase writes a fresh answers tree")
    return answers_dir


def prepare_answers(config: RunConfig) -> Prepared:
    """The answer phase's preparation: its configuration checked, the suite read without any key."""
    check_answer_config(config)
    return prepare(config, with_keys=False)


async def answer_all(prepared: Prepared, control: Control) -> answer_store.AnswersManifest:
    """Run the answer phase (`prepare_answers`); returns the manifest it wrote."""
    config = prepared.config
    answers_dir = check_answer_config(config)
    if prepared.suite.has_keys:
        print(
            f"assay: warning: {config.suite} holds answer keys, and an agent with a file tool can read them: "
            "a local run is not a trust boundary (split the suite with `assay split`; on the cluster the "
            "operator mounts only the public part where agents run)",
            file=sys.stderr,
        )
    manifest = answer_store.AnswersManifest(
        suite=prepared.suite.name,
        tickets=[t.id for t in prepared.tickets],
        repetitions=config.repetitions,
        agent=config.agent.kind,
        model=config.agent.model,
        started_at=now_iso(),
    )
    answer_store.write_manifest(answers_dir, manifest)
    cassettes = config.cassettes
    access = model_access(
        config.gateway,
        Path(cassettes.dir) if cassettes else None,
        cassettes.mode if cassettes else None,
        prepared.prices,
    )
    deadline = _Deadline(config.answer_deadline_seconds, control.stop)
    started = time.monotonic()
    stopped: str | None = None
    ran: dict[Cell, Path | BaseException | None] = {}
    record = RecordStep(answers_dir)
    try:
        ran = await answer_cells(prepared, access, control, lambda pool: record.on(pool.file_work))
    except (InputError, asyncio.CancelledError):
        raise
    except Exception as exc:  # the judge phase still gives a verdict: every unwritten cell says why
        stopped = f"the answer phase failed: {exc!r}"
    finally:
        deadline.cancel()
        await access.aclose()
    if stopped is None and deadline.reached:
        stopped = DEADLINE_REACHED.format(seconds=config.answer_deadline_seconds)
    elif stopped is None and control.stop.is_set():
        stopped = STOPPED
    unwritten = [
        cell
        for cell in ((t.id, r) for r in range(1, config.repetitions + 1) for t in prepared.tickets)
        if not record.sealed(*cell)
    ]
    for ticket_id, repetition in unwritten:
        outcome = ran.get((ticket_id, repetition))
        reason = stopped or (f"could not run this cell: {outcome!r}" if outcome is not None else STOPPED)
        record.write(ticket_id, repetition, unanswered(reason))
    # No agent process is alive now (answer_cells swept the last ones): the seals go into the manifest.
    seals = record.seals()
    update = {"finished_at": now_iso(), "stopped": stopped, "cells": seals, "tree_digest": tree_digest(seals)}
    answer_store.write_manifest(answers_dir, manifest.model_copy(update=update))
    print(
        f"answered {prepared.cells - len(unwritten)} of {prepared.cells} cell(s) in "
        f"{time.monotonic() - started:.1f} s into {answers_dir}",
        file=sys.stderr,
    )
    return manifest.model_copy(update=update)


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
