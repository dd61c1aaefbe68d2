"""The clauses of a sentence: where a negation's reach ends.

A sentence (`text.sentences`) is cut at ``,`` ``;`` ``:`` parentheses, brackets, dashes (— – and
a spaced hyphen) and ellipses, and before the conjunctions and subordinators in `CONJUNCTIONS` ("but",
"if", "unless", "then", "and then", "so", "because", "when", ...), before "instead" (not "instead of")
and "rather" (not "rather than"), and before "and"/"or" when a new subject or a discourse word follows
("and you", "or just"). A conjunction stays at the head of its clause; a clause opened by a
subordinator ("if", "when", "unless", ...) is *subordinate*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from assay_runner.text.patterns import Pattern, compile_pattern
from assay_runner.text.sentences import split_sentences

__all__ = ["CONJUNCTIONS", "Clause", "clauses_of", "glued_conjunction", "split_clauses"]

# Words that open a clause, longest first where one begins another ("so that" before "so").
CONJUNCTIONS = (
    *("and then", "or else", "so that", "in case", "as soon as", "but", "if", "unless", "then", "so"),
    *("because", "otherwise", "although", "though", "however", "whereas", "whenever", "when", "once"),
    *("until", "till", "before", "after", "while", "since", "whether"),
)
# "and"/"or" open a clause only before one of these; "instead"/"rather" except in "instead of"/"rather than".
_NEW_SUBJECT = (
    *("you", "we", "i", "it", "they", "he", "she", "this", "that"),
    *("then", "just", "simply", "also", "instead", "afterwards"),
)
# The lookahead on the first letters lets the engine skip most positions without trying each word.
_WORD_SPLIT = re.compile(
    r"\b(?=["
    + "".join(sorted({c[0] for c in CONJUNCTIONS} | set("iroa")))  # instead, rather, or, and
    + "])(?:"
    + "|".join(c.replace(" ", r"\s+") for c in CONJUNCTIONS)
    + r"|instead(?!\s+of\b)|rather(?!\s+than\b)|(?:and|or)(?=\s+(?:"
    + "|".join(_NEW_SUBJECT)
    + r")\b))\b",
    re.IGNORECASE,
)
# A comma or colon between two digits (1,000 / 10:30) is not a boundary; a spaced hyphen is a dash.
# The lookahead (every mark's first character) spares the engine the alternatives at every letter.
_PUNCT_SPLIT = re.compile(
    r"(?=[-,:;()\[\]{}|\u2014\u2013\u2026.])"
    r"(?:(?<!\d)[,:]|[,:](?!\d)|[;()\[\]{}|\u2014\u2013\u2026]|(?<=\s)-{1,2}(?=\s)|-{2,}|\.{3})"
)
SUBORDINATORS = frozenset(
    {"if", "unless", "when", "whenever", "once", "until", "till", "before", "after", "while", "since"}
    | {"because", "although", "though", "whereas", "whether", "in case", "as soon as", "so that"}
)
_TRIM_CHARS = " \t\n\x0b\x0c\"'.!?"
# "Desative, por favor, o filtro", "Wyłącz, proszę, filtr": a "please" between two commas cuts nothing.
_POLITE_PARENTHETICALS = frozenset(
    {"please", "s'il vous plaît", "s'il te plaît", "bitte", "por favor", "per favore", "alstublieft"}
    | {"alsjeblieft", "proszę"}
)


def _without_parentheticals(sentence: str, cuts: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The cuts but the two commas around a "please" (`_POLITE_PARENTHETICALS`)."""
    dropped: set[int] = set()
    for k in range(len(cuts) - 1):
        (_, end, first), (start, _, second) = cuts[k], cuts[k + 1]
        between = (
            sentence[end:start] if first == second == "," and start - end <= _PARENTHETICAL_CHARS else ""
        )
        if between and between.strip().casefold().replace("\u2019", "'") in _POLITE_PARENTHETICALS:
            dropped.update((k, k + 1))
    return [cut for k, cut in enumerate(cuts) if k not in dropped] if dropped else cuts


_PARENTHETICAL_CHARS = 20
_HAS_WORD = re.compile(r"[^\W_]")


@dataclass(slots=True)  # not frozen: a frozen dataclass is slow to build, and a long answer has many
class Clause:
    """A clause of the normalised answer."""

    text: str
    """The clause text, trimmed."""
    sentence_index: int
    """0-based index of its sentence among `split_sentences(answer)`."""
    index: int
    """0-based position within its sentence."""
    opener: str | None
    """What opened it: a punctuation mark (",", ";", ":", "(", "—", ...), a lower-case conjunction ("if",
    "and then"), or None for the first clause of a sentence."""
    start: int
    end: int
    """Offsets of `text` in its sentence."""

    @property
    def subordinate(self) -> bool:
        """Opened by a subordinator (if, when, unless, because, ...): a condition, not the main advice."""
        return self.opener in SUBORDINATORS


def split_clauses(text: str) -> list[Clause]:
    """Every clause of a markdown answer, sentence by sentence (see the module docstring)."""
    clauses: list[Clause] = []
    for index, sentence in enumerate(split_sentences(text)):
        clauses.extend(clauses_of(sentence, index))
    return clauses


def clauses_of(
    sentence: str, sentence_index: int, words: Iterable[str] | None = None, language: str = "en"
) -> list[Clause]:
    """The clauses of one sentence. `words`, when given, are the sentence's words (`match.tokenize`):
    a sentence none of whose words opens a clause is not searched for conjunctions. The conjunctions are
    English: a sentence in another `language` is cut at punctuation only (German "so", Spanish "once"
    are no conjunctions there)."""
    cuts = _without_parentheticals(
        sentence, [(m.start(), m.end(), _punct_name(m.group())) for m in _PUNCT_SPLIT.finditer(sentence)]
    )
    if language == "en" and (words is None or _may_open_a_clause(sentence, words)):
        # A conjunction stays in the clause it opens: its cut is where it starts.
        cuts += [(m.start(), m.start(), _conjunction_name(m.group())) for m in _WORD_SPLIT.finditer(sentence)]
    cuts.sort()
    cuts.append((len(sentence), len(sentence), ""))
    clauses: list[Clause] = []
    position, opener = 0, None
    has_word = _HAS_WORD.search
    for cut_start, cut_end, name in cuts:
        if cut_start > position and has_word(sentence, position, cut_start):
            piece = sentence[position:cut_start]
            text = piece.strip(_TRIM_CHARS)
            start = position + len(piece) - len(piece.lstrip(_TRIM_CHARS))
            end = start + len(text)
            clauses.append(Clause(text, sentence_index, len(clauses), opener or None, start, end))
            opener = name
        elif opener is None or name[:1].isalpha() or not opener[:1].isalpha():
            opener = name  # nothing between two cuts: a conjunction outranks the punctuation before it
        position = max(position, cut_end)
    return clauses


# The first word of every clause opener: in an ASCII sentence without apostrophes, `_WORD_SPLIT` can
# match only where one of these is a whole word (each word a token, compared in lower case).
_OPENING_WORDS = frozenset({c.split()[0] for c in CONJUNCTIONS} | {"instead", "rather", "and", "or"})


def _may_open_a_clause(sentence: str, words: Iterable[str]) -> bool:
    # Outside ASCII, case-insensitive matching and case-folding differ ("\u0130f"), and an apostrophe
    # hides a word inside a token ("x'if"): there the sentence is searched.
    return not sentence.isascii() or "'" in sentence or not _OPENING_WORDS.isdisjoint(words)


@lru_cache(maxsize=256)
def _punct_name(mark: str) -> str:
    return "\u2014" if mark.strip() and set(mark.strip()) <= set("-\u2013\u2014") else mark.strip()


@lru_cache(maxsize=256)
def _conjunction_name(words: str) -> str:
    return " ".join(words.casefold().split())


@lru_cache(maxsize=1)
def glued_conjunction() -> Pattern:
    """A clause-opening word joined to the word before it by a hyphen, an apostrophe or the "re " prefix
    rule (`match.tokenize`): the only places where a clause cut falls inside a compound or a word."""
    first_words = sorted({c.split()[0] for c in CONJUNCTIONS} | {"and", "or", "instead", "rather"})
    return compile_pattern(r"(?:[-_'\x{2010}\x{2011}\x{2019}]|\bre\s)(?:" + "|".join(first_words) + r")\b")
