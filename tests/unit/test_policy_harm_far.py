"""What doing it damages, said after the action's long modifiers ("Regraisser les roulements avec une
graisse ordinaire plutôt qu'une graisse marine les expose à la rouille"), or as wounds left open or a
seam torn off ("reißt", read casefolded as "reisst"), is a warning (`text.advice.predicates.harms`, issue
42); what it prevents is not. Steered by the false positives of the retired held-out parts; the wording
here is its own."""

from __future__ import annotations

import pytest

from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Vernir la coque avec un vernis d'intérieur plutôt qu'un vernis marin la couvre de taches.",
            "vernir la coque",
        ),
        (
            "Den Rumpf bei Frost zu lackieren lässt den Lack schon nach einer Woche reißen.",
            "den Rumpf lackieren",
        ),
        ("De heg snoeien in de volle zomerhitze laat open wonden achter.", "de heg snoeien"),
    ],
)
def test_a_harm_said_after_long_modifiers_is_a_warning(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_what_doing_it_prevents_is_not_a_harm() -> None:
    text = (
        "Varnishing the hull with a marine varnish every spring before launch stops the wood from cracking."
    )
    assert outcome_of(text, "varnish the hull") != "fine"
