"""`abstention`: decline exactly when the key says the right answer is to decline.

On a should-abstain ticket the answer must say it cannot help or that the request is out of scope (1.0),
and cite the scope policy when the key names one (0.5 without the citation). On any other ticket, a refusal
scores 0: refusing a ticket that support can answer is a failure too. Refusals are recognised by phrases
(the built-in list below, or the suite's own), read with the policy reader's negation rules: a negated
refusal ("this is not out of scope", "I'm not saying we can't help with it") is not a refusal. An answer
that uses a phrase in passing ("anything else is out of scope") is read as a refusal — keep such phrasing
out of normal answers or tune the list.
"""

from __future__ import annotations

import re

from assay_runner.collector import paused as gc_paused
from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, SpecJudge, scored
from assay_runner.suite.models import AbstentionJudge
from assay_runner.text.fold import fold
from assay_runner.text.match import phrase_tokens
from assay_runner.text.policy_reader import ForbiddenRule, find_violations
from assay_runner.text.view import answer_view

DEFAULT_REFUSALS = (
    "out of scope",
    "outside the scope",
    "outside of the scope",
    "outside our scope",
    "beyond the scope",
    "beyond our scope",
    "not within the scope",
    "not within our scope",
    "falls outside",
    "outside what support",
    "beyond what support",
    "not something support can",
    "not something we can",
    "not something i can",
    "isn't something we can",
    "isn't something i can",
    "can't help with",
    "cannot help with",
    "can not help with",
    "i can't help",
    "i cannot help",
    "we can't help",
    "we cannot help",
    "unable to help",
    "not able to help",
    "unable to assist",
    "not able to assist",
    "can't assist",
    "cannot assist",
    "i'm not able to",
    "i am not able to",
    "i'm unable to",
    "i am unable to",
    "we're unable to",
    "we are unable to",
    "i won't be able to",
    "we won't be able to",
    "not in a position to",
    "i can't provide",
    "i cannot provide",
    "we can't provide",
    "we cannot provide",
    "we don't provide",
    "we do not provide",
    "we don't handle",
    "we do not handle",
    "i must decline",
    "we must decline",
    "have to decline",
    "i'm afraid i can't",
    "i'm sorry, but i can't",
)


def _normalise(text: str) -> str:
    return " ".join(fold(text).casefold().split())


def has_words(phrase: str) -> bool:
    try:
        phrase_tokens(phrase)
    except ValueError:
        return False
    return True


class Abstention(SpecJudge[AbstentionJudge]):
    def __init__(self, spec: AbstentionJudge) -> None:
        super().__init__(spec)
        phrases = spec.refusal_phrases if spec.refusal_phrases is not None else DEFAULT_REFUSALS
        self.phrases = [p for p in (_normalise(p) for p in phrases) if p and has_words(p)]

    def refusal(self, answer: str) -> str | None:
        """The first refusal phrase the answer states and does not negate ("this is not out of scope")."""
        view = answer_view(answer)
        present = [phrase for phrase in self.phrases if phrase in view.lowered]
        if not present:
            return None
        # One reading for every phrase present, not one per phrase (an answer can hold all fifty).
        stated = {v.rule.phrase for v in find_violations(view, [ForbiddenRule(phrase=p) for p in present])}
        return next((phrase for phrase in present if phrase in stated), None)

    @gc_paused()
    def judge(self, case: Case) -> JudgeVerdict:
        key = case.ticket.key
        refusal = self.refusal(case.answer)
        if not key.should_abstain:
            if refusal:
                return scored(0.0, f'refuses ("{refusal}") a ticket support should answer')
            return scored(1.0, "answers the ticket")
        if not refusal:
            return scored(0.0, "answers a ticket it should decline as out of scope")
        policy = key.scope_policy
        if policy and not re.search(rf"(?<![\w-]){re.escape(policy)}(?![\w-])", case.answer, re.IGNORECASE):
            return scored(0.5, f"declines, but does not cite the scope policy {policy}")
        return scored(1.0, "declines as out of scope" + (f" citing {policy}" if policy else ""))
