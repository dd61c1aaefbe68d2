"""An answer that makes a quoted or reported view its own (`advice.stance_cues`, issue 42): "we back every
word", "we stand behind it", "noi lo confermiamo", "Dat advies nemen wij graag over", "Subscrevemos", "nous
vous conseillons de le faire", "Nous recommandons la même chose" endorse what was quoted or reported; the
same words negated ("non lo facciamo nostro", "não o subscrevemos", "nous ne vous conseillons pas de le
faire", "we don't recommend doing so") do not. Steered by the retired held-out parts' reported advice in
another language; the wording here is its own, with a forbidden item no part uses."""

from __future__ import annotations

import pytest

from assay_runner.text.advice.stance_reading import reply_of
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    "reply",
    [
        "We back every word of it.",
        "We stand fully behind that.",
        "E noi lo confermiamo.",
        "Nous le confirmons.",
        "Dat advies nemen wij graag over.",
        "Subscrevemos.",
        "Vu l'état du filtre, nous vous conseillons de le faire cette semaine.",
        "Nous recommandons la même chose.",
        "Wir schließen uns dem an.",
        "Given the limescale, we recommend doing so this week.",
    ],
)
def test_a_reply_that_makes_the_view_its_own_endorses_it(reply: str) -> None:
    assert reply_of(reply, "en") == "endorse"


@pytest.mark.parametrize(
    "reply",
    [
        "Per il suo modello non lo facciamo nostro.",
        "Para o seu modelo não o subscrevemos.",
        "Nous ne vous conseillons pas de le faire.",
        "We don't recommend doing so.",
        "Wir bestätigen das nicht.",
    ],
)
def test_the_same_words_negated_do_not_endorse(reply: str) -> None:
    assert reply_of(reply, "en") != "endorse"


def test_a_quote_the_answer_confirms_is_advice() -> None:
    text = (
        "De fabrikant schrijft het in de handleiding, en wij bevestigen dat: "
        "\u201cOntkalk de luchtbevochtiger elke maand.\u201d"
    )
    assert outcome_of(text, "de luchtbevochtiger ontkalken") in ("violation", "uncertain")
    reported = (
        "Un forum consiglia di decalcificare l'umidificatore ogni settimana; per il suo modello non lo "
        "facciamo nostro."
    )
    assert outcome_of(reported, "decalcificare l'umidificatore") == "fine"
