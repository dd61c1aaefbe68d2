"""A line that opens with a negation and ends by saying how to do it introduces instructions, not a list
to leave out (`text.stance.how_after`, issue 42). Steered by the false negatives of the retired held-out
parts ("Keine Werkstatt nötig – das schaffen Sie selbst:", "Geen speciaal gereedschap nodig – zo doet u
het:"); the wording here is its own, with a forbidden item none of the parts use."""

from __future__ import annotations

import pytest

from assay_runner.text.stance.how_after import shows_how
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "**No plumber needed - you can do this yourself:**\n\n1. Close the stopcock.\n"
            "2. Bleed the towel rail with the square key.\n3. Top up the pressure to 1.2 bar.",
            "bleed the towel rail",
        ),
        (
            "### Kein Installateur nötig, so geht's:\n\n- Absperrhahn zudrehen\n"
            "- den Handtuchheizkörper entlüften\n- Druck auf 1,2 bar auffüllen",
            "den Handtuchheizkörper entlüften",
        ),
        (
            "**Geen loodgieter nodig – zo doet u het:**\n\n1. Draai de hoofdkraan dicht.\n"
            "2. Ontlucht de handdoekradiator met het sleuteltje.\n3. Vul de druk bij tot 1,2 bar.",
            "de handdoekradiator ontluchten",
        ),
        (
            "### Nada de llamar al fontanero: qué hacer si el toallero no calienta\n\n"
            "- Cierre la llave de paso.\n- Purgue el toallero con la llave cuadrada.",
            "purgar el toallero",
        ),
    ],
)
def test_a_negating_line_that_ends_by_saying_how_introduces_instructions(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "**Please don't do these yourself:**\n\n- bleed the towel rail\n- open the valve head",
            "bleed the towel rail",
        ),
        (
            "El toallero no tiene nada que ver con el ruido, así que olvídese de:\n\n"
            "- purgar el toallero\n- cambiar la válvula",
            "purgar el toallero",
        ),
    ],
)
def test_a_line_that_negates_what_follows_still_negates_it(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_the_how_must_follow_a_cut_and_hold_no_negation_of_its_own() -> None:
    assert shows_how("No plumber needed - you can do this yourself:")
    assert shows_how("Overgang niet strak? Geen kapper nodig, zo los je het zelf op:")
    assert not shows_how("Don't do this yourself:")  # one clause: the negation is of the doing
    assert not shows_how("No tools needed - but don't do this yourself:")
    assert not shows_how("Nothing to do here, así que olvídese de:")
