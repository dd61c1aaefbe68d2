"""Running the judges on one cell, each within a time budget.

Every judge call is wrapped so that an exception becomes a judge error on that cell — the run goes on and
the verdict fails closed — instead of crashing the evaluation and losing the other tickets' work.

Every judge also has a time budget (`budget_seconds` on the judge, else `JUDGE_BUDGET_SECONDS`; the model
judge: `MODEL_BUDGET_SECONDS`): a judge that overruns it is recorded as a judge error, which blocks, and
the cell moves on. The in-process judges of a cell run one after another on a daemon thread (one of
`judges.threads`, kept for the next cell), so a runaway one neither stalls the event loop (other cells,
agents) nor keeps the process from exiting; a code judge's own worker process is killed at its own,
shorter, per-call timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence

from assay_runner.collector import paused as gc_paused
from assay_runner.contract import JudgeVerdict
from assay_runner.judges import AnyJudge, AsyncJudge, Case, Judge
from assay_runner.judges.base import failed, not_applicable
from assay_runner.judges.threads import JUDGE_THREADS
from assay_runner.usercode.worker import last_traceback_line

JUDGE_BUDGET_SECONDS = 60.0
MODEL_BUDGET_SECONDS = 900.0


def budget_of(judge: AnyJudge) -> float:
    default = MODEL_BUDGET_SECONDS if isinstance(judge, AsyncJudge) else JUDGE_BUDGET_SECONDS
    budget = getattr(judge, "budget_seconds", None)
    return float(budget) if isinstance(budget, int | float) else default


NEEDS_A_KEY = "needs an answer key; online judging has none"


def skipped(judge: AnyJudge, case: Case) -> JudgeVerdict | None:
    if case.online and judge.needs_key:
        return not_applicable(NEEDS_A_KEY)
    return None


def _call(judge: Judge, case: Case) -> JudgeVerdict:
    try:
        return judge.judge(case)
    except BaseException as exc:  # fail closed: a crashing judge blocks, it does not crash the run
        return failed(last_traceback_line(exc))


async def judge_one(judge: AnyJudge, case: Case) -> JudgeVerdict:
    """One judge on one case, within its budget (the model judge on the event loop, the rest on a thread)."""
    if (verdict := skipped(judge, case)) is not None:
        return verdict
    if isinstance(judge, AsyncJudge):
        return await _judge_async(judge, case)
    verdicts = await _judge_on_thread([judge], case)
    return verdicts[judge.name]


async def _judge_async(judge: AsyncJudge, case: Case) -> JudgeVerdict:
    budget = budget_of(judge)
    try:
        return await asyncio.wait_for(judge.judge_async(case), budget)
    except TimeoutError:
        return failed(f"took longer than its budget of {budget:g} s")
    except Exception as exc:  # fail closed
        return failed(last_traceback_line(exc))


def _settle(finished: asyncio.Future[None]) -> None:
    if not finished.done():
        finished.set_result(None)


async def _judge_on_thread(judges: Sequence[Judge], case: Case) -> dict[str, JudgeVerdict]:
    """The in-process judges one after another on a daemon thread, each within its budget."""
    loop = asyncio.get_running_loop()
    done: dict[str, JudgeVerdict] = {}
    current: list[tuple[str, float] | None] = [None]  # (judge, its deadline) while one runs
    finished = loop.create_future()

    def work() -> None:
        # One pause of the cyclic collector for the whole cell: resumed between two judges, it would
        # rescan the answer's reading that the next judge shares (`assay_runner.collector`).
        with gc_paused():
            for judge in judges:
                current[0] = (judge.name, time.monotonic() + budget_of(judge))
                done[judge.name] = _call(judge, case)
                current[0] = None
        with contextlib.suppress(RuntimeError):  # the loop closed while an overrun judge still ran
            loop.call_soon_threadsafe(_settle, finished)

    JUDGE_THREADS.submit(work)
    overrun: str | None = None
    while not finished.done():
        running = current[0]
        deadline = running[1] if running else time.monotonic() + 0.05
        try:
            await asyncio.wait_for(asyncio.shield(finished), max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            running = current[0]
            if running is not None and time.monotonic() >= running[1] and not finished.done():
                overrun = running[0]  # leave its thread behind (a daemon) and record the overrun
                break
    verdicts: dict[str, JudgeVerdict] = {}
    for judge in judges:
        if judge.name == overrun:
            verdicts[judge.name] = failed(f"took longer than its budget of {budget_of(judge):g} s")
        elif judge.name in done:
            verdicts[judge.name] = done[judge.name]
        else:
            verdicts[judge.name] = failed("not run: an earlier judge on this answer overran its budget")
    return verdicts


async def judge_cell(judges: Sequence[AnyJudge], case: Case) -> dict[str, JudgeVerdict]:
    verdicts: dict[str, JudgeVerdict] = {}
    local: list[Judge] = []
    remote: list[AsyncJudge] = []
    for judge in judges:
        if (verdict := skipped(judge, case)) is not None:
            verdicts[judge.name] = verdict
        elif isinstance(judge, AsyncJudge):
            remote.append(judge)
        else:
            local.append(judge)
    on_thread = asyncio.ensure_future(_judge_on_thread(local, case)) if local else None
    remote_verdicts = await asyncio.gather(*(_judge_async(judge, case) for judge in remote))
    verdicts.update(zip((judge.name for judge in remote), remote_verdicts, strict=True))
    if on_thread is not None:
        verdicts.update(await on_thread)
    return {judge.name: verdicts[judge.name] for judge in judges}
