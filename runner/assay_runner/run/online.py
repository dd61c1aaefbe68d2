"""Judging one ad-hoc answer with no answer key (online judging, `assay judge`): the judge step alone.

Only judges that need no key run — format, exit code, the policy judge's suite-wide list, the model judge on
its rubric; the others are reported as not run, and the result is marked `mode: online`: it describes an
answer, it is never a release verdict.
"""

from __future__ import annotations

from assay_runner.contract import Inputs, Result
from assay_runner.core.digests import judges_digest, suite_digest
from assay_runner.core.results import build_result, now_iso, ticket_results
from assay_runner.gateway.access import ModelAccess
from assay_runner.judges import AnyJudge, build_judges, close_judges
from assay_runner.run.cell import Answered
from assay_runner.run.judge_step import JudgeStep
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import Ticket

ONLINE_TICKET_ID = "online"


async def judge_online(
    suite: Suite,
    question: str,
    answer: str,
    *,
    exit_code: int | None,
    access: ModelAccess,
    judge_model: str | None,
) -> Result:
    started = now_iso()
    ticket = Ticket(id=ONLINE_TICKET_ID, split="validation", question=question)
    judges: list[AnyJudge] = []
    try:
        judges = build_judges(suite, access.client, judge_model)
        step = JudgeStep(judges, online=True)
        cell = await step.judge(ticket, 1, Answered(answer=answer, exit_code=exit_code))
    finally:
        close_judges(judges)
        await access.aclose()
    return build_result(
        suite,
        ticket_results([ticket], {(ticket.id, 1): cell}),
        1,
        Inputs(suite_digest=suite_digest(suite), judges_digest=judges_digest(suite)),
        started_at=started,
        run_name="online",
        usage=access.meter.usage(),
        mode="online",
    )
