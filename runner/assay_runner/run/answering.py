"""The answer phase (`assay answer`): every ticket x repetition through the agent, no judge, no key.

It schedules cells exactly as a whole evaluation does (assay_runner.run.evaluation: bounded, repetition-
major, stoppable) but records each finished cell into an answers tree (assay_runner.io.answers) instead of
judging it. Whatever happens — a stop request, its own deadline, an error — the phase ends with every cell
accounted for: answered, or a `cell.json` saying why not. Only bad input (exit 2) leaves no tree, so the
judge phase always has something to give a verdict on.
"""

from __future__ import annotations

import asyncio
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

from assay_runner.contract import RepetitionResult, RunConfig
from assay_runner.core.results import now_iso, repetition_result
from assay_runner.errors import InputError
from assay_runner.io import answers as answer_store
from assay_runner.run.evaluation import CellWork, Evaluation, run_evaluation
from assay_runner.suite.loader import load_suite
from assay_runner.suite.models import Ticket

DEADLINE_REACHED = "the answer phase reached its deadline ({seconds:g} s) before this cell finished"


class AnswerCellWork(CellWork):
    """A cell that writes the agent's outcome into the answers tree and judges nothing."""

    def __init__(self, *args: Any, answers_dir: Path, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answers_dir = answers_dir

    async def run(self, ticket: Ticket, repetition: int) -> RepetitionResult:
        outcome, _ = await self._agent(ticket, repetition)
        if outcome is None:  # the budget was spent before this cell's turn: recorded, judged as not started
            assert self.spending is not None
            error = self.spending.not_started()
            skipped = answer_store.CellRecord(error=error)
            await self.pool.file_work(
                partial(
                    answer_store.write_cell,
                    self.answers_dir,
                    ticket.id,
                    repetition,
                    answer=None,
                    transcript="",
                    record=skipped,
                )
            )
            self._bump(done=1, failed=1)
            return repetition_result(repetition, {}, answer=None, exit_code=None, error=error)
        record = answer_store.CellRecord(
            exit_code=outcome.exit_code,
            error=outcome.error,
            wall_seconds=round(outcome.wall_seconds, 3),
            started_at=outcome.started_at,
            usage=outcome.usage,
        )
        write = partial(
            answer_store.write_cell,
            self.answers_dir,
            ticket.id,
            repetition,
            answer=outcome.answer,
            transcript=outcome.transcript,
            record=record,
        )
        await self.pool.file_work(write)
        self._bump(done=1, failed=0 if outcome.exit_code == 0 and outcome.answer is not None else 1)
        if self.progress:
            self.progress.update(
                f"{ticket.id}#{repetition} exit {outcome.exit_code} in {outcome.wall_seconds:.1f}s"
            )
        return repetition_result(repetition, {}, answer=outcome.answer, exit_code=outcome.exit_code)


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


def _record_unfinished(answers_dir: Path, cells: list[tuple[str, int, str]]) -> None:
    for ticket_id, repetition, error in cells:
        answer_store.write_cell(
            answers_dir,
            ticket_id,
            repetition,
            answer=None,
            transcript="",
            record=answer_store.CellRecord(error=error),
        )


async def answer_all(evaluation: Evaluation) -> answer_store.AnswersManifest:
    """Run the answer phase of `evaluation.config`; returns the manifest it wrote."""
    config = evaluation.config
    answers_dir = check_answer_config(config)
    suite = load_suite(config.suite, config.kb)
    if suite.has_keys:
        print(
            f"assay: warning: {config.suite} holds answer keys, and an agent with a file tool can read them: "
            "a local run is not a trust boundary (split the suite with `assay split`; on the cluster the "
            "operator mounts only the public part where agents run)",
            file=sys.stderr,
        )
    tickets = suite.select(config.tickets)
    manifest = answer_store.AnswersManifest(
        suite=suite.name,
        tickets=[t.id for t in tickets],
        repetitions=config.repetitions,
        agent=config.agent.kind,
        model=config.agent.model,
        started_at=now_iso(),
    )
    answer_store.write_manifest(answers_dir, manifest)
    evaluation.cell_work = partial(AnswerCellWork, answers_dir=answers_dir)
    stopped: str | None = None
    deadline_hit = False
    timer: asyncio.TimerHandle | None = None
    if config.answer_deadline_seconds is not None:

        def at_deadline() -> None:
            nonlocal deadline_hit
            deadline_hit = True
            evaluation.stop.set()

        timer = asyncio.get_running_loop().call_later(config.answer_deadline_seconds, at_deadline)
    started = time.monotonic()
    try:
        result = await run_evaluation(evaluation)
    except (InputError, asyncio.CancelledError):
        raise
    except Exception as exc:  # the judge phase still gives a verdict: every unwritten cell says why
        stopped = f"the answer phase failed: {exc!r}"
        unfinished = [(t.id, r, stopped) for r in range(1, config.repetitions + 1) for t in tickets]
    else:
        if deadline_hit:
            stopped = DEADLINE_REACHED.format(seconds=config.answer_deadline_seconds)
        elif evaluation.stop.is_set():
            stopped = "the answer phase was stopped (signal) before every cell finished"
        unfinished = [
            (ticket.id, cell.index, stopped if deadline_hit and stopped else cell.error or "")
            for ticket in result.tickets
            for cell in ticket.repetitions
            if cell.error is not None
        ]
    finally:
        if timer is not None:
            timer.cancel()
    written = [
        cell
        for cell in unfinished
        if not (answers_dir / cell[0] / str(cell[1]) / answer_store.CELL_FILE).exists()
    ]
    _record_unfinished(answers_dir, written)
    manifest = manifest.model_copy(update={"finished_at": now_iso(), "stopped": stopped})
    answer_store.write_manifest(answers_dir, manifest)
    print(
        f"answered {len(tickets) * config.repetitions - len(written)} of {len(tickets) * config.repetitions} "
        f"cell(s) in {time.monotonic() - started:.1f} s into {answers_dir}",
        file=sys.stderr,
    )
    return manifest
