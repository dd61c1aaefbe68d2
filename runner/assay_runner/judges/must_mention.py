"""`must_mention`: the share of the key's required facts the answer states.

Matching is on whole words in order, tolerant of case, punctuation and simple inflection (see
`assay_runner.judges.text.match`). Not applicable when the key lists no facts.
"""

from __future__ import annotations

from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, not_applicable, scored, share
from assay_runner.judges.text.match import find_phrase
from assay_runner.judges.text.view import answer_view
from assay_runner.suite.models import MustMentionJudge


class MustMention:
    needs_key = True

    def __init__(self, spec: MustMentionJudge) -> None:
        self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.name

    def judge(self, case: Case) -> JudgeVerdict:
        facts = case.ticket.key.must_mention
        if not facts:
            return not_applicable("the key lists no required facts")
        tokens = answer_view(case.answer).tokens
        missing = [fact for fact in facts if not find_phrase(tokens, fact)]
        if not missing:
            return scored(1.0, f"mentions all {len(facts)} required fact(s)")
        quoted = ", ".join(f'"{fact}"' for fact in missing)
        return scored(share(len(facts) - len(missing), len(facts)), f"does not mention {quoted}")
