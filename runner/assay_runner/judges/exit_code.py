"""`exit_code`: a crash is a crash. 1.0 when the agent exited 0, else 0.0."""

from __future__ import annotations

from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, SpecJudge, not_applicable, scored
from assay_runner.suite.models import ExitCodeJudge

SIGNAL_NAMES = {137: "killed (SIGKILL, often out of memory)", 143: "terminated (SIGTERM)", 124: "timed out"}


class ExitCode(SpecJudge[ExitCodeJudge]):
    def __init__(self, spec: ExitCodeJudge) -> None:
        super().__init__(spec)

    def judge(self, case: Case) -> JudgeVerdict:
        if case.exit_code is None:
            return not_applicable("no exit code was recorded")
        if case.exit_code == 0:
            return scored(1.0, "agent exited 0")
        meaning = SIGNAL_NAMES.get(case.exit_code)
        return scored(0.0, f"agent exited {case.exit_code}" + (f": {meaning}" if meaning else ""))
