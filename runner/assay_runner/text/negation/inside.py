"""A negation inside the match, in every language: a modal of need between the object and the verb ("The
bath doesn't need resealing", `match.gaps`), a clitic object fronted ("Le corde non cambiarle tu", "a
tenda não a impermeabilizes"), and Polish, which fronts the object and puts "nie" right before the verb
("Palników kuchenki nie trzeba czyścić", "Zawiasów drzwi nie smaruj na razie", "Materaca proszę nie
obracać"), so the words of the phrase stand around the negation that governs its verb. The negation cues of
`negation.scope` are read before the match; this reads the few words before the match's last word.

Only an odd number of negators counts ("Palników kuchenki nie można nie wyczyścić" asks for it), only
within a few words of the verb ("nie trzeba", "proszę nie", "nie należy teraz"), and not "nie tylko" (not
only), which adds rather than negates.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.text.stance.words import _negator

_BEFORE_THE_VERB = 3  # words between the negation and the verb: "nie trzeba", "proszę teraz nie"
_NOT_ONLY = frozenset(
    {"tylko", "jedynie", "only", "just", "nur", "seulement", "solo", "sólo", "soltanto", "só", "alleen"}
)


def negated_inside(words: Sequence[str], start: int, end: int, language: str) -> bool:
    """Does a negation between the match's first and last words govern its verb (the last word)?"""
    if end - start < 3:
        return False
    window = range(max(start + 1, end - 1 - _BEFORE_THE_VERB), end - 1)
    negators = [i for i in window if _negator(words[i], language) and words[i + 1] not in _NOT_ONLY]
    return len(negators) % 2 == 1
