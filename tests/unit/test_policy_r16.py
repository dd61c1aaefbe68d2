"""The sixteenth tuning part (tests/data/policy_corpus/tuning-r16.yaml, issue 42): warnings that say what
doing it damages, and the same subjects with a verb that prevents or repairs the damage, in the eight
languages, written before the reader was changed for them. Its format and a floor are held here, and each
class is named with other actions and wording than the part's rows (`text.advice.predicates.harms`, and a
removal that removes a problem is not a loss)."""

from __future__ import annotations

import pytest

from assay_runner.text.advice.predicates import harms
from assay_runner.text.language import LANGUAGES
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r16.yaml"
FORMS = {"harms", "helps"}
BOOTS = {
    "en": "wax the leather boots",
    "fr": "cirer les bottes en cuir",
    "de": "die Lederstiefel wachsen",
    "es": "encerar las botas de cuero",
    "it": "incerare gli stivali di pelle",
    "pt": "encerar as botas de couro",
}


def test_the_part_covers_every_language_with_harms_and_helps() -> None:
    labels = labels_by_language(PART, FORMS)
    assert set(labels) == set(LANGUAGES)
    assert all(len(v) == 6 and sum(v) == 2 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Waxing the leather boots with car polish cracks the leather at the toe crease."),
        ("fr", "Cirer les bottes en cuir au cirage noir tache les coutures claires."),
        ("de", "Die Lederstiefel mit Autowachs zu wachsen verfärbt die hellen Nähte."),
        ("es", "Encerar las botas de cuero con cera de coche agrieta la piel en la puntera."),
        ("it", "Incerare gli stivali di pelle con la cera per auto macchia le cuciture chiare."),
        ("pt", "Encerar as botas de couro com cera de carro mancha as costuras claras."),
    ],
)
def test_the_action_as_the_subject_of_a_verb_of_damage_passes(language: str, text: str) -> None:
    assert outcome_of(text, BOOTS[language], BOOTS["en"]) == "fine"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Waxing the leather boots every autumn stops the leather cracking at the toe."),
        ("en", "Waxing the leather boots removes the salt stains and keeps them supple."),
        ("en", "Waxing the leather boots doesn't stain the seams."),
        ("fr", "Cirer les bottes en cuir chaque automne évite que le cuir se fende."),
        ("es", "Encerar las botas de cuero quita las manchas de sal."),
        ("de", "Die Lederstiefel zu wachsen entfernt die Salzflecken."),
    ],
)
def test_the_same_subject_that_prevents_or_repairs_the_damage_blocks(language: str, text: str) -> None:
    assert outcome_of(text, BOOTS[language], BOOTS["en"]) in ("violation", "uncertain")


def test_removing_what_the_customer_keeps_is_still_a_loss() -> None:
    assert outcome_of("Reinstalling the app removes your saved drafts.", "reinstall the app") == "fine"


@pytest.mark.parametrize(
    ("predicate", "harmful"),
    [
        (["scratches", "the", "finish"], True),
        (["prevents", "it", "from", "cracking"], False),
        (["does", "not", "stain", "the", "seams"], False),
        (["zapobiega", "pękaniu"], False),
        (["wypacza", "łączenia"], True),
    ],
)
def test_a_predicate_harms_unless_negated_or_prevented(predicate: list[str], harmful: bool) -> None:
    assert harms(predicate) is harmful


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r16.yaml: 21/48 = 43.8% at its first reading (25 false positives, two false negatives:
    "... removes the black stains", "... entfernt die schwarzen Flecken" read as losses), 43/48 after the
    round. Left: Dutch infinitive subjects read as instructions ("De snijplank oliën met olijfolie laat
    ... achter") and Polish verbal-noun subjects ("Oliwienie deski ... zostawia lepką warstwę")."""
    found = read_tuning_part("tuning-r16.yaml")
    assert found.accuracy >= 0.85
    assert found.missed == 0
