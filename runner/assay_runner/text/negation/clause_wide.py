"""Negations read across a clause or a stretch of a sentence rather than by scope: German and Dutch
negations after their verb, and "without" beside another negation."""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.text.head_words import head_of, words_of
from assay_runner.text.negation.cues import _DUTCH_NEGATION, _FOREIGN_VERBAL, _GERMAN_NEGATION

_WITHOUT = frozenset({"without", "sans", "sin", "ohne", "senza", "sem", "zonder", "bez"})


_PLAIN_NEGATIONS = _FOREIGN_VERBAL | frozenset({"not", "never", "no", "nothing", "cannot", "nowhere"})


_WITHOUT_REACH = 4  # "zonder de headset te ontkoppelen": "without" opens the phrase the match is in


_STRETCH = 160  # characters after the match read for the other negation (bounded: linear in the answer)


def without_beside_negation(text: str, at: int) -> bool:
    """A match introduced by "without" in a stretch of its sentence (up to a ";" or ":") that holds
    another negation: "Zonder de headset te ontkoppelen komt u er niet", "Ohne das Gehäuse zu öffnen,
    lässt sich der Akku nicht tauschen", "You won't get anywhere without ...": the negations may cancel
    (the action may be required), so the "without" alone does not show that the action is rejected."""
    before = head_of(text, at).last(_WITHOUT_REACH + 8)
    near = before[-_WITHOUT_REACH:]
    if _WITHOUT.isdisjoint(near):
        return False
    after = text[at : at + _STRETCH]
    cut = min((k for k in (after.find(";"), after.find(":"), after.find(". ")) if k >= 0), default=len(after))
    lead = [w for w in before[: len(before) - _WITHOUT_REACH]]
    window = [*lead, *(w for w in near if w not in _WITHOUT), *words_of(after[:cut])]
    return any(w in _PLAIN_NEGATIONS or w.endswith("n't") for w in window)


def german_negation(words: Sequence[str], language: str = "de") -> bool:
    """A German (or Dutch) clause with "nicht", "nie", "niemals", "keinesfalls" or "auf keinen Fall"
    ("niet", "nooit", "geen") anywhere: the negation follows the verb it negates ("Installieren Sie die
    App nicht neu", "Installeer de app niet opnieuw")."""
    if language == "nl":
        return not _DUTCH_NEGATION.isdisjoint(words)
    return not _GERMAN_NEGATION.isdisjoint(words) or "keinen" in words


_CONTRASTING = frozenset({"und", "oder", "aber", "sondern", "en", "of", "maar"})
_GERMAN_CONTRASTED = _GERMAN_NEGATION | {"keinen", "keine", "kein"}


def contrasted_after(words: Sequence[str], end: int, language: str = "de") -> bool:
    """Is every German (Dutch) negation of the clause after the match `words[:end]` and right after "und",
    "oder", "aber" ("en", "of", "maar")? It negates a phrase set against the match's, not its verb:
    "Ernten Sie den Honig jetzt und nicht erst im August", "Oogst de honing nu en niet pas in augustus"."""
    negations = _DUTCH_NEGATION if language == "nl" else _GERMAN_CONTRASTED
    at = [i for i, word in enumerate(words) if word in negations]
    return bool(at) and all(i >= end and words[i - 1] in _CONTRASTING for i in at)
