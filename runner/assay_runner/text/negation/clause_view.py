"""A clause ready for matching (`ClauseView`): its words and negation cues, and what every match asks of
them built once per clause; a clause's words taken from its sentence's (`clause_tokens`)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from operator import itemgetter

from assay_runner.text.clauses import Clause
from assay_runner.text.head_words import ClauseWords
from assay_runner.text.match import Token, tokenize
from assay_runner.text.negation.cues import _Cue, find_cues, may_hold_cues
from assay_runner.text.negation.vocabulary import _JOINING, _MAX_CHAIN, _POSITIONED, _transparent


class ClauseView:
    """A clause (or a whole sentence) ready for matching: its words and negation cues.

    `tokens` may be a slice of a longer text's words (`AnswerView.tokens`): their offsets are in that
    text, where this view's `text` starts at offset `base`.
    """

    def __init__(
        self,
        text: str,
        tokens: list[Token],
        base: int = 0,
        opener: str | None = None,
        subordinate: bool = False,
        language: str = "en",
    ) -> None:
        self.text = text
        self.language = language
        self.tokens = tokens
        self.base = base
        self.opener = opener
        self.subordinate = subordinate
        self.words = words = list(map(_word, tokens))
        self.cues = cues = find_cues(words) if may_hold_cues(text, words) else []
        # Cues by kind with their ends, so each match finds the cues before it by bisection: a clause
        # with thousands of negated matches stays linear.
        self.verbal = [c for c in cues if not c.strict]
        self.verbal_ends = [c.end for c in self.verbal]
        self.prepositional = [c for c in cues if c.strict]
        self.prepositional_ends = [c.end for c in self.prepositional]
        opener_words = opener.split() if opener and opener[:1].isalpha() else []
        self.body_start = len(opener_words) if words[: len(opener_words)] == opener_words else 0

        # Every question a match asks of its clause is answered from these, each built once per clause
        # on first use, so a clause with thousands of matches stays linear ("It won't open reinstall
        # reinstall ..."). Plain attributes, not cached properties: a long answer has many clauses.
        self._opaque: dict[int, int] = {}
        self._positions: dict[str, list[int]] = {}
        self._first_opaque: int | None = None
        self._cancelled: dict[int, int] = {}
        self._clause_words: ClauseWords | None = None
        self.not_only = words[self.body_start : self.body_start + 2] == ["not", "only"]

    def clause_words(self) -> ClauseWords:
        """The words from the body on, indexed once for what each match asks of the words before it."""
        if self._clause_words is None:
            self._clause_words = ClauseWords(self.words, self.body_start)
        return self._clause_words

    def cancelled(self, index: int) -> int:
        """How many negations the verbal cue `index` cancels: those it heads ("no reason not to") or
        one before a "why" ("I don't see why you shouldn't"). Asked once per cue, however many matches
        follow it."""
        found = self._cancelled.get(index)
        if found is None:
            found = self._cancelled[index] = _double_negations(self, index) or _why_not(self, index)
        return found

    @property
    def first_opaque(self) -> int:
        """The first word after the opener that is not transparent (`len(words)` if none)."""
        if self._first_opaque is None:
            self._first_opaque = self.opaque_from(self.body_start)
        return self._first_opaque

    @property
    def subject_start(self) -> int:
        """Where the clause's subject may start: its first opaque word, after a conjunction that joins
        the clause to the one before ("..., and deleting the mailbox is never required")."""
        first = self.first_opaque
        if first < len(self.words) and self.words[first] in _JOINING:
            return self.opaque_from(first + 1)
        return first

    def opaque_from(self, position: int) -> int:
        """The first word at or after `position` that is not transparent (`len(words)` if none)."""
        found = self._opaque.get(position)
        if found is None:
            words = self.words
            found = len(words)
            for i in range(position, len(words)):
                if not _transparent(words[i]):
                    found = i
                    break
            self._opaque[position] = found
        return found

    def positions(self, kind: str) -> list[int]:
        """Where the words of one kind are, in order: "restart" (just, simply, please, so, then: they
        restart advice in a run-on), "coordinator" (or, nor, and), "why" (why, reason) or "already"."""
        found = self._positions.get(kind)
        if found is None:
            vocabulary = _POSITIONED[kind]
            found = self._positions[kind] = [i for i, w in enumerate(self.words) if w in vocabulary]
        return found


def _any_between(positions: list[int], after: int, before: int) -> bool:
    """Is any of the sorted `positions` in the open interval (after, before)?"""
    k = bisect_right(positions, after)
    return k < len(positions) and positions[k] < before


_word = itemgetter(0)  # Token.text, read without the attribute lookup: a long clause has many


def clause_tokens(
    sentence: Sequence[Token], starts: Sequence[int], base: int, clause: Clause, language: str = "en"
) -> tuple[list[Token], int]:
    """The words of one clause and the offset its text starts at in their frame, taken from its
    sentence's words rather than read again (`sentence` has offsets where the sentence starts at `base`,
    `starts` are those offsets made the sentence's own). `tokenize(clause.text)` exactly, which a word
    crossing the cut falls back to."""
    first, stop = bisect_left(starts, clause.start), bisect_left(starts, clause.end)
    inside = list(sentence[first:stop])
    crossing = (inside and inside[-1].end - base > clause.end) or (
        first and sentence[first - 1].end - base > clause.start
    )
    if crossing:
        return tokenize(clause.text, language), 0
    if inside and inside[0].joined:
        # The first word of a clause is never joined to a word before it: that word is in another clause.
        inside[0] = inside[0]._replace(joined=False)
    return inside, base + clause.start


def _head(view: ClauseView, cue: _Cue, stop: int | None = None) -> int | None:
    """The first word after the cue that is not transparent (before `stop`), if any."""
    head = view.opaque_from(cue.end)
    return head if head < (len(view.words) if stop is None else stop) else None


def _double_negations(view: ClauseView, index: int) -> int:
    """How many earlier cues have the verbal cue `index` as their head ("no reason not to", "can't not")."""
    count, current = 0, view.verbal[index]
    for earlier in reversed(view.verbal[max(0, index - _MAX_CHAIN) : index]):
        fresh = view.words[current.start - 1] in _FRESH_BEFORE if current.start else True
        if fresh or view.words[current.start] not in _NOT_NEVER or _head(view, earlier) != current.start:
            break
        count, current = count + 1, earlier
    return count


_FRESH_BEFORE = frozenset({"do", "does", "did", "please"})  # "do not" starts a negation of its own


_NOT_NEVER = frozenset({"not", "never"})


def _why_not(view: ClauseView, index: int) -> int:
    """ "I don't see why you shouldn't reinstall": a negation before "why"/"reason" cancels the one after."""
    why = view.positions("why")
    if index == 0 or not why:
        return 0
    before, after = view.verbal[index - 1].end - 1, view.verbal[index].start
    return 1 if _any_between(why, before, after) else 0
