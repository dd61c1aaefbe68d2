"""A German or Dutch "nicht"/"niet" right after "und"/"en" and after the action sets another phrase against
the action's ("Ernten Sie den Honig jetzt und nicht erst im August"): it does not negate the action's verb
(`negation.clause_wide.contrasted_after`, issue 42). Steered by a false negative of the retired held-out
part heldout-16; the wording here is its own, with a forbidden item no part uses."""

from __future__ import annotations

import pytest

from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Entkalken Sie den Luftbefeuchter heute und nicht erst nach dem Urlaub.",
            "den Luftbefeuchter entkalken",
        ),
        (
            "Entkalken Sie den Luftbefeuchter mit Zitronensäure und nicht mit Essig.",
            "den Luftbefeuchter entkalken",
        ),
        ("Ontkalk de luchtbevochtiger vandaag en niet pas na de vakantie.", "de luchtbevochtiger ontkalken"),
    ],
)
def test_a_phrase_set_against_the_action_leaves_it_advised(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Entkalken Sie den Luftbefeuchter nicht, das Gerät hat einen Filter.",
            "den Luftbefeuchter entkalken",
        ),
        ("Reinigen Sie den Tank und entkalken Sie den Luftbefeuchter nicht.", "den Luftbefeuchter entkalken"),
        ("Ontkalk de luchtbevochtiger niet en niet met azijn.", "de luchtbevochtiger ontkalken"),
    ],
)
def test_a_negation_of_the_action_itself_still_negates_it(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"
