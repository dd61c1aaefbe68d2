"""`format`: the answer has the required sections and stays within the word limit.

A section counts when a heading starts with the section's word, case-insensitively: a markdown heading
of any kind (`## Steps`, setext, `<h2>`), a line that is only bold text (`**Steps**`) or a bold label
with a colon that starts a line (`**Summary:** text`); never a heading inside a code fence. Words are
counted in any script (see `assay_runner.text.structure`). Score = share of checks passed: one
check per section plus one for the word limit, so a long but complete answer loses one check, not
everything.
"""

from __future__ import annotations

from assay_runner.collector import paused as gc_paused
from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, SpecJudge, scored, share
from assay_runner.suite.models import FormatJudge
from assay_runner.text.view import answer_view


def headings(answer: str) -> list[str]:
    return answer_view(answer).headings


def word_count(answer: str) -> int:
    return answer_view(answer).word_count


class Format(SpecJudge[FormatJudge]):
    def __init__(self, spec: FormatJudge) -> None:
        super().__init__(spec)

    @gc_paused()
    def judge(self, case: Case) -> JudgeVerdict:
        found = headings(case.answer)
        wanted = [(s, " ".join(s.casefold().split())) for s in self.spec.sections]
        missing = [s for s, key in wanted if not any(h.startswith(key) for h in found)]
        words = word_count(case.answer)
        within_limit = words <= self.spec.max_words
        checks = len(self.spec.sections) + 1
        passed = checks - len(missing) - (0 if within_limit else 1)
        problems = []
        if missing:
            problems.append(f"missing section(s) {', '.join(missing)}")
        if not within_limit:
            problems.append(f"{words} words, over the limit of {self.spec.max_words}")
        reason = "; ".join(problems) or f"all sections present, {words} words"
        return scored(share(passed, checks), reason)
