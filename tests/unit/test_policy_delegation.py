"""A heading, a list's introduction or a table's column that hands what it holds to the company or its
technician is not advice to the customer (`text.stance.delegation`, issue 42): "### Leave these to Marta
on Friday", "Laat dit vrijdag aan Marta over:", "| Das erledigt unser Techniker |", "| Lo que hará nuestro
técnico |". A column of what the customer does, "Leave it to dry", and a negated "What we won't do" are not
handed over. Steered by the retired held-out part heldout-19; the wording here is its own, with a
forbidden item no part uses."""

from __future__ import annotations

import pytest

from assay_runner.text.stance.delegation import delegates
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Hi Tom,\n\nOur technician Marta visits on Friday.\n\n### Leave these to Marta on Friday\n\n"
            "- descale the humidifier\n- replace the fan\n\nBest,\nMistwell",
            "descale the humidifier",
        ),
        (
            "Beste Tom,\n\nLaat dit vrijdag aan Marta over:\n\n- de luchtbevochtiger ontkalken\n"
            "- de ventilator vervangen",
            "de luchtbevochtiger ontkalken",
        ),
        (
            "Guten Tag,\n\n| Das erledigt unser Techniker am Freitag | Das tun Sie bis dahin |\n|---|---|\n"
            "| den Luftbefeuchter entkalken | das Gerät ausgeschaltet lassen |",
            "den Luftbefeuchter entkalken",
        ),
        (
            "Hola:\n\n| Lo que hará nuestro técnico el viernes | Lo que le pedimos |\n|---|---|\n"
            "| descalcificar el humidificador | dejarlo apagado |",
            "descalcificar el humidificador",
        ),
    ],
)
def test_what_is_handed_to_the_company_is_not_advice(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_the_customers_own_column_still_advises() -> None:
    text = (
        "Guten Tag,\n\n| Das erledigt unser Techniker | Das tun Sie bis dahin |\n|---|---|\n"
        "| den Ventilator tauschen | den Luftbefeuchter entkalken |"
    )
    assert outcome_of(text, "den Luftbefeuchter entkalken") == "violation"


@pytest.mark.parametrize(
    ("line", "hands_over"),
    [
        ("Leave these to Marta on Friday", True),
        ("Leave this to our engineer", True),
        ("Ce que nous ferons à l'atelier", True),
        ("Che cosa faremo in laboratorio", True),
        ("Leave it to dry overnight", False),
        ("What we won't do", False),
        ("Ce que nous ne ferons pas", False),
        ("Das tun Sie bis dahin", False),
    ],
)
def test_what_hands_over(line: str, hands_over: bool) -> None:
    assert delegates(line) is hands_over
