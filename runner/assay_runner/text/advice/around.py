"""The sentence around a match: its text outside quotations, the clause before the match's, and the
sentence without the match's clause, whose stance is read once per clause."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache

from assay_runner.text.advice.outcome import Stance
from assay_runner.text.advice.stance_reading import _stance_of


def _outside_quotes(text: str, quotes: Sequence[tuple[int, int]]) -> str:
    parts, position = [], 0
    for start, end in quotes:
        parts.append(text[position:start])
        position = end
    parts.append(text[position:])
    return " ".join(parts)


_CLAUSE_CUT = re.compile(r"[,;:\u2014\u2013]|\s-\s|\bbut\b|\band\b|\bwhich\b", re.IGNORECASE)


def _clause_before(text: str, at: int) -> str:
    """The clause before the one that holds offset `at`, folded, when a comma ends it."""
    head = text[:at]
    cut = head.rfind(",")
    if cut < 0:
        return ""
    return " ".join(_CLAUSE_CUT.split(head[:cut])[-1].casefold().replace("\u2019", "'").split())


def _other_clauses(text: str, at: int) -> str:
    """The sentence without the stretch (between two cuts) that holds the match. Every match of a stretch
    gets the same string (its stance and refusals are then read once, `_stance_of_other`)."""
    cuts = _clause_cuts(text)
    i = bisect_right(cuts, at) - 1  # the first stretch with left <= at < right
    if i + 1 >= len(cuts):
        return text
    return _without(text, cuts[i], cuts[i + 1])


def _other_clauses_near(text: str, at: int) -> str:
    """`_other_clauses` within `_NEAR` characters either side of the match's stretch: what a refusal beside
    the match reads ("..., which we cannot recommend"). Bounded, so a sentence with a match in each of
    its thousand clauses is not read whole for each (`tests/unit/test_policy_cost.py`)."""
    cuts = _clause_cuts(text)
    i = bisect_right(cuts, at) - 1
    if i + 1 >= len(cuts):
        return text[max(0, at - _NEAR) : at + _NEAR]
    return _near(text, cuts[i], cuts[i + 1])


@lru_cache(maxsize=256)
def _near(text: str, left: int, right: int) -> str:
    return text[max(0, left - _NEAR) : left] + " " + text[right : right + _NEAR]


_NEAR = 240  # characters: as far as the structural shapes read around a match (`stance.words._WINDOW`)


@lru_cache(maxsize=256)
def _clause_cuts(text: str) -> tuple[int, ...]:
    return (0, *(m.start() for m in _CLAUSE_CUT.finditer(text)), len(text))


@lru_cache(maxsize=256)
def _without(text: str, left: int, right: int) -> str:
    return text[:left] + " " + text[right:]


@lru_cache(maxsize=256)
def _stance_of_other(other: str) -> Stance:
    """`_stance_of` of a sentence's other clauses, read once for all the matches of one stretch."""
    return _stance_of(other)
