"""`abstention`: decline exactly when the key says the right answer is to decline.

On a should-abstain ticket the answer must say it cannot help or that the request is out of scope (1.0),
and cite the scope policy when the key names one (0.5 without the citation). On any other ticket, a refusal
scores 0: refusing a ticket that support can answer is a failure too. Refusals are recognised by phrases
(the built-in list below, or the suite's own); an answer that uses one of them in passing ("anything else
is out of scope") is read as a refusal — keep such phrasing out of normal answers or tune the list.
"""

from __future__ import annotations

import re

from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, scored
from assay_runner.suite.models import AbstentionJudge

DEFAULT_REFUSALS = (
    "out of scope",
    "outside the scope",
    "outside of the scope",
    "outside what support",
    "beyond what support",
    "not something support can",
    "not something we can help",
    "can't help with",
    "cannot help with",
    "can not help with",
    "unable to help",
    "not able to help",
    "unable to assist",
    "not able to assist",
    "can't assist",
    "cannot assist",
    "we don't provide",
    "we do not provide",
    "i must decline",
    "we must decline",
    "have to decline",
)


def _normalise(text: str) -> str:
    text = text.lower().replace("’", "'").replace("‘", "'")
    return re.sub(r"\s+", " ", re.sub(r"[*_`>#]", " ", text))


class Abstention:
    needs_key = True

    def __init__(self, spec: AbstentionJudge) -> None:
        self.spec = spec
        phrases = spec.refusal_phrases if spec.refusal_phrases is not None else DEFAULT_REFUSALS
        self.phrases = [_normalise(p).strip() for p in phrases]

    @property
    def name(self) -> str:
        return self.spec.name

    def refusal(self, answer: str) -> str | None:
        text = _normalise(answer)
        return next((phrase for phrase in self.phrases if phrase and phrase in text), None)

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
