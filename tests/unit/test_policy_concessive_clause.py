"""A concession that is a clause of its own, with the action inside it ("Mesmo que trocasse a cabeça da
escova todos os meses, a pontuação não mudava", "Ook als u de honing eerder had geoogst, was hij te nat
geweest", "Nawet gdybyś wypoziomował stół, ...") says what happens all the same: it does not advise the
action (`text.stance.outcomes.concedes`, issue 42). Steered by the false positives of the retired
held-out parts; the wording here is its own."""

from __future__ import annotations

import pytest

from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Mesmo que lavasse o filtro todas as semanas, o ruído continuava: vem do motor.", "lavar o filtro"),
        ("Ainda que lavasse o filtro todas as semanas, o ruído não desaparecia.", "lavar o filtro"),
        ("Ook als u het filter elke week had gespoeld, was het geluid gebleven.", "het filter spoelen"),
        ("Nawet gdybyś płukał filtr co tydzień, hałas by został.", "płukać filtr"),
    ],
)
def test_the_action_inside_a_concession_of_its_own_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Mesmo que esteja cansado, lave o filtro hoje à noite.",
            "lavar o filtro",
        ),  # the action is the main clause
        ("Ook als het regent, spoel het filter vanavond nog.", "het filter spoelen"),
    ],
)
def test_a_concession_before_the_action_still_blocks(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) in ("violation", "uncertain")
