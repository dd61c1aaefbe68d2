"""`kb_citation`: does the answer cite every article the key expects?

Score = share of the expected article ids cited (partial credit: citing one of two scores 0.5). Citing an
id that looks like an article id but does not exist in the suite's KB is a fabricated citation and scores 0,
however many real articles are also cited: a support answer that invents sources cannot be trusted. Not
applicable when the key expects no article. Ids are read from the text a reader sees (the shared
`AnswerView.plain`): an id only in a link target, an HTML comment or struck-out text is not a citation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from assay_runner.collector import paused as gc_paused
from assay_runner.contract import JudgeVerdict
from assay_runner.judges.base import Case, SpecJudge, not_applicable, scored, share
from assay_runner.suite.models import KbCitationJudge
from assay_runner.text.view import answer_view


def _id_shapes(known_ids: Iterable[str]) -> re.Pattern[str]:
    # "KB-1003" -> prefix "KB-": anything with a known prefix followed by digits counts as a citation.
    prefixes = sorted({re.match(r"^(\D*)", article).group(1) for article in known_ids} - {""})  # type: ignore[union-attr]
    prefixes = prefixes or ["KB-"]
    alternatives = "|".join(re.escape(prefix) for prefix in prefixes)
    # The lookahead on the prefixes' first letters lets the engine skip most positions of a long answer
    # without testing the lookbehind at each.
    firsts = "".join(sorted({re.escape(prefix[0]) for prefix in prefixes}))
    return re.compile(rf"(?=[{firsts}])(?<![^\W_])(?:{alternatives})\d[\w.-]*(?<![.-])", re.IGNORECASE)


class KbCitation(SpecJudge[KbCitationJudge]):
    def __init__(self, spec: KbCitationJudge, kb_ids: Iterable[str]) -> None:
        super().__init__(spec)
        self.known = {article.upper(): article for article in kb_ids}
        self._citation = _id_shapes(self.known.values())
        # An id has at most this many dot-separated parts: a longer head cannot be one.
        self._parts = max((article.count(".") + 1 for article in self.known), default=1)

    def cited(self, answer: str) -> set[str]:
        """Article ids the reader sees (not in link targets, comments or struck text): a known id followed
        by a file extension or a section (`KB-1003.html`, `kb/KB-1003.md`, `KB-1003.2`) cites it."""
        return {
            self._article(match.group(0).upper())
            for match in self._citation.finditer(answer_view(answer).plain)
        }

    def _article(self, candidate: str) -> str:
        if candidate in self.known:
            return candidate
        # Only the first few parts can be an id: "KB-1.1.1...." a megabyte long is not read part by part.
        parts = candidate.split(".", self._parts)
        for end in range(min(len(parts) - 1, self._parts), 0, -1):  # the longest known id before a dot
            head = ".".join(parts[:end])
            if head in self.known:
                return head
        return parts[0]

    @gc_paused()
    def judge(self, case: Case) -> JudgeVerdict:
        expected = case.ticket.key.kb
        if not expected:
            return not_applicable("the key expects no KB article")
        cited = self.cited(case.answer)
        fabricated = sorted(c for c in cited if c not in self.known)
        if fabricated:
            return scored(0.0, f"cites {', '.join(fabricated)}, which do(es) not exist in the KB")
        found = [article for article in expected if article.upper() in cited]
        missing = [article for article in expected if article.upper() not in cited]
        if not missing:
            return scored(1.0, f"cites {', '.join(found)}")
        return scored(share(len(found), len(expected)), f"does not cite {', '.join(missing)}")
