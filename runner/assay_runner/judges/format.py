"""`format`: the answer has the required sections and stays within the word limit.

A section counts when a markdown heading (`## Steps`) or a line that is only bold text (`**Steps**`)
starts with the section's word, case-insensitively. Score = share of checks passed: one check per
section plus one for the word limit, so a long but complete answer loses one check, not everything.
"""

from __future__ import annotations

import re

from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, scored, share
from assay_runner.suite.models import FormatJudge

_HEADING = re.compile(
    r"^\s{0,3}(?:#{1,6}\s+(?P<atx>.+?)\s*#*\s*|\*\*(?P<bold>[^*]+)\*\*:?\s*)$", re.MULTILINE
)
_WORD = re.compile(r"[0-9A-Za-zÀ-ÖØ-öø-ÿ]+(?:['’.-][0-9A-Za-zÀ-ÖØ-öø-ÿ]+)*")


def headings(answer: str) -> list[str]:
    return [(m.group("atx") or m.group("bold")).strip().lower() for m in _HEADING.finditer(answer)]


def word_count(answer: str) -> int:
    return len(_WORD.findall(answer))


class Format:
    needs_key = False

    def __init__(self, spec: FormatJudge) -> None:
        self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.name

    def judge(self, case: Case) -> JudgeVerdict:
        found = headings(case.answer)
        missing = [s for s in self.spec.sections if not any(h.startswith(s.lower()) for h in found)]
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
