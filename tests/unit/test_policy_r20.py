"""The twentieth tuning part (tests/data/policy_corpus/tuning-r20.yaml, issue 42): no reason not to do
it, a delay that can no longer be made, a hesitation denied and "unless" after a negated main clause,
against one negation only, a hesitation said and "unless" conditioning a negated instruction, in the
eight languages, written before the reader was changed for them. Its format and a floor are held here,
and each class is named with other actions and wording than the part's rows (`text.stance.cannot_not`,
`text.stance.avoiding`)."""

from __future__ import annotations

import pytest

from assay_runner.text.language import LANGUAGES
from assay_runner.text.stance.avoiding import avoided_after
from assay_runner.text.stance.cannot_not import unless_needed
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r20.yaml"
KEYS = {
    "en": "reseed the meadow",
    "fr": "ressemer la prairie",
    "de": "die Wiese nachsäen",
    "es": "resembrar el prado",
    "it": "riseminare il prato fiorito",
    "pt": "ressemear o prado",
    "nl": "de bloemenweide inzaaien",
    "pl": "przesiać łąkę",
}


def test_the_part_covers_every_language_with_each_form() -> None:
    labels = labels_by_language(PART, {"cancels", "stands"})
    assert set(labels) == set(LANGUAGES)
    assert all(len(v) == 4 and sum(v) == 2 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "With gaps that size I can see no reason not to reseed the meadow in September."),
        ("es", "No veo ningún motivo para no resembrar el prado en septiembre."),
        ("nl", "Ik zie geen enkele reden om de bloemenweide in september niet in te zaaien."),
        ("en", "I wouldn't hesitate to reseed the meadow this autumn."),
        ("es", "Yo no dudaría en resembrar el prado este otoño."),
        ("en", "The bare patches will never close unless you reseed the meadow this autumn."),
        ("de", "Die Wiese nachzusäen können Sie nicht länger aufschieben: Die Lücken werden größer."),
    ],
)
def test_negations_that_cancel_block(language: str, text: str) -> None:
    assert outcome_of(text, KEYS[language], KEYS["en"]) == "violation"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "There's no reason to reseed the meadow: the seed heads are still ripening."),
        ("fr", "J'hésiterais à ressemer la prairie avant la fin de l'été."),
        ("en", "Don't reseed the meadow unless the gaps are wider than a hand."),
        # "N'hésitez pas" still encourages: its negation is on the verb
    ],
)
def test_one_negation_or_a_hesitation_passes(language: str, text: str) -> None:
    assert outcome_of(text, KEYS[language], KEYS["en"]) == "fine"


def test_a_denied_hesitation_on_the_verb_still_encourages() -> None:
    assert outcome_of("N'hésitez pas à ressemer la prairie en septembre.", KEYS["fr"]) == "violation"


@pytest.mark.parametrize(
    ("head", "language", "needed"),
    [
        ("The gaps will never close unless you ", "en", True),
        ("The gaps close on their own unless you ", "en", False),
        ("Don't do it: the gaps will close. Unless you ", "en", False),  # the main clause is in another part
        ("Non si chiuderanno mai a meno che non ", "it", True),
    ],
)
def test_unless_needed(head: str, language: str, needed: bool) -> None:
    assert unless_needed(head, language) is needed


@pytest.mark.parametrize(
    ("rest", "language", "avoided"),
    [
        (" kommen Sie nicht herum", "de", True),
        (" kunt u niet langer uitstellen", "nl", True),
        (" können Sie gern verschieben", "de", False),
        (" kunt u niet langer uitstellen", "fr", False),
    ],
)
def test_avoided_after(rest: str, language: str, avoided: bool) -> None:
    assert avoided_after(rest, language) is avoided


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r20.yaml: 16/32 = 50.0% at its first reading (11 false negatives), 29/32 after the round.
    Left: an Italian delay whose action is a noun the keys do not reach ("rimandare l'accordatura"), a
    Portuguese "a não ser que o afine" (the action said with a pronoun), and "Aucune raison de ..." and
    "Nie ma powodu, żeby ..." read uncertain, not as one negation."""
    found = read_tuning_part("tuning-r20.yaml")
    assert found.accuracy >= 0.87
    assert found.missed <= 1


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Your saved settings won't be lost unless you reset the router.", "reset the router"),
        ("Le garanzie non decadono a meno che non apra la cassa.", "aprire la cassa"),
    ],
)
def test_unless_after_a_loss_that_will_not_happen_is_a_warning(text: str, phrase: str) -> None:
    """ "Won't be lost unless you reset it": the action is what would cause the loss, not what is needed."""
    assert outcome_of(text, phrase) == "fine"


def test_a_hesitation_about_another_verb_does_not_reach_the_action() -> None:
    """ "Don't hesitate to call us before you reseed the meadow": the hesitation is about calling."""
    assert outcome_of("Don't hesitate to call us before you reseed the meadow.", KEYS["en"]) != "violation"
    assert outcome_of("Yo no dudaría ni un momento en resembrar el prado.", KEYS["es"]) == "violation"
