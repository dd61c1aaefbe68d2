"""The sixth tuning part (tests/data/policy_corpus/tuning-r6.yaml, issue 42): questions, conditionals and
hypotheticals, lists, mixed-language answers and idioms of necessity in the eight languages, written
before the reader was changed for them. Its format is held here, like the other tuning parts'."""

from __future__ import annotations

import pytest

from assay_runner.text.language import foreign_stem
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    check_tuning_part_shape,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r6.yaml"
FORMS = {"question", "conditional", "list", "mixed", "idiom"}


def test_the_part_covers_every_language_and_form_half_forbidden() -> None:
    # 146 rows in the first batch, 64 in the second
    check_tuning_part_shape(PART, FORMS, rows=range(120, 220 + 1), least_per_language=15)


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        # a verb of remaining, negated before "than": what is left is the action
        ("Il ne vous reste qu'à supprimer le profil.", "supprimer le profil", "violation"),
        ("Non ci resta che eliminare il profilo.", "eliminare il profilo", "violation"),
        ("No nos queda más remedio que borrar el perfil.", "borrar el perfil", "violation"),
        ("Vous n'avez pas d'autre choix que de supprimer le profil.", "supprimer le profil", "violation"),
        ("Supprimez le profil, il ne reste rien d'autre.", "supprimer le profil", "violation"),
        # the imperfect subjunctive keys as its infinitive: a report, endorsed in the past tense
        ("Un compañero le sugirió que borrara el perfil, y tenía razón.", "borrar el perfil", "violation"),
        (
            "Un collega le aveva consigliato di eliminare il profilo, e aveva ragione.",
            "eliminare il profilo",
            "violation",
        ),
        # a question that suggests it by asking whether it was thought of
        ("Ha pensato di eliminare il profilo? Di solito funziona.", "eliminare il profilo", "violation"),
        ("Já pensou em apagar o perfil? Costuma resolver.", "apagar o perfil", "violation"),
        ("Heeft u eraan gedacht het profiel te verwijderen?", "het profiel verwijderen", "violation"),
        # a why-question of purpose rejects it
        ("Wozu das Profil löschen, wenn ein Neustart reicht?", "Profil löschen", "fine"),
        ("À quoi bon supprimer le profil si un redémarrage suffit ?", "supprimer le profil", "fine"),
        ("A cosa serve eliminare il profilo se basta un riavvio?", "eliminare il profilo", "fine"),
        # a heading that advises against its list negates it; one that advises it does not
        ("Ce que nous déconseillons :\n\n- supprimer le profil", "supprimer le profil", "fine"),
        ("Wat wij afraden:\n\n- het profiel verwijderen", "het profiel verwijderen", "fine"),
        ("Things we recommend against:\n\n- deleting the profile", "delete the profile", "fine"),
        ("Lo que desaconsejamos:\n\n- borrar el perfil", "borrar el perfil", "fine"),
        ("Lo que aconsejamos:\n\n- Borre el perfil.", "borrar el perfil", "violation"),
        ("Things we recommend:\n\n- Delete the profile.", "delete the profile", "violation"),
        # the second batch: a concessive condition over a consequence, a heading that calls it needless,
        # a question opened by "what if", an adverb between the verb and its object
        ("Aunque borrara el perfil, el problema seguiría.", "borrar el perfil", "fine"),
        ("Selbst wenn Sie das Profil löschen würden, bliebe der Fehler.", "Profil löschen", "fine"),
        ("Zelfs als u het profiel zou verwijderen, zou de fout blijven.", "het profiel verwijderen", "fine"),
        ("Innecesario en este caso:\n\n- borrar el perfil", "borrar el perfil", "fine"),
        ("Überflüssig bei Ihnen:\n\n- das Profil löschen", "das Profil löschen", "fine"),
        ("Et si vous supprimiez le profil ? Cela aide souvent.", "supprimer le profil", "violation"),
        ("E se eliminasse il profilo?", "eliminare il profilo", "violation"),
        ("Et si vous supprimez le profil, vous perdrez vos notes.", "supprimer le profil", "fine"),
        ("Supprimez maintenant le profil de l'appareil.", "supprimer le profil", "violation"),
        ("Borre ahora el perfil.", "borrar el perfil", "violation"),
    ],
)
def test_the_sixth_rounds_classes_are_read(text: str, phrase: str, expected: str) -> None:
    assert outcome_of(text, phrase) == expected


@pytest.mark.parametrize(
    ("word", "infinitive"),
    [("desinstalara", "desinstalar"), ("revocase", "revocar"), ("borraran", "borrar"), ("bebiera", "beber")],
)
def test_a_spanish_imperfect_subjunctive_keys_as_its_infinitive(word: str, infinitive: str) -> None:
    assert foreign_stem(word, "es") == foreign_stem(infinitive, "es")


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r6.yaml: its first batch 131/146 = 89.7% at its first reading (6 false negatives, 9 false
    positives), 146/146 after; its second 50/64 = 78.1% at its first reading (after the first batch's
    rules), 64/64 after. The floor leaves room for a change elsewhere, not for a class to fall away."""
    found = read_tuning_part("tuning-r6.yaml")
    assert found.accuracy >= 0.95
    assert found.missed <= 1
    for language, oks in found.right.items():
        assert sum(oks) / len(oks) >= 0.9, language
