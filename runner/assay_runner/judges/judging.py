"""Running the judges on one cell.

Every judge call is wrapped so that an exception becomes a judge error on that cell — the run goes on and
the verdict fails closed — instead of crashing the evaluation and losing the other tickets' work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from assay_runner.contract import JudgeVerdict
from assay_runner.judges import AnyJudge, AsyncJudge, Case
from assay_runner.judges.base import failed, not_applicable
from assay_runner.judges.code import last_traceback_line


async def judge_one(judge: AnyJudge, case: Case) -> JudgeVerdict:
    if case.online and judge.needs_key:
        return not_applicable("needs an answer key; online judging has none")
    try:
        if isinstance(judge, AsyncJudge):
            return await judge.judge_async(case)
        return judge.judge(case)
    except Exception as exc:  # fail closed: a crashing judge blocks, it does not crash the run
        return failed(last_traceback_line(exc))


async def judge_cell(judges: Sequence[AnyJudge], case: Case) -> dict[str, JudgeVerdict]:
    verdicts = await asyncio.gather(*(judge_one(judge, case) for judge in judges))
    return {judge.name: verdict for judge, verdict in zip(judges, verdicts, strict=True)}
