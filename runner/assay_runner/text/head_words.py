"""The words before a match in its sentence, indexed once per sentence.

The structural shapes (`text.stance`, `text.advice`) read the text before a match: its last few words,
whether a negation stands anywhere before one of them, whether a cue phrase opens it. Read afresh for
each match, a sentence with a match in every few words (an answer that says "do not reinstall or ..." a
thousand times) costs its length for every match: quadratic. Here each sentence is tokenised once, and a
match's head is a position in that index (`head_of`): its last words cost their number, a count of
negations before a word one subtraction, and a cue phrase is looked for only within its own width of the
match (`CuePrefix`). Every answer is the one the plain reading of `text[:at]` gives.

`advice.weigh` reads a clause's own words before a match the same way (`ClauseWords`, `Before`): joined
once, counted once per vocabulary, a cue searched in windows of its width in words.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import overload

_WORD = re.compile(r"[\w']+")


def fold(text: str) -> str:
    """The case-folded text the shapes read words in (curly apostrophes straightened)."""
    return text.casefold().replace("\u2019", "'")


def words_of(text: str) -> list[str]:
    """The words of a text, case-folded: what `Head.words` indexes."""
    return _WORD.findall(fold(text))


@dataclass(frozen=True)
class _Index:
    words: tuple[str, ...]
    """The sentence's folded words."""
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    """Where each word starts and ends in the sentence."""
    aligned: bool
    """Folding kept every character's offset (false for a letter that folds to two, "ß" to "ss")."""
    raw: tuple[tuple[int, int], ...]
    """Where each word of the text as written (not folded) starts and ends."""


@lru_cache(maxsize=256)
def _index(text: str) -> _Index:
    folded = fold(text)
    found = list(_WORD.finditer(folded))
    return _Index(
        tuple(m.group() for m in found),
        tuple(m.start() for m in found),
        tuple(m.end() for m in found),
        len(folded) == len(text),
        tuple(m.span() for m in _WORD.finditer(text)),
    )


@lru_cache(maxsize=256)
def _counts(text: str, predicate: Callable[[str], bool]) -> tuple[int, ...]:
    """How many of the sentence's first k words the predicate holds for, for every k."""
    return (0, *accumulate(1 if predicate(w) else 0 for w in _index(text).words))


class Head:
    """The words of `text[:at]` (as `words_of(text[:at])` finds them), read from the sentence's index."""

    def __init__(self, text: str, at: int) -> None:
        self.text, self.at = text, at
        index = _index(text)
        self._plain = index.aligned
        if not index.aligned:  # offsets moved by folding: the head read whole, as it always was
            self._words: tuple[str, ...] = tuple(words_of(text[:at]))
            self._whole = len(self._words)
            self._partial: str | None = None
            return
        self._words = index.words
        # Whole words before `at`, and the part before `at` of a word it cuts ("l'" of "l'erreur").
        self._whole = bisect_right(index.ends, at)
        cut = self._whole < len(index.starts) and index.starts[self._whole] < at
        self._partial = index.words[self._whole][: at - index.starts[self._whole]] if cut else None

    def __len__(self) -> int:
        return self._whole + (self._partial is not None)

    def last(self, count: int) -> list[str]:
        """The head's last `count` words (`words[-count:]`)."""
        if count <= 0:
            return []
        tail = [] if self._partial is None else [self._partial]
        return [*self._words[max(0, self._whole - (count - len(tail))) : self._whole], *tail]

    def first(self, count: int) -> list[str]:
        """The head's first `count` words (`words[:count]`)."""
        if not self._plain:
            return list(self._words[:count])
        taken = list(self._words[: min(count, self._whole)])
        if len(taken) < count and self._partial is not None:
            taken.append(self._partial)
        return taken

    def last_line(self) -> Iterator[str]:
        """The words of the head's last line, the last first (`words_of(text[:at].rsplit("\n", 1)[-1])`
        reversed): a reader that stops at the first word it rejects reads only as far back as that."""
        if not self._plain:
            yield from reversed(words_of(self.text[: self.at].rsplit("\n", 1)[-1]))
            return
        index, end = _index(self.text), self.at
        if self._partial is not None:
            yield self._partial
            end = index.starts[self._whole]
        for i in range(self._whole - 1, -1, -1):
            if self.text.find("\n", index.starts[i], end) >= 0:
                return
            yield index.words[i]
            end = index.starts[i]

    def raw_word(self, i: int) -> str:
        """The head's word at `i` as written (`_WORD.findall(text[:at])[i]`; an IndexError past its end)."""
        raw = _index(self.text).raw
        whole = bisect_right(raw, (self.at, self.at))  # the words that start before `at` (one may end after)
        if i >= whole:
            raise IndexError(i)
        start, end = raw[i]
        return self.text[start : min(end, self.at)]

    def after_last(self, word: str) -> str:
        """The head's text after the last place `word` stands in it (`text[:at].rsplit(word, 1)[-1]`)."""
        found = self.text.rfind(word, 0, self.at)
        return self.text[found + len(word) : self.at] if found >= 0 else self.text[: self.at]

    def any_before(self, i: int, predicate: Callable[[str], bool]) -> bool:
        """Does the predicate hold for one of the head's first `i` words? (`predicate` is a module-level
        function: its counts over the sentence are kept with the sentence's index.)"""
        i = min(i, len(self))
        if not self._plain:
            return any(predicate(w) for w in self._words[:i])
        whole = min(i, self._whole)
        found = _counts(self.text, predicate)[whole] > 0
        return found or (i > self._whole and self._partial is not None and predicate(self._partial))


def head_of(text: str, at: int) -> Head:
    return Head(text, at)


class CuePrefix:
    """Does a cue pattern match in a sentence's text before an offset, `pattern.search(fold(text[:at]))`,
    in time bounded by the cue's width rather than the offset?

    A match that starts more than `width` characters before `at` ends before it, so it reads no character
    at or after `at` and is one of the whole sentence's matches: there is one exactly when the sentence's
    leftmost match starts that early. Any other starts within `width` of `at`, and a search of that window
    with `endpos=at` finds it (a search from `pos` still reads the character before `pos` for `\\b`).
    `width` must bound every match of the pattern (`tests/unit/test_policy_cost.py` checks it). With
    `folds=False` the text is searched as written (`pattern.search(text[:at])`)."""

    def __init__(self, pattern: re.Pattern[str], width: int, folds: bool = True) -> None:
        self.pattern, self.width, self.folds = pattern, width, folds
        self._leftmost = lru_cache(maxsize=256)(self._first_start)

    def _first_start(self, folded: str) -> int | None:
        found = self.pattern.search(folded)
        return None if found is None else found.start()

    def before(self, text: str, at: int) -> bool:
        if self.folds and not _index(text).aligned:
            return self.pattern.search(fold(text[:at])) is not None
        folded = _folded(text) if self.folds else text
        leftmost = self._leftmost(folded)
        if leftmost is not None and leftmost < at - self.width:
            return True
        return self.pattern.search(folded, max(0, at - self.width), at) is not None


@lru_cache(maxsize=256)
def _folded(text: str) -> str:
    return fold(text)


class ClauseWords:
    """A clause's words from its body on (`words[body:]`), joined by spaces once, for the questions every
    match asks of the words before it (`Before`): a clause with thousands of matches costs each match the
    words it looks at, not the whole head. Built once per clause (`negation.ClauseView.clause_words`)."""

    def __init__(self, words: Sequence[str], body: int) -> None:
        self.words, self.body = words, body
        own = words[body:]
        self.joined = " ".join(own)
        # Where word `body + i` ends in `joined` (`offset`).
        self._ends = [end - 1 for end in accumulate(len(w) + 1 for w in own)]
        # A cue's match spans at most its count of words only where no word holds a space itself.
        self._spaced = any(not w or " " in w for w in own)
        self._counts: dict[frozenset[str], list[int]] = {}
        self._first: dict[object, int | None] = {}
        self._checked: dict[CueWords, int] = {}

    def offset(self, start: int) -> int:
        """Where the text before word `start` (`" ".join(words[body:start])`) ends in `joined`."""
        return self._ends[start - self.body - 1] if start > self.body else 0

    def before(self, start: int, lead: int | None = None) -> Before:
        """The words `words[lead:start]` (`lead` defaults to the body)."""
        return Before(self, self.body if lead is None else lead, start)

    def count_in(self, vocabulary: frozenset[str], lead: int, start: int) -> int:
        """How many of `words[lead:start]` are in the vocabulary (`lead` at or after the body)."""
        if start <= lead:
            return 0
        counts = self._counts.get(vocabulary)
        if counts is None:
            own = self.words[self.body :]
            counts = self._counts[vocabulary] = [0, *accumulate(w in vocabulary for w in own)]
        return counts[start - self.body] - counts[lead - self.body]

    def first_end(self, key: object, find: Callable[[str], int | None]) -> int | None:
        """`find(joined)`, once per clause and key: where the first thing it looks for ends."""
        if key not in self._first:
            self._first[key] = find(self.joined)
        return self._first[key]

    def holds(self, cue: CueWords, start: int) -> bool:
        """`cue.pattern.search(" ".join(words[body:start]))`, read in windows of the cue's width in words.

        Whether the text before word `s` holds a match only grows with `s`: the text before `s + 1` adds
        a space and a word, and a match in the shorter text reads the same characters in the longer one
        (the space after its last word stands where the shorter text ended: `\\b` reads both the same; the
        cues use no `$` nor lookahead). So the first `s` whose text holds one decides for every later
        match; a match that makes `s` that first ends in word `s - 1` and, spanning at most `cue.words`
        words, starts within the window searched for it."""
        if self._spaced:
            return cue.pattern.search(self.joined, 0, self.offset(start)) is not None
        first = self._first.get(cue)
        if first is not None:
            return first <= start
        checked = self._checked.get(cue, self.body)
        for s in range(checked + 1, start + 1):
            window = self.offset(max(self.body, s - 1 - cue.words))
            if cue.pattern.search(self.joined, window, self.offset(s)) is not None:
                self._first[cue] = s
                return True
        self._checked[cue] = max(checked, start)
        return False


class CueWords:
    """A cue pattern searched in a clause's words joined by spaces, and the most words one of its matches
    spans (`tests/unit/test_policy_cost.py` checks it: the spaces a match may hold, plus one)."""

    def __init__(self, pattern: re.Pattern[str], words: int) -> None:
        self.pattern, self.words = pattern, words


class Before(Sequence[str]):
    """The words `words[lead:start]` of a `ClauseWords`, answered from its counts: its length, its ends,
    whether any or all of them are in a vocabulary, the cues its text holds."""

    def __init__(self, clause: ClauseWords, lead: int, start: int) -> None:
        self.clause, self.lead, self.start = clause, lead, start

    def __len__(self) -> int:
        return max(0, self.start - self.lead)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("word index out of range")
        return self.clause.words[self.lead + index]

    def any_in(self, vocabulary: frozenset[str]) -> bool:
        return self.clause.count_in(vocabulary, self.lead, self.start) > 0

    def all_in(self, vocabulary: frozenset[str], skip: int = 0) -> bool:
        """Are all the words after the first `skip` in the vocabulary?"""
        lead = min(self.lead + skip, self.start)
        return self.clause.count_in(vocabulary, lead, self.start) == self.start - lead

    @property
    def text(self) -> str:
        """The words joined by spaces (`" ".join(before)`)."""
        if self.lead == self.clause.body:
            return self.clause.joined[: self.clause.offset(self.start)]
        return " ".join(self.clause.words[self.lead : self.start])

    def holds(self, cue: CueWords) -> bool:
        """`cue.pattern.search(self.text)` (from the clause's body only; else the text searched whole)."""
        if self.lead != self.clause.body:
            return cue.pattern.search(self.text) is not None
        return self.clause.holds(cue, self.start)

    def ends_with_first(self, key: object, find: Callable[[str], int | None]) -> bool:
        """Does the text hold what `find` finds first in the clause's joined words (`ClauseWords.first_end`),
        where what it finds in a text before a word is what it finds in the whole ending there?"""
        if self.lead != self.clause.body:
            found = find(self.text)
            return found is not None
        first = self.clause.first_end(key, find)
        return first is not None and first <= self.clause.offset(self.start)
