"""The twenty-first tuning part (tests/data/policy_corpus/tuning-r21.yaml, issue 42): the action as the
subject in German, Dutch and Polish, its object and its verb apart, followed by what doing it can, often
or easily do or damages, against the same subjects with a verb of helping or keeping, written before the
reader was changed for them. Its format and a floor are held here, and the class is named with other
actions and wording than the part's rows (`text.key_words._subject_that_warns`, and the gains of
`text.stance.outcomes` read per language)."""

from __future__ import annotations

import pytest

from assay_runner.text.stance.outcomes import brings_about
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r21.yaml"


def test_the_part_covers_german_dutch_and_polish_with_each_form() -> None:
    labels = labels_by_language(PART, {"harms", "helps"})
    assert set(labels) == {"de", "nl", "pl"}
    assert all(len(v) == 5 and sum(v) == 2 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Das Zelt bei Nieselregen in der Garage zu imprägnieren kann die Beschichtung fleckig machen.",
            "das Zelt imprägnieren",
        ),
        (
            "Het zeil bij motregen in de garage impregneren kan de coating vlekkerig maken.",
            "het zeil impregneren",
        ),
    ],
)
def test_a_subject_infinitive_after_its_object_that_warns_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Das Zelt vor der Saison zu imprägnieren hält es dicht, also imprägnieren Sie es jetzt.",
            "das Zelt imprägnieren",
        ),
        (
            "Imprägnieren Sie das Zelt bei trockenem Wetter, sonst kann die Beschichtung fleckig werden.",
            "das Zelt imprägnieren",
        ),
    ],
)
def test_the_same_words_that_help_or_instruct_still_block(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) in ("violation", "uncertain")


def test_gains_are_read_in_the_predicate_s_own_language() -> None:
    """ "stopniach" (Polish, "degrees") is no English "stop": the gain stems are per language."""
    predicate = ["zwykłym", "proszkiem", "w", "sześćdziesięciu", "stopniach", "może", "zbić", "puch"]
    assert brings_about(predicate, "pl")
    assert not brings_about(["in", "May", "can", "stop", "the", "moss", "coming", "back"], "en")


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r21.yaml: 9/15 at its first reading (6 false positives, all uncertain), 11/15 after the
    round. Left: consequences said by a verb alone ("laugt die Daunen aus", "put het dons uit",
    "wyjaławia puch"), and a Dutch "het" after the verb read as a pronoun for the object."""
    found = read_tuning_part("tuning-r21.yaml")
    assert found.accuracy >= 0.7
    assert found.missed == 0
