"""The words before a match in its sentence, indexed once per sentence.

The structural shapes (`text.stance`, `text.advice`) read the text before a match: its last few words,
whether a negation stands anywhere before one of them, whether a cue phrase opens it. Read afresh for
each match, a sentence with a match in every few words (an answer that says "do not reinstall or ..." a
thousand times) costs its length for every match: quadratic. Here each sentence is tokenised once, and a
match's head is a position in that index (`head_of`): its last words cost their number, a count of
negations before a word one subtraction, and a cue phrase is looked for only within its own width of the
match (`CuePrefix`). Every answer is the one the plain reading of `text[:at]` gives.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

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
    `width` must bound every match of the pattern (`tests/unit/test_policy_cost.py` checks it)."""

    def __init__(self, pattern: re.Pattern[str], width: int) -> None:
        self.pattern, self.width = pattern, width
        self._leftmost = lru_cache(maxsize=256)(self._first_start)

    def _first_start(self, folded: str) -> int | None:
        found = self.pattern.search(folded)
        return None if found is None else found.start()

    def before(self, text: str, at: int) -> bool:
        if not _index(text).aligned:
            return self.pattern.search(fold(text[:at])) is not None
        folded = _folded(text)
        leftmost = self._leftmost(folded)
        if leftmost is not None and leftmost < at - self.width:
            return True
        return self.pattern.search(folded, max(0, at - self.width), at) is not None


@lru_cache(maxsize=256)
def _folded(text: str) -> str:
    return fold(text)
