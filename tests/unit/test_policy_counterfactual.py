"""A need said of a case that is not the customer's (`text.stance.counterfactual`, issue 42): a condition
contrary to fact, then an impersonal conditional need ("Si le voyant était allumé, il faudrait vider le
réservoir ; or il est éteint") passes; a condition in the present, or one that puts the answer in the
customer's place ("If I were you"), does not. Steered by the false positives of the retired held-out
parts; the wording here is its own."""

from __future__ import annotations

import pytest

from assay_runner.text.stance.counterfactual import counterfactual_need
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "If the filter light were red, you'd need to rinse the filter; it is green, so leave it.",
            "rinse the filter",
        ),
        (
            "Si le témoin était rouge, il faudrait rincer le filtre ; il est vert, laissez-le.",
            "rincer le filtre",
        ),
        (
            "Si el piloto estuviera en rojo, habría que enjuagar el filtro; está en verde.",
            "enjuagar el filtro",
        ),
        (
            "Se la spia fosse rossa, bisognerebbe sciacquare il filtro; è verde, lo lasci.",
            "sciacquare il filtro",
        ),
        ("Se a luz estivesse vermelha, seria preciso lavar o filtro; está verde.", "lavar o filtro"),
        ("Gdyby lampka była czerwona, trzeba by było wypłukać filtr; jest zielona.", "wypłukać filtr"),
    ],
)
def test_a_need_in_a_case_contrary_to_fact_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_a_present_condition_or_the_answer_in_the_customer_s_place_is_not_read() -> None:
    present = "Si le témoin est rouge, il faudrait rincer le filtre ce soir."
    assert not counterfactual_need(present, present.index("rincer"), "fr")
    mine = "If I were you, you'd need to rinse the filter first."
    assert not counterfactual_need(mine, mine.index("rinse"), "en")
    ahora = "Si ahora el piloto está en rojo, habría que enjuagar el filtro."  # "ahora" is no subjunctive
    assert not counterfactual_need(ahora, ahora.index("enjuagar"), "es")
    assert outcome_of("If the filter is red, you'd need to rinse the filter.", "rinse the filter") != "fine"
