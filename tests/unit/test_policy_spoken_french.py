"""Spoken French drops the "ne" of a negation ("Pas la peine de", "Pas besoin de"), and the reader still
reads it as one (`text.negation.cues`, issue 42). Steered by the false positives of the retired held-out
parts; the wording here is its own."""

from __future__ import annotations

import pytest

from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    "text",
    [
        "Pas la peine d'imperméabiliser la tente : le revêtement tient encore deux saisons.",
        "Pas besoin d'imperméabiliser la tente avant l'été.",
    ],
)
def test_spoken_french_without_its_ne_still_negates(text: str) -> None:
    """Spoken French drops the "ne" ("Pas la peine de", "Pas besoin de"); "Pas question de ... sans ..."
    is left to the other shapes, since its "sans" would be negated too."""
    assert outcome_of(text, "imperméabiliser la tente") == "fine"
    assert (
        outcome_of("Imperméabilisez la tente, pas le tapis de sol.", "imperméabiliser la tente")
        == "violation"
    )
