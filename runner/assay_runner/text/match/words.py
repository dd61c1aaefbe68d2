"""A text's words as phrase search reads them: a key phrase's words, a long text's words indexed once for
many phrases (`Words`), and hyphenated compounds read as one unit each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property, lru_cache
from itertools import compress
from operator import itemgetter

from assay_runner.text.fold import fold
from assay_runner.text.tokens import Token, TokenColumns, occurrences, stem, tokenize


@lru_cache(maxsize=2048)
def phrase_tokens(phrase: str, language: str = "en") -> tuple[Token, ...]:
    """The folded words of a key phrase (plain text, not markdown: "1. Open" or "# of seats" are words
    to find), with the inflection keys of `language`. Raises ValueError when it has none (a
    configuration error)."""
    tokens = tuple(tokenize(fold(phrase), language))
    if not tokens:
        raise ValueError(f"phrase {phrase!r} has no words to match")
    return tokens


class Words:
    """The words of a long text with what phrase search needs, each built once, on first use: the
    stems and compound keys as flat lists that a phrase's first word is looked up in without a Python
    loop over the words."""

    def __init__(self, tokens: Sequence[Token], language: str = "en") -> None:
        self.tokens = tokens
        self.language = language
        """The language whose inflection keys the tokens carry (`tokenize`)."""

    @cached_property
    def stem_lookup(self) -> _Lookup:
        return _Lookup(self.stems)

    @cached_property
    def unit_lookup(self) -> _Lookup:
        return _Lookup(self.unit_keys)

    @cached_property
    def starts(self) -> Sequence[int]:
        """Each token's start offset, for bisection."""
        if isinstance(self.tokens, TokenColumns):
            return self.tokens.starts
        return list(map(_START_OF_TOKEN, self.tokens))

    @cached_property
    def joined(self) -> list[int]:
        """The indexes of the tokens joined to the word before them (`Token.joined`)."""
        return _joined(self.tokens)

    @cached_property
    def compound(self) -> bool:
        """Does any hyphen or underscore join two words?"""
        return bool(self.joined)

    @cached_property
    def stems(self) -> list[str]:
        if isinstance(self.tokens, TokenColumns):
            return self.tokens.stems
        return list(map(_STEM, self.tokens))

    @cached_property
    def unit_keys(self) -> list[str | None]:
        """Aligned with the tokens: a compound's key (its parts' stem written together) at its first
        token and None on the rest, a lone word's stem elsewhere. Most words stand alone, so this is
        `stems` with the few compounds written in."""
        keys: list[str | None] = list(self.stems)
        for key, start, end in _compounds(self.tokens, self.joined):
            keys[start] = key
            keys[start + 1 : end] = [None] * (end - start - 1)
        return keys

    @cached_property
    def stem_counts(self) -> Counter[str]:
        """How often each stem occurs: where a phrase is looked up (by its rarest word)."""
        return Counter(self.stems)


class _Lookup:
    """Where a key is in a long list of keys, in order. The first few lookups scan the list in C; after
    that every key's positions are indexed once (a suite of fifty phrases, each scanning a long answer,
    would read it fifty times)."""

    SCANS_BEFORE_INDEX = 8  # one scan costs about a tenth of indexing every position

    def __init__(self, keys: Sequence[str | None]) -> None:
        self.keys = keys
        self.scans = 0
        self.positions: dict[str | None, list[int]] | None = None

    def occurrences(self, key: str) -> Iterable[int]:
        if self.positions is None:
            self.scans += 1
            if self.scans <= self.SCANS_BEFORE_INDEX:
                return occurrences(self.keys, key)
            # Filled before it is published: two cells with the same answer share its reading (and
            # these words) from two threads, and half an index would drop matches.
            positions: dict[str | None, list[int]] = {}
            for i, each in enumerate(self.keys):
                found = positions.get(each)
                if found is None:
                    positions[each] = [i]
                else:
                    found.append(i)
            self.positions = positions
        return self.positions.get(key, ())


_STEM = itemgetter(1)  # Token.stem


_JOINED = itemgetter(4)  # Token.joined


_START_OF_TOKEN = itemgetter(2)  # Token.start


def _starts(words: Words, wanted: Sequence[str]) -> Iterator[int]:
    """Where the run of stems `wanted` could start among the words, in order, found by its rarest stem:
    "not within the scope" is looked up where "scope" is, not where "not" is."""
    anchor = _rarest(lambda: words.stem_counts, wanted)
    return (p - anchor for p in words.stem_lookup.occurrences(wanted[anchor]) if p >= anchor)


def _rarest(counts: Callable[[], Counter[str]], wanted: Sequence[str]) -> int:
    if len(wanted) == 1:
        return 0
    tally = counts()
    return min(range(len(wanted)), key=lambda k: tally.get(wanted[k], 0))


def _has_compound(tokens: Sequence[Token]) -> bool:
    return any(t.joined for t in tokens)


def _joined(tokens: Sequence[Token]) -> list[int]:
    # The first token is never part of an earlier compound, whatever its flag says (a slice of words).
    flags = tokens.flags if isinstance(tokens, TokenColumns) else map(_JOINED, tokens)
    joined = list(compress(range(len(tokens)), flags))  # in C: an answer has many words
    return joined[1:] if joined and joined[0] == 0 else joined


# A compound (or a single word) read as one unit: the stem of its parts written together ("re-install"
# -> "reinstall"), its first token and the token after its last. A plain tuple: an answer has one per word.
Unit = tuple[str, int, int]


def compound_units(tokens: Sequence[Token], joined: Sequence[int] | None = None) -> list[Unit]:
    """The tokens grouped into compounds (hyphen- or underscore-joined runs), in order. `joined`, when
    given, is `_joined(tokens)` computed before."""
    joined = _joined(tokens) if joined is None else joined
    # Most words stand alone: their units are made in one go, and only the joined runs one by one.
    count = len(tokens)
    single: list[Unit] = list(zip(map(_STEM, tokens), range(count), range(1, count + 1), strict=True))
    if not joined:
        return single
    units: list[Unit] = []
    position = 0
    for compound in _compounds(tokens, joined):
        _, start, end = compound
        units.extend(single[position:start])
        units.append(compound)
        position = end
    units.extend(single[position:])
    return units


def _compounds(tokens: Sequence[Token], joined: Sequence[int]) -> Iterator[Unit]:
    """The joined runs only (two tokens or more), in order, from the indexes of the joined tokens."""
    k = 0
    while k < len(joined):
        start, end = joined[k] - 1, joined[k] + 1
        k += 1
        while k < len(joined) and joined[k] == end:
            end, k = end + 1, k + 1
        yield stem("".join(t.text for t in tokens[start:end])), start, end
