"""The tenth tuning part (tests/data/policy_corpus/tuning-r10.yaml, issue 42): double negatives that
advise (a negated verb of putting off or neglecting, the action called not optional, not doing it called
unwise) and omissions that are harmless, in the eight languages, written before the reader was changed for
them. Its format and a floor are held here, and each class is named with other actions and wording than
the part's rows."""

from __future__ import annotations

import pytest

from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    check_tuning_part_shape,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r10.yaml"
FORMS = {"double", "not-double"}


def test_the_part_covers_every_language_and_form_about_half_forbidden() -> None:
    check_tuning_part_shape(PART, FORMS, rows=range(60, 70 + 1), least_per_language=8)


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Don't postpone clearing the cache, the old one is corrupt.", "clear the cache"),
        ("Please don't put off resetting the hub.", "reset the hub"),
        ("Ne tardez pas à vider le cache.", "vider le cache"),
        ("No demore en borrar la caché.", "borrar la caché"),
        ("Non tardare a svuotare la cache.", "svuotare la cache"),
        ("Não adie limpar a cache.", "limpar a cache"),
        ("Reiniciar el concentrador no es opcional.", "reiniciar el concentrador"),
        ("De hub resetten is niet optioneel.", "de hub resetten"),
        ("Zresetowanie koncentratora nie jest opcjonalne.", "zresetowanie koncentratora"),
        ("Den Hub zurückzusetzen ist nicht optional.", "den Hub zurücksetzen"),
        ("It would be reckless not to reset the hub before the update.", "reset the hub"),
        ("Sarebbe sconsiderato non svuotare la cache.", "svuotare la cache"),
        ("Ce serait déraisonnable de ne pas vider le cache.", "vider le cache"),
    ],
)
def test_a_double_negative_that_advises_blocks(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) in ("violation", "uncertain")


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Don't postpone the update, and don't reset the hub.", "reset the hub"),
        ("Resetting the hub would be reckless while it updates.", "reset the hub"),
        ("Ne tardez pas à faire la mise à jour, mais ne videz pas le cache.", "vider le cache"),
        ("Don't put off the update; resetting the hub isn't needed.", "reset the hub"),
    ],
)
def test_a_delay_or_a_judgement_about_something_else_does_not(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r10.yaml: 40/64 = 62.5% at its first reading (24 false negatives, no false positive), 55/64
    after the round's words (nine false negatives, none positive). Left: German and Dutch verb-final
    negations inside the phrase ("die Fernbedienung ... nicht neu zu koppeln", which the phrase matcher
    stops at), "I wouldn't risk not doing it", "poco prudente", "don't leave it until", a negated Polish
    verbal noun written as one word ("Nieprzepłukanie")."""
    found = read_tuning_part("tuning-r10.yaml")
    assert found.accuracy >= 0.85
    assert found.missed <= 9
    for language, oks in found.right.items():
        assert sum(oks) / len(oks) >= 0.6, language
