"""What a text says of the sentence before it (`reply_of`) or of the match in it (`_stance_of`), read
by the cue words of `stance_cues` and, where none decides, a contrast that names a cost."""

from __future__ import annotations

import re
from functools import lru_cache

from assay_runner.text.advice.cues import _cues, _words
from assay_runner.text.advice.outcome import Stance
from assay_runner.text.advice.stance_cues import (
    _BARE_REFUSAL,
    _ENDORSE,
    _ENDORSE_MORE,
    _MORE_WORDS,
    _NO,
    _REJECT,
    _REJECT_MORE,
    _STANCE_WORDS,
    _YES,
)
from assay_runner.text.stance import contrast_cost, reassures
from assay_runner.text.stance.disowning import negated_doubt

_WORD = re.compile(r"[\w']+")


def _may_take_a_stance(folded: str) -> bool:
    words = _WORD.findall(folded)
    return not _STANCE_WORDS.isdisjoint(words) or not _MORE_WORDS.isdisjoint(words)


@lru_cache(maxsize=4096)
def _may_take_more(folded: str) -> bool:
    return not _MORE_WORDS.isdisjoint(_WORD.findall(folded))


def _rejected(folded: str) -> bool:
    return _REJECT.search(folded) is not None or (
        _may_take_more(folded) and _REJECT_MORE.search(folded) is not None
    )


def _endorsed(folded: str) -> bool:
    return _ENDORSE.search(folded) is not None or (
        _may_take_more(folded) and _ENDORSE_MORE.search(folded) is not None
    )


@lru_cache(maxsize=4096)
def reply_of(text: str, language: str = "en") -> Stance:
    """What a sentence says about the one before it: an answer (yes/no) or a stance (endorse/reject)."""
    folded = " ".join(text.casefold().replace("\u2019", "'").split()).strip(" \"'")
    if negated_doubt(folded, language):
        return "yes"  # "No dudamos de que tenga razón" opens with "No" and agrees
    if (_NO.search(folded) and not _PREPOSITION_NO.get(language, _NEVER).search(folded)) or _short_no(folded):
        # "It won't hurt.", "It does not take long.": a negated cost reassures, it does not say no
        return None if reassures(_WORD.findall(folded)) and not _BARE_NO.search(folded) else "no"
    if _YES.search(folded):
        return "yes"
    if not _may_take_a_stance(folded):
        return None
    if _rejected(folded) or (len(folded.split()) <= 4 and _BARE_REFUSAL.search(folded)):
        return "reject"
    if _endorsed(folded):
        return "endorse"
    return "reject" if contrast_cost(folded) else None


# Portuguese "no" is "in the" ("No seu caso, ..."), not an answer.
_NEVER = re.compile(r"(?!)")
_BARE_NO = _cues(r"^(?:no|nope|non|nein|nee|não|nie)\b[,.!]")
_PREPOSITION_NO = {"pt": re.compile(r"^no\s+\w")}


def _short_no(folded: str) -> bool:
    """A reply of a few words with a negation: "Pas vraiment.", "Eher nicht.", "Raczej nie.", "Niet echt."."""
    words = _WORD.findall(folded)
    if not 0 < len(words) <= 3 or folded.endswith("?"):
        return False
    return words[0] in _SHORT_NEGATIONS or words[-1] in _SHORT_NEGATIONS  # not "Do not wait."


_SHORT_NEGATIONS = _words("not pas nicht nie niet no non não nao nein nee neen nope")


def _stance_of(text: str) -> Stance:
    """The stance of the rest of a sentence (outside the match's clause or quotation)."""
    folded = " ".join(text.casefold().replace("\u2019", "'").split())
    if not _may_take_a_stance(folded):
        return None
    if _rejected(folded):
        return "reject"
    if _endorsed(folded):
        return "endorse"
    return "reject" if contrast_cost(folded) else None
