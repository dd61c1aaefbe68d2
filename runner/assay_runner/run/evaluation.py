"""`assay run`: every cell answered, then judged as soon as its answer exists; the verdict over all cells.

One process holds the agents and the answer keys here: a local run is not a trust boundary (an agent with
a file tool can read the suite). The cluster runs the same steps in two phases on either side of one: the
answer phase (`run.answering`: answer, record) and the judge phase (`run.scoring`: read, judge).
"""

from __future__ import annotations

from functools import partial

from assay_runner.contract import RepetitionResult, Result
from assay_runner.core.results import now_iso
from assay_runner.errors import InputError
from assay_runner.gateway.access import run_model_access
from assay_runner.judges import AnyJudge, build_judges, close_judges, end_judges, warm_judges
from assay_runner.run.answer_loop import Control, answer_cells
from assay_runner.run.cell import Cell, unanswered
from assay_runner.run.judge_step import JudgeStep, unjudged
from assay_runner.run.preparation import Prepared
from assay_runner.run.shards import cells_of
from assay_runner.run.spending import total_usage

INCOMPLETE = "incomplete: the run stopped before this cell finished"


async def run_evaluation(prepared: Prepared, control: Control, resume: Result | None = None) -> Result:
    """`resume`: an earlier result of the same inputs, authenticated under its run's evidence key
    (`run.evidence`); its cells judged without an error are kept, and only the others run (`assay run
    --resume DIR`)."""
    started = now_iso()
    config = prepared.config
    kept = resumable(prepared, resume) if resume is not None else {}
    order = [(t, r) for t, r in cells_of(prepared.tickets, config.repetitions) if (t.id, r) not in kept]
    access = run_model_access(config, prepared.prices)
    judges: list[AnyJudge] = []
    try:
        try:
            judges = build_judges(prepared.suite, access.client, config.judge_model)
            step = JudgeStep(judges)
            # The code judge's workers for the first cells, which end together: started while they run.
            warm = [partial(warm_judges, judges, min(config.concurrency, len(order)))]
            ran = await answer_cells(prepared, access, control, lambda _pool: step.judge, order, warm=warm)
        finally:
            end_judges(judges)  # their workers end while the verdict is computed, and are reaped after it
            await access.aclose()
        cells = {**kept, **{cell: settled(cell, outcome) for cell, outcome in ran.items()}}
        usage = total_usage(
            access.meter.usage(),
            (c.usage for c in cells.values()),
            agent_metered=config.agent.kind == "chat",
        )
        return prepared.verdict(cells, started=started, usage=usage)
    finally:
        close_judges(judges)


def settled(cell: Cell, outcome: RepetitionResult | BaseException | None) -> RepetitionResult:
    """A cell as the result records it: judged, failed to run, or stopped before it finished."""
    if isinstance(outcome, RepetitionResult):
        return outcome
    error = f"could not run this cell: {outcome!r}" if outcome is not None else INCOMPLETE
    return unjudged(cell[1], unanswered(error))


def resumable(prepared: Prepared, earlier: Result) -> dict[Cell, RepetitionResult]:
    """The cells of an earlier result a resumed run keeps: judged without an error from an agent that exited
    0 (a timed-out or crashed cell runs again, as a resumed answer phase answers it again), and only when the
    earlier run had the same brain, suite, judges (with the gate), selection and repetitions."""
    now, then = prepared.inputs(), earlier.inputs
    differ = [
        name
        for name in ("brain_digest", "suite_digest", "judges_digest", "tickets_digest")
        if getattr(now, name) != getattr(then, name)
    ]
    if earlier.repetitions.k != prepared.config.repetitions:
        differ.append("repetitions")
    if differ:
        raise InputError(
            f"--resume: the earlier run's inputs differ ({', '.join(differ)}): nothing of it can be kept"
        )
    return {
        (ticket.id, rep.index): rep
        for ticket in earlier.tickets
        for rep in ticket.repetitions
        if rep.error is None and rep.exit_code == 0
    }
