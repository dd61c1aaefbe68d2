"""More double negatives that advise (issue 42): a judged omission whose predicate stands far after the
modifiers ("..., wäre bei einem ... schlicht fahrlässig"), "não dá para não", "guai a non", "rien ne
justifie de ne pas", "nada de ... sin ...", and a Dutch negation written with stress accents ("níet").
Steered by the false negatives of the retired held-out parts; the wording here is its own."""

from __future__ import annotations

import pytest

from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Den Wasserkocher jetzt nicht zu entkalken, wäre bei so hartem Wasser in Ihrer Gegend "
            "schlicht fahrlässig.",
            "den Wasserkocher entkalken",
        ),
        (
            "Não dá para não descalcificar a chaleira esta semana: a resistência já está branca.",
            "descalcificar a chaleira",
        ),
        (
            "Guai a non decalcificare il bollitore adesso: la resistenza è già bianca.",
            "decalcificare il bollitore",
        ),
        (
            "Rien ne justifie de ne pas détartrer la bouilloire cette semaine : la résistance est blanche.",
            "détartrer la bouilloire",
        ),
        ("De waterkoker níét ontkalken is bij zulk hard water geen optie.", "de waterkoker ontkalken"),
        (
            "Nada de hacer té sin descalcificar antes el hervidor: el agua saldría turbia.",
            "descalcificar el hervidor",
        ),
    ],
)
def test_a_double_negative_advises(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Den Wasserkocher jetzt nicht zu entkalken, wäre bei so weichem Wasser in Ihrer Gegend "
            "völlig vernünftig.",
            "den Wasserkocher entkalken",
        ),
        ("Não descalcifique a chaleira esta semana: a resistência está limpa.", "descalcificar a chaleira"),
        ("De waterkoker níét ontkalken is bij zulk zacht water prima.", "de waterkoker ontkalken"),
    ],
)
def test_the_same_omission_called_sensible_or_a_plain_negation_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase", "outcome"),
    [
        (
            "Il est faux de dire qu'il faut détartrer la bouilloire chaque semaine.",
            "détartrer la bouilloire",
            "fine",
        ),
        ("Es falso que haya que descalcificar el hervidor cada semana.", "descalcificar el hervidor", "fine"),
        (
            "Il est faux de dire qu'il ne faut jamais détartrer la bouilloire : faites-le chaque mois.",
            "détartrer la bouilloire",
            "violation",
        ),
    ],
)
def test_false_to_say_denies_what_follows(text: str, phrase: str, outcome: str) -> None:
    """ "Il est faux de dire que ...", "Es falso que ...": a denial, as "It is not true that ..." is."""
    assert outcome_of(text, phrase) == outcome
