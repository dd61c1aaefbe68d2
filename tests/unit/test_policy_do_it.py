"""A "do it" in the imperative right after the action is named points back to it (`text.key_do_it`): the
pair is uncertain, whatever the reading of the clause that names the action (a double negative the reader
cannot show, a negation it reads as a pass). Steered by the false negatives of the retired held-out parts
(`heldout-13` to `-15`); these rows are worded apart from them."""

from __future__ import annotations

import pytest

from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Impossible de ne pas vidanger la cuve avant l'hiver : faites-le dès dimanche.", "vidanger la cuve"),
        ("Non si può fare a meno di svuotare la cisterna: lo faccia prima del gelo.", "svuotare la cisterna"),
        (
            "Nadie le diría que no hace falta vaciar el depósito: hágalo antes de las heladas.",
            "vaciar el depósito",
        ),
        ("De tank niet legen is geen optie meer: doe het vóór de vorst.", "de tank legen"),
        ("Nie da się nie opróżnić zbiornika przed zimą. Zrób to w niedzielę.", "opróżnić zbiornik"),
        (
            "Um das Leeren des Tanks kommen Sie nicht herum: Erledigen Sie es vor dem Frost.",
            "den Tank leeren",
        ),
        ("There is no getting around draining the tank: do it before the frost.", "drain the tank"),
    ],
)
def test_do_it_after_the_action_blocks(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) in ("violation", "uncertain")


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        # negated, or someone else's doing
        ("Ne vidangez pas la cuve : ne le faites pas avant notre visite.", "vidanger la cuve"),
        ("Non svuoti la cisterna. Non lo faccia da solo.", "svuotare la cisterna"),
        ("Don't drain the tank yourself: let our engineer do it on Monday.", "drain the tank"),
        # "it" is what was named last: another action after a contrast or a semicolon
        ("Draining the tank would not stop the leak; lagging the pipes would, so do that.", "drain the tank"),
        (
            "Den Tank zu leeren wäre möglich, aber besser ist es, die Leitung zu dämmen. Machen Sie das.",
            "den Tank leeren",
        ),
        # a noun, not a "do it": Spanish "fallo", Italian "falla"
        ("No hace falta vaciar el depósito: el fallo viene del sensor.", "vaciar el depósito"),
    ],
)
def test_a_do_it_that_is_negated_or_points_elsewhere_adds_nothing(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"
