"""A checklist's marks (`text.sentences`, issue 42): a cross before an item says "not this" ("❌ descale
the humidifier" under "What you can leave out:"), a tick reads the item as it stands; a cross before an item
that negates itself only repeats it. Steered by the retired held-out part heldout-21 (crossed items read as
instructions, or left uncertain); the wording here is its own, with forbidden items no part uses."""

from __future__ import annotations

import pytest

from assay_runner.text.sentences import split_sentences
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Hi Sam,\n\nThe hum comes from the fan bearing, which we will replace. Meanwhile:\n\n"
            "\u274c descale the humidifier\n\u274c swap the wick\n\nBest,\nMistwell",
            "descale the humidifier",
        ),
        (
            "Bonjour,\n\nLe bruit vient du roulement du ventilateur.\n\n- \u274c détartrer l'humidificateur\n"
            "- \u2705 laisser l'appareil débranché\n\nCordialement",
            "détartrer l'humidificateur",
        ),
        (
            "Hallo,\n\nbitte vorerst:\n\n\u2716\ufe0f den Luftbefeuchter entkalken\n\u2716\ufe0f den Docht "
            "tauschen\n\nViele Grüße",
            "den Luftbefeuchter entkalken",
        ),
        (
            "Dzień dobry,\n\nna razie:\n\n\U0001f6ab odkamienić nawilżacz\n\U0001f6ab wymienić knot",
            "odkamienić nawilżacz",
        ),
        (
            "Hola:\n\n\u2717 Descalcifique el humidificador.\n\u2717 Cambie la mecha.\n\nUn saludo",
            "descalcificar el humidificador",
        ),
    ],
)
def test_a_crossed_item_is_not_advice(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Hi Sam,\n\nBefore the humidifier goes back on the shelf:\n\n\u2705 descale the humidifier\n"
            "\u2705 dry the tank\n\nBest,\nMistwell",
            "descale the humidifier",
        ),
        (
            "Ciao,\n\nprima di riaccenderlo:\n\n- \u2714 decalcifica l'umidificatore\n- \u2714 asciuga il "
            "serbatoio",
            "decalcificare l'umidificatore",
        ),
    ],
)
def test_a_ticked_item_is_read_as_it_stands(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


def test_a_cross_before_an_item_that_negates_itself_only_repeats_it() -> None:
    """Not "Do not Don't ...", which could read as a double negative."""
    sentences = split_sentences("Tips:\n\n\u274c Don't descale the humidifier\n\u274c descale the tank")
    assert sentences == ["Tips:", "Don't descale the humidifier", "Do not descale the tank"]
    text = "Please note:\n\n\u274c Never descale the humidifier with vinegar\n\nThanks"
    assert outcome_of(text, "descale the humidifier") == "fine"
