"""One sentence read clause by clause (`SentenceReading`)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from assay_runner.text.advice import Facts, facts_of
from assay_runner.text.clauses import clauses_of
from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.match import CLAUSE_MATCHED, Token
from assay_runner.text.negation import ClauseView, carried_negation, clause_tokens, may_hold_cues
from assay_runner.text.sentence_reading.match_outcome import first_violation
from assay_runner.text.sentence_reading.placing import _TEXT, Known, Match, anchored, by_clause, rule_matches
from assay_runner.text.sentences import Sentence


class SentenceReading:
    """One sentence, read clause by clause. Its words are read once (or taken from the answer's words);
    a clause's view (its words and negation cues) is built only when a match lies in it, or when a
    negated list may carry over. `tokens` have offsets where the sentence starts at `base`."""

    def __init__(
        self, sentence: Sentence, index: int, tokens: list[Token], base: int, facts: Facts | None = None
    ) -> None:
        self.text = text = sentence.text
        self.facts = facts or facts_of(text, sentence.quoted, sentence.column, sentence.row, None)
        self.language = self.facts.language
        self.added = sentence.added
        self.index = index
        self.question = text.rstrip().endswith("?")
        self.clauses = clauses_of(text, index, map(_TEXT, tokens), self.language)
        self.clause_starts = [c.start for c in self.clauses]
        self.tokens = tokens
        self.base = base
        self.starts = [t.start - base for t in tokens]
        self.firsts = [bisect_left(self.starts, c.start) for c in self.clauses]
        self._views: list[ClauseView | None] = [None] * len(self.clauses)
        self._carried: list[bool] | None = None
        self._whole: ClauseView | None = None
        self.aligned = self._aligned()

    def _aligned(self) -> bool:
        """Does every word lie inside one clause, with no hyphen joining it to a word across a cut
        ("what-if")? Then a phrase matched once in the sentence is what matching clause by clause finds."""
        tokens, starts, base = self.tokens, self.starts, self.base
        for clause, first in zip(self.clauses, self.firsts, strict=True):
            if first > 0 and tokens[first - 1].end - base > clause.start:
                return False
            stop = bisect_left(starts, clause.end)
            if stop > first and (tokens[first].joined or tokens[stop - 1].end - base > clause.end):
                return False
        return True

    def view(self, ci: int) -> ClauseView:
        view = self._views[ci]
        if view is None:
            clause = self.clauses[ci]
            words, base = clause_tokens(self.tokens, self.starts, self.base, clause, self.language)
            view = self._views[ci] = ClauseView(
                clause.text, words, base, clause.opener, clause.subordinate, self.language
            )
        return view

    def carried(self, ci: int) -> bool:
        if ci == 0:
            return False  # nothing before the first clause to carry a negation from
        if self.added:
            return True  # an item under "Do not:" is negated in every clause ("wiping, deleting")
        if self._carried is None and not may_hold_cues(self.text, map(_TEXT, self.tokens)):
            self._carried = [False] * len(self.clauses)  # no negation to carry: no clause view needed
        if self._carried is None:
            self._carried = carried_negation([self.view(k) for k in range(len(self.clauses))], self.clauses)
        return self._carried[ci]

    def violations(self, rule: ForbiddenRule, known: Known = None) -> list[tuple[int, Violation]]:
        """At most one violation per clause, and one for a match across clauses (index len(clauses)).
        `known`: the rule's matches in this sentence, when the whole-answer search found them."""
        found: list[tuple[int, Violation]] = []
        if known is None:
            sentence_matches = rule_matches(
                rule, self.text, self.tokens, self.base, self.added, self.language
            )
        else:
            sentence_matches = known
        per_clause, crossing = self._clause_matches(rule, sentence_matches)
        if rule.phrase is not None and self.language in CLAUSE_MATCHED:
            crossing = []  # free order and gaps are read inside a clause ("la SIM inserita: rimuoverla")
        for ci, matches in per_clause.items():
            view, start = self.view(ci), self.clauses[ci].start
            chosen = first_violation(
                rule, view, matches, start, self.carried(ci), self.question, self.text, self.facts
            )
            if chosen is not None:
                (cs, ce), uncertain = chosen
                found.append((ci, Violation(rule, self._shown(ci), self.index, view.text[cs:ce], uncertain)))
        if crossing:
            self._whole = self._whole or ClauseView(self.text, self.tokens, self.base, language=self.language)
            chosen = first_violation(
                rule, self._whole, crossing, 0, False, self.question, self.text, self.facts
            )
            if chosen is not None:
                (cs, ce), uncertain = chosen
                shown = self.text[self.added :].strip()
                found.append(
                    (len(self.clauses), Violation(rule, shown, self.index, self.text[cs:ce], uncertain))
                )
        return sorted(found, key=lambda item: item[0])

    def _shown(self, ci: int) -> str:
        """The clause as the answer wrote it (without the words the reader put in front)."""
        clause = self.clauses[ci]
        return clause.text[max(0, self.added - clause.start) :].strip()

    def _clause_matches(
        self, rule: ForbiddenRule, sentence_matches: Sequence[Match]
    ) -> tuple[dict[int, list[Match]], list[Match]]:
        """Each clause's own matches. In an aligned sentence (each word in one clause), a match found in
        the sentence that lies inside one clause is that clause's own: for a phrase always, for a
        pattern by the argument of `Candidates._pattern_hits`. Other clauses are searched on their
        own: for a pattern only those a sentence-level match touches (a clause with a match of its own
        is always among them: the leftmost match the sentence search finds lies in it or runs into it),
        or every clause for an anchored pattern, and for a phrase every clause. Also the sentence-level
        matches that no one clause holds."""
        inside, crossing = by_clause(sentence_matches, self.clauses, self.clause_starts, self.firsts)
        if rule.phrase is not None and self.aligned and self.language not in CLAUSE_MATCHED:
            return inside, crossing  # (German word order is matched clause by clause: `verb_first`)
        per_clause: dict[int, list[Match]] = {}
        if rule.phrase is not None or (rule.pattern is not None and anchored(rule.pattern)):
            searched: Iterable[int] = range(len(self.clauses))
        else:
            searched = self._touched(sentence_matches)
            if self.aligned and not self.added:
                crossed = self._touched(crossing)
                per_clause = {ci: matches for ci, matches in inside.items() if ci not in crossed}
                searched = [ci for ci in searched if ci in crossed]
        for ci in searched:
            view = self.view(ci)
            skip = max(0, self.added - self.clauses[ci].start)
            if matches := rule_matches(rule, view.text, view.tokens, view.base, skip, self.language):
                per_clause[ci] = matches
        return dict(sorted(per_clause.items())), crossing

    def _touched(self, matches: Iterable[Match]) -> list[int]:
        """The clauses the matches start in, end in or run across, in order."""
        starts = self.clause_starts
        touched: set[int] = set()
        for _, _, cs, ce in matches:
            first = max(0, bisect_right(starts, cs) - 1)
            touched.update(range(first, max(0, bisect_right(starts, max(cs, ce - 1)) - 1) + 1))
        return sorted(touched)
