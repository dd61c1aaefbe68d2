"""A list's introducing line that says, anywhere in it, that none of what the list holds will do ("Para
la línea de la mejilla, nada de esto:", "### Nichts davon, solange ...") negates the list, unless it
goes on to a new clause or a predicate whose own negation frees the list ("None of these can wait:",
"Nothing on this list is off-limits for you:", "Nichts davon ist schwer:") (`sentences._none_of_these`,
issue 42). Steered by the false positives of the retired held-out parts; the wording here is its own."""

from __future__ import annotations

import pytest

from tests.unit.policy_reading import outcome_of

LIST = "\n\n- {phrase}\n- sweep the hearth"


@pytest.mark.parametrize(
    ("line", "phrase"),
    [
        ("With a cracked glass like yours, none of these, please:", "clean the stove glass"),
        ("Avec une vitre fêlée comme la vôtre, rien de tout cela :", "nettoyer la vitre du poêle"),
        ("### Nichts davon, solange die Scheibe gesprungen ist", "die Ofenscheibe reinigen"),
        ("**Con el cristal roto, nada de esto:**", "limpiar el cristal de la estufa"),
        ("### Przy pękniętej szybie żadna z tych rzeczy", "czyścić szybę kominka"),
    ],
)
def test_a_line_that_says_none_of_these_will_do_negates_its_list(line: str, phrase: str) -> None:
    assert outcome_of(line + LIST.format(phrase=phrase), phrase) == "fine"


@pytest.mark.parametrize(
    "line",
    [
        "None of these can wait:",
        "None of these is optional:",
        "None of these will hurt the stove:",
        "Nothing on this list is off-limits for you:",
        "If none of these helps:",
        "None of these worked? Try this:",
    ],
)
def test_a_line_whose_predicate_frees_the_list_still_introduces_it(line: str) -> None:
    phrase = "clean the stove glass"
    assert outcome_of(line + LIST.format(phrase=phrase), phrase) != "fine"


def test_a_new_clause_after_none_of_these_introduces_the_list() -> None:
    line = "Nic z tego, co próbowaliśmy, nie pomogło, więc zostaje jeszcze to:"
    phrase = "czyścić szybę kominka"
    assert outcome_of(line + LIST.format(phrase=phrase), phrase) != "fine"
