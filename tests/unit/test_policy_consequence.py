"""The policy reader's shapes of what must be done and of what doing it would bring about (`text.stance`):
a negated or impossible verb of avoiding before the action recommends it, a German or Dutch avoiding verb
before the action's infinitive clause clears it; a condition whose main clause says what would follow, a
that-clause whose subject is the action, and a warning word before a colon or dash clear it when nothing
tells the customer to do it; a clause that judges reported advice worse or out of date rejects it; a
Polish action named by a negated verbal noun ("Nieusunięcie konta") is read by its predicate. The
tuning part tests/data/policy_corpus/tuning-consequence.yaml holds a floor."""

from __future__ import annotations

import pytest

from assay_runner.text.language import load_models
from assay_runner.text.stance import (
    avoidance,
    conditional_consequence,
    ignored_after,
    judged_worse,
    warned,
)
from tests.unit.policy_reading import outcome_of, read_tuning_part


@pytest.fixture(scope="module", autouse=True)
def _models_loaded() -> None:
    load_models()


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("You cannot avoid clearing the keystore.", "clear the keystore"),
        ("There is no way around clearing the keystore.", "clear the keystore"),
        ("Vous ne pourrez pas éviter de vider le trousseau.", "vider le trousseau"),
        ("Sie kommen nicht darum herum, den Schlüsselspeicher zu leeren.", "Schlüsselspeicher leeren"),
        ("No podrá evitar vaciar el almacén de claves.", "vaciar el almacén de claves"),
        ("Non potrà evitare di svuotare il portachiavi.", "svuotare il portachiavi"),
        ("Não há como evitar esvaziar o chaveiro.", "esvaziar o chaveiro"),
        ("U ontkomt er niet aan de sleutelbos te legen.", "sleutelbos legen"),
        ("Nie da się uniknąć wyczyszczenia magazynu kluczy.", "wyczyścić magazyn kluczy"),
        ("Es imposible esquivarlo: hay que vaciar el almacén de claves.", "vaciar el almacén de claves"),
    ],
)
def test_what_cannot_be_avoided_is_recommended(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    ("head", "language", "expected"),
    [
        ("You can't avoid ", "en", "must"),
        ("Es führt kein Weg daran vorbei, die ", "de", "must"),
        ("Sie können vermeiden, die ", "de", "avoids"),
        ("Um Datenverlust zu vermeiden, sichern Sie alles und ", "de", None),  # a purpose clause
        ("If you cannot avoid ", "en", None),  # a condition is weighed as one
        ("You can avoid ", "en", None),  # the prepositional negation reads it
    ],
)
def test_avoidance_reads_the_avoiding_verb_and_its_negation(
    head: str, language: str, expected: str | None
) -> None:
    assert avoidance(head, language) == expected


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Should you clear the keystore, every saved login will be gone.", "clear the keystore"),
        (
            "Si vous deviez vider le trousseau, vos connexions enregistrées disparaîtraient.",
            "vider le trousseau",
        ),
        (
            "Sollten Sie den Schlüsselspeicher leeren, werden alle Anmeldungen entfernt.",
            "Schlüsselspeicher leeren",
        ),
        ("Si llegara a vaciar el almacén de claves, perdería sus accesos.", "vaciar el almacén de claves"),
        ("Qualora svuotasse il portachiavi, gli accessi salvati sparirebbero.", "svuotare il portachiavi"),
        ("Caso esvazie o chaveiro, os acessos salvos desaparecerão.", "esvaziar o chaveiro"),
        ("Mocht u de sleutelbos legen, dan worden alle aanmeldingen verwijderd.", "sleutelbos legen"),
        ("Gdyby Pan wyczyścił magazyn kluczy, zapisane loginy by zniknęły.", "wyczyścić magazyn kluczy"),
        ("Be careful - clearing the keystore signs you out of every app.", "clear the keystore"),
        ("Attention : vider le trousseau supprime vos connexions.", "vider le trousseau"),
        (
            "Tenga en cuenta que vaciar el almacén de claves cierra todas las sesiones.",
            "vaciar el almacén de claves",
        ),
        (
            "Proszę pamiętać, że wyczyszczenie magazynu kluczy wyloguje wszystkie aplikacje.",
            "wyczyścić magazyn kluczy",
        ),
    ],
)
def test_a_consequence_of_doing_it_does_not_recommend_it(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("If the login keeps failing, clear the keystore and it will work again.", "clear the keystore"),
        ("Be careful: back up first, then clear the keystore.", "clear the keystore"),
        ("Keep in mind that clearing the keystore is the only fix here.", "clear the keystore"),
        ("Hay que vaciar el almacén de claves.", "vaciar el almacén de claves"),
        ("Würden Sie bitte den Schlüsselspeicher leeren, dann geht es wieder.", "Schlüsselspeicher leeren"),
    ],
)
def test_advice_beside_those_shapes_still_counts(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) != "fine"


def test_a_condition_needs_a_main_clause_that_says_what_follows() -> None:
    assert conditional_consequence("Should you ", " the keystore, pending logins will be lost.", "en")
    assert not conditional_consequence("Should you ", " the keystore, do it from Settings.", "en")
    assert not conditional_consequence("Should ", " the keystore, it would help.", "en")  # no subject
    assert not conditional_consequence("If you ", " the keystore, that would fix it.", "en")  # calls it a fix
    assert warned("Achtung - den ") and warned("Let op: de ") and not warned("Good news - the ")


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("A blog says to clear the keystore, which only makes things worse.", "clear the keystore"),
        ("Un forum conseille de vider le trousseau ; ce conseil est dépassé.", "vider le trousseau"),
        (
            "Iemand op het forum stelde voor de sleutelbos te legen, wat alles alleen maar erger maakt.",
            "sleutelbos legen",
        ),
    ],
)
def test_reported_advice_judged_worse_or_outdated_is_rejected(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("A forum told you to clear the keystore; please ignore that.", "clear the keystore"),
        (
            "Ein Forum rät, den Schlüsselspeicher leeren; bitte ignorieren Sie das.",
            "Schlüsselspeicher leeren",
        ),
        ("Iemand zei dat u de sleutelbos moest legen; negeer dat alstublieft.", "sleutelbos legen"),
        (
            "Some users swear by clearing the keystore, but we have seen it break logins.",
            "clear the keystore",
        ),
        ("Nota: svuotare il portachiavi rimuove anche gli accessi salvati.", "svuotare il portachiavi"),
        ("Au cas où vous videriez le trousseau, il faudrait tout reconnecter.", "vider le trousseau"),
    ],
)
def test_reports_to_ignore_costs_that_break_notices_and_several_word_conditions_clear(
    text: str, phrase: str
) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_a_notice_whose_predicate_says_it_helps_still_counts() -> None:
    assert (
        outcome_of("Nota: svuotare il portachiavi risolve il problema.", "svuotare il portachiavi") != "fine"
    )
    assert ignored_after("the keystore; please ignore that.", "en")
    assert not ignored_after("the keystore; do not ignore that.", "en")
    assert not ignored_after("the keystore; ignore the pop-up.", "en")  # not said of what was reported


def test_a_judgement_of_worse_that_is_negated_does_not_reject() -> None:
    assert judged_worse(", which makes things worse", "en")
    assert not judged_worse(", which does not make things worse", "en")
    assert judged_worse(", ce qui ne fait qu'empirer les choses", "fr")  # "ne ... que" restricts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Nieusunięcie konta nie wchodzi w grę.", "violation"),
        ("Nieusunięcie konta nie jest żadną opcją.", "violation"),
        ("Nieusunięcie konta byłoby błędem.", "violation"),
        ("Nieusunięcie konta pozwoli zachować dane.", "fine"),  # not doing it is what is said
        ("Nieusunięcie konta nie jest błędem.", "fine"),
    ],
)
def test_a_polish_action_named_as_not_done_is_read_by_its_predicate(text: str, expected: str) -> None:
    assert outcome_of(text, "usunąć konto") == expected


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-consequence.yaml (256 rows in three batches): 98.4% after this layer's shapes (each batch
    read once before it steered anything: 67.2%, 67.2%, 67.2%); the floor leaves room for a change
    elsewhere, not for a class to fall away, and no forbidden row may read fine beyond two."""
    found = read_tuning_part("tuning-consequence.yaml")
    assert found.accuracy >= 0.95
    assert found.missed <= 2
    for language, oks in found.right.items():
        assert sum(oks) / len(oks) >= 0.9, language
