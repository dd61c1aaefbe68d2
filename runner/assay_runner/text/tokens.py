"""The words of a text (`tokenize`) and their inflection key (`stem`): what every judge's matching reads.

Words are letters and digits, with apostrophes inside contractions kept (don't, it's), digits joined across
``.``, ``,`` and ``:`` (1.5, 10:30, 1,000), a French elision a word of its own ("n'effacez" is "n'" +
"effacez"), and leetspeak read in a word that mixes letters and digits ("r3install"). Each word knows
whether a single hyphen or underscore (or the "re " prefix rule) attaches it to the word before: the
hyphenated compounds `text.match` keeps whole. A whole answer's words are kept as columns
(`TokenColumns`, `token_columns`); a short text's as a list of `Token`.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import islice, repeat
from sys import intern
from typing import NamedTuple, overload

from assay_runner.text.language import foreign_stem

__all__ = ["Token", "TokenColumns", "looks_past", "occurrences", "stem", "token_columns", "tokenize"]


def _set_of(words: str) -> frozenset[str]:
    return frozenset(words.split())


# ---------------------------------------------------------------------------------------------- tokenise

_WORD = r"[^\W_]+"
# Apostrophes join contractions; `.`, `,` and `:` join only digits (1.5, 10:30, 1,000).
# A French elision ("l'", "n'", "qu'") is a word of its own: "n'effacez" is "n'" + "effacez".
_ELISION = r"(?<![^\W_])(?i:[ldnjstcm]|qu|jusqu|lorsqu|puisqu)['\u2019](?=[^\W\d_])"
_TOKEN = re.compile(rf"{_ELISION}|{_WORD}(?:(?:['\u2019]|(?<=\d)[.,:](?=\d)){_WORD})*")
# Pronouns a hyphen attaches to a French, Spanish or Portuguese imperative ("réinstallez-la", "reinstale-o"):
# they do not make a compound, so the verb is matched on its own. Not Portuguese "-a", "-as": "plan-a",
# "type-a" are compounds.
_CLITICS = _set_of("la le les moi toi vous nous lui leur en y lo los las lhe lhes me te se o os")
_JOINERS = frozenset("-_\u2010\u2011")
_PREFIXES = frozenset({"re"})


class Token(NamedTuple):
    """One word of a text, with its offsets in the string it was read from."""

    text: str
    """The word, case-folded, with a straight apostrophe."""
    stem: str
    """Its inflection key (`stem`)."""
    start: int
    end: int
    joined: bool = False
    """True when a single hyphen or underscore attaches it to the previous word (a compound part)."""


def tokenize(text: str, language: str = "en") -> list[Token]:
    """The words of `text` in order. Offsets index `text` itself (no normalisation happens here).
    `language` chooses the inflection key (`stem`, or `language.foreign_stem` for fr, es, de)."""
    return list(token_columns(text, language))


class TokenColumns(Sequence[Token]):
    """The words of a long text (`tokenize`), kept column by column: a word and its key as shared
    strings, offsets in machine integers, the joined flags in bytes. A `Token` is made when one is asked
    for. An answer of a megabyte has some 170,000 words: as tuples of Python objects they cost about
    150 bytes each, as columns about 35 (`bench/judges_cost.py` prints the memory per MB of answer)."""

    __slots__ = ("ends", "flags", "starts", "stems", "words")

    def __init__(
        self, words: list[str], stems: list[str], starts: array[int], ends: array[int], flags: bytearray
    ):
        self.words = words
        self.stems = stems
        self.starts = starts
        self.ends = ends
        self.flags = flags

    def __len__(self) -> int:
        return len(self.words)

    def _token(self, i: int) -> Token:
        return _new_tuple(
            Token, (self.words[i], self.stems[i], self.starts[i], self.ends[i], bool(self.flags[i]))
        )

    @overload
    def __getitem__(self, index: int) -> Token: ...

    @overload
    def __getitem__(self, index: slice) -> list[Token]: ...

    def __getitem__(self, index: int | slice) -> Token | list[Token]:
        if isinstance(index, slice):
            return [self._token(i) for i in range(*index.indices(len(self.words)))]
        if index < 0:
            index += len(self.words)
        if not 0 <= index < len(self.words):
            raise IndexError("token index out of range")
        return self._token(index)

    def __iter__(self) -> Iterator[Token]:
        fields = zip(self.words, self.stems, self.starts, self.ends, map(bool, self.flags), strict=True)
        return map(_new_tuple, repeat(Token), fields)


def token_columns(text: str, language: str = "en") -> TokenColumns:
    """`tokenize`, kept as columns (`TokenColumns`): how a whole answer's words are held."""
    # An answer has a token per word: each step below runs over all of them in C (map, extend), and only
    # the rare joined words are looked at one by one in Python. The regex's match objects are taken a
    # chunk at a time (a list of all of them would cost more memory than the tokens), and each word is
    # interned: an answer repeats its words, and one string per distinct word is what they need.
    words: list[str] = []
    starts, ends = array("q"), array("q")
    found = _TOKEN.finditer(text.lower() if text.isascii() else text)
    while chunk := list(islice(found, _CHUNK)):
        words.extend(map(_GROUP, chunk))
        starts.extend(map(_START_OF, chunk))
        ends.extend(map(_END_OF, chunk))
    if words and not text.isascii():  # ASCII text was lowered whole, which is its case-fold
        words = [w.casefold().replace("\u2019", "'") for w in words]
    if words and _LETTER_BY_DIGIT.search(text):
        words = [_unleet(w) for w in words]
    words = list(map(intern, words))
    flags = bytearray(len(words))
    for i in _joined_words(text, words, starts, ends):
        flags[i] = 1
    stems = list(map(stem, words)) if language == "en" else [foreign_stem(w, language) for w in words]
    return TokenColumns(words, stems, starts, ends, flags)


# Leetspeak: in a word that mixes letters and digits ("r3install", "d0n't", "4pp"), the digits that
# stand for letters are read as those letters. A word of digits alone (1003, 10:30) is left alone, and
# so are the digits with no usual letter (2, 6, 8, 9): "kb2210" stays "kb22io", on both sides of a match.
_LETTER_BY_DIGIT = re.compile(r"[^\W\d_]\d|\d[^\W\d_]")
_LEET = str.maketrans("013457", "oieast")


def _unleet(word: str) -> str:
    if word.isalpha() or word.isdigit() or not _LETTER_BY_DIGIT.search(word):
        return word
    return word.translate(_LEET)


_GROUP, _START_OF, _END_OF = re.Match.group, re.Match.start, re.Match.end
_CHUNK = 8192
_new_tuple = tuple.__new__  # builds a Token from its fields without NamedTuple's Python-level wrapper
_JOINER = re.compile("[" + "".join(map(re.escape, sorted(_JOINERS))) + "]")


def _joined_words(text: str, words: list[str], starts: Sequence[int], ends: Sequence[int]) -> Iterator[int]:
    """The words a single joiner (hyphen, underscore) or the "re " prefix rule attaches to the word
    before: "re install" is "re-install", a prefix split off by a space (or a soft line break, which a
    renderer shows as a space) is still part of the word."""
    for m in _JOINER.finditer(text):
        i = bisect_left(starts, m.end())
        if 0 < i < len(starts) and starts[i] == m.end() and ends[i - 1] == m.start():
            if (
                words[i] in _CLITICS
                and m.group() == "-"
                and not (i + 1 < len(starts) and starts[i + 1] == ends[i] + 1 and text[ends[i]] in "-_")
            ):
                continue  # "réinstallez-la": a pronoun, not a compound
            yield i
    for prefix in _PREFIXES:
        for i in occurrences(words, prefix):
            after = i + 1
            if after < len(words) and starts[after] == ends[i] + 1 and text[ends[i]] in " \n":
                yield after


# ------------------------------------------------------------------------------------------------- stem

_VOWELS = frozenset("aeiouy")
_IRREGULAR = {"using": "use", "used": "use"}
# Words that only look inflected; cutting them would conflate them with unrelated words.
_KEEP = frozenset(
    {
        "during",
        "evening",
        "morning",
        "nothing",
        "something",
        "anything",
        "everything",
        "ceiling",
        "news",
        "series",
        "species",
        "always",
        "perhaps",
        "across",
        "whereas",
    }
)
# A doubled final consonant left by -ing/-ed is undoubled (resetting -> resett -> reset), except these.
_NO_UNDOUBLE = frozenset("aeiouylszf")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light inflection key for an English word: same key for the forms of one verb or noun.

    Rules, in order: contractions are kept whole (don't, won't); a possessive 's is dropped; words with
    digits and a few look-alikes (during, evening, news) are kept, and so are words of three letters or
    fewer except for the y rule below (try, tries, tried, trying all give "tri"); a plural -s / -ies is
    removed (not after -ss, -us, -is); then -ing / -ed is removed when at least
    three letters with a vowel remain (never from -eed: need, speed, proceed); finally a consonant + y
    becomes i, a final e is dropped (on four letters or more) and a doubled consonant left by -ing/-ed is
    undoubled, and "-ell" on six letters or more loses an "l" (British "cancelling", "travelled"). So
    disable, disables, disabled and disabling all give "disabl"; reinstall/reinstalled/
    reinstalling give "reinstall"; reset/resets/resetting give "reset"; batteries/battery give "batteri".

    The key is not a dictionary word and is only compared with other keys. Documented limits: no
    irregular verbs beyond use/using/used (ran is not run), no derivation (installation is not install),
    "agreed" does not meet "agree" (the -eed rule), and words that merely end in -ing/-ed are cut like
    inflected ones ("embed" gives "emb" while "embedded" gives "embed").
    """
    w = word.casefold().replace("\u2019", "'")
    if "'" in w:
        return w[:-2] if w.endswith("'s") and len(w) > 2 else w
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if w in _KEEP or not w.isalpha():
        return w
    if len(w) <= 3:
        return _tidy(w, cut=False)  # only try/tries/tried: consonant + y becomes i
    w = _strip_plural(w)
    w, cut = _strip_verb_suffix(w)
    return _tidy(w, cut)


def _strip_plural(w: str) -> str:
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "i"
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


# Verbs whose past ends in "-eed" (any other "-eed" is a base form: bleed, feed, need, seed, speed,
# proceed), and base forms that end in "-ed" (shred, embed).
_PAST_EED = _set_of("agreed disagreed freed guaranteed decreed refereed pureed teed emceed")
_BASE_ED = _set_of("shred embed imbed shed wed bed sled")


def looks_past(word: str) -> bool:
    """Does an English word look like a past tense or participle ("reinstalled", "agreed"), not a base
    form that happens to end in "-ed" ("bleed", "feed", "reseed", "shred")?"""
    w = word.casefold()
    if not w.endswith("ed") or w in _BASE_ED:
        return False
    return not w.endswith("eed") or w in _PAST_EED


def _strip_verb_suffix(w: str) -> tuple[str, bool]:
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "i", True
    if w.endswith("eed"):
        return w, False
    for suffix in ("ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and any(c in _VOWELS for c in base):
            return base, True
    return w, False


def _tidy(w: str, cut: bool) -> str:
    if len(w) >= 3 and w[-1] == "y" and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    elif len(w) >= 4 and w[-1] == "e":
        w = w[:-1]
    if cut and len(w) >= 4 and w[-1] == w[-2] and w[-1] not in _NO_UNDOUBLE:
        w = w[:-1]
    elif len(w) >= 6 and w.endswith("ell") and w[-4] not in _VOWELS:
        w = w[:-1]  # British "-elled", "-elling": "cancelling" meets "cancel" ("resell" and "reselling" too)
    return w


def occurrences(keys: Sequence[str | None], key: str) -> Iterator[int]:
    """Where `key` is in `keys`, in order: `list.index` scans in C, far faster than a loop over words."""
    position = -1
    while True:
        try:
            position = keys.index(key, position + 1)
        except ValueError:
            return
        yield position
