"""`must_mention`: the share of the key's required facts the answer states.

Matching is on whole words in order, tolerant of case, punctuation and simple inflection (see
`assay_runner.text.match`), on the answer's shared reading (`AnswerView`). Two refinements keep
the words honest:

- symbols a fact is written with must be there too: "C++" is not met by "C#", "$0.60" not by "0.60"
  (a `+ # $ € £ % @ &` before the fact's first word or after its last must appear at the same place);
- contractions meet their long forms both ways: "do not" meets "don't", "cannot" meets "can't".

Not applicable when the key lists no facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.collector import paused as gc_paused
from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, SpecJudge, not_applicable, scored, share
from assay_runner.suite.models import MustMentionJudge
from assay_runner.text.fold import fold
from assay_runner.text.match import Token, Words, find_phrase
from assay_runner.text.view import answer_view

SYMBOLS = frozenset("+#$€£%@&")
CONTRACTIONS = {
    "do not": "don't",
    "does not": "doesn't",
    "did not": "didn't",
    "cannot": "can't",
    "can not": "can't",
    "will not": "won't",
    "is not": "isn't",
    "are not": "aren't",
    "was not": "wasn't",
    "should not": "shouldn't",
    "would not": "wouldn't",
    "could not": "couldn't",
    "have not": "haven't",
    "has not": "hasn't",
    "it is": "it's",
    "that is": "that's",
}
_WORD = re.compile(r"[^\W_]")


def spellings(fact: str) -> list[str]:
    """The fact and its forms with contractions written out or contracted."""
    forms = [fact]
    folded = fact.casefold().replace("\u2019", "'")
    for long, short in CONTRACTIONS.items():
        for a, b in ((long, short), (short, long)):
            if re.search(rf"(?<![\w']){re.escape(a)}(?![\w'])", folded):
                forms.append(re.sub(rf"(?<![\w']){re.escape(a)}(?![\w'])", b, folded))
    return forms


def _edge_symbols(text: str) -> tuple[str, str]:
    """Symbols right before the first word and right after the last word of `text`."""
    plain = fold(text)
    words = [m.start() for m in _WORD.finditer(plain)]
    if not words:
        return "", ""
    last = max(m.end() for m in _WORD.finditer(plain))
    lead = "".join(c for c in plain[: words[0]].rstrip()[-2:] if c in SYMBOLS)
    tail = "".join(c for c in plain[last : last + 2] if c in SYMBOLS)
    return lead, tail


def _symbols_agree(plain: str, tokens: Sequence[Token], span: tuple[int, int], lead: str, tail: str) -> bool:
    start, end = tokens[span[0]].start, tokens[span[1] - 1].end
    before = plain[max(0, start - len(lead)) : start]
    after = plain[end : end + len(tail)]
    return before == lead and after == tail


def states(plain: str, words: Words, fact: str) -> bool:
    """Does the visible text `plain`, whose words are `words`, state the fact?"""
    lead, tail = _edge_symbols(fact)
    for form in spellings(fact):
        for span in find_phrase(words, form):
            if _symbols_agree(plain, words.tokens, span, lead, tail):
                return True
    return False


class MustMention(SpecJudge[MustMentionJudge]):
    def __init__(self, spec: MustMentionJudge) -> None:
        super().__init__(spec)

    @gc_paused()
    def judge(self, case: Case) -> JudgeVerdict:
        facts = case.ticket.key.must_mention
        if not facts:
            return not_applicable("the key lists no required facts")
        view = answer_view(case.answer)
        missing = [fact for fact in facts if not states(view.plain, view.words, fact)]
        if not missing:
            return scored(1.0, f"mentions all {len(facts)} required fact(s)")
        quoted = ", ".join(f'"{fact}"' for fact in missing)
        return scored(share(len(facts) - len(missing), len(facts)), f"does not mention {quoted}")
