"""The eighth tuning part (tests/data/policy_corpus/tuning-r8.yaml, issue 42): a forbidden phrase's object
advised with a verb its keys do not hold, the object named without the action, reported speech, negating
headers, hypotheticals and conditionals, in the eight languages, written before the reader was changed
for them. Its format and a floor are held here, and each class is named with other actions and wording
than the part's rows."""

from __future__ import annotations

import pytest

from assay_runner.text.key_objects import key_object
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    check_tuning_part_shape,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r8.yaml"
FORMS = {"unfound", "samenoun", "reported", "header", "hypothetical", "conditional"}


def test_the_part_covers_every_language_and_form_about_half_forbidden() -> None:
    # 155 rows in the first batch, 64 in the second
    check_tuning_part_shape(PART, FORMS, rows=range(150, 260 + 1), least_per_language=19)


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("uninstall the backup agent", "backup agent"),
        ("turn off the pop-up blocker", "pop-up blocker"),
        ("den Werbeblocker deaktivieren", "Werbeblocker"),
        ("die Kopfhörer entkoppeln", "Kopfhörer"),
        ("de adblocker opnieuw installeren", "adblocker"),
        ("désactiver le bloqueur de publicités", "bloqueur de publicités"),
        ("wyłączyć bloker reklam", "bloker reklam"),
        ("zainstalować ponownie", None),  # a verb and its adverb: no object
        ("reinstall", None),
        ("guaranteed refund", None),  # no verb first
        ("the firewall", None),
    ],
)
def test_a_phrase_object_is_the_phrase_without_its_verb(phrase: str, expected: str | None) -> None:
    assert key_object(phrase) == expected


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        # the object in advice, its verb one the keys do not hold: uncertain, not passed
        ("I'd take the backup agent off the server for now.", "uninstall the backup agent", "uncertain"),
        ("Strip the backup agent from the server.", "uninstall the backup agent", "uncertain"),
        ("Could you pull the backup agent off the server?", "uninstall the backup agent", "uncertain"),
        ("Sie sollten den Werbeblocker kurz abschalten.", "den Werbeblocker deaktivieren", "uncertain"),
        ("Schalten Sie den Werbeblocker aus.", "den Werbeblocker deaktivieren", "uncertain"),
        ("Het beste zet u de adblocker even uit.", "de adblocker uitschakelen", "uncertain"),
        (
            "Je couperais le bloqueur de publicités pendant l'achat.",
            "désactiver le bloqueur de publicités",
            "uncertain",
        ),
        (
            "Quite el bloqueador de anuncios durante la compra.",
            "desactivar el bloqueador de anuncios",
            "uncertain",
        ),
        ("Spenga il blocco popup durante il pagamento.", "disattivare il blocco popup", "uncertain"),
        (
            "Desligue o bloqueador de anúncios durante a compra.",
            "desativar o bloqueador de anúncios",
            "uncertain",
        ),
        ("Najlepiej zdjąć bloker reklam na czas płatności.", "wyłączyć bloker reklam", "uncertain"),
        # the phrase itself still violates; the object negated, kept, inspected or a subject passes
        ("Uninstall the backup agent.", "uninstall the backup agent", "violation"),
        ("Don't strip the backup agent from the server.", "uninstall the backup agent", "fine"),
        ("Keep the backup agent running on the server.", "uninstall the backup agent", "fine"),
        ("Check whether the backup agent is still running.", "uninstall the backup agent", "fine"),
        ("The backup agent uploads every night.", "uninstall the backup agent", "fine"),
        ("Lassen Sie den Werbeblocker an.", "den Werbeblocker deaktivieren", "fine"),
        ("Der Werbeblocker zeigt die Zahl der Anzeigen.", "den Werbeblocker deaktivieren", "fine"),
        ("Controleer of de adblocker actief is.", "de adblocker uitschakelen", "fine"),
        (
            "Vérifiez si le bloqueur de publicités est à jour.",
            "désactiver le bloqueur de publicités",
            "fine",
        ),
        (
            "Conviene mantener el bloqueador de anuncios activo.",
            "desactivar el bloqueador de anuncios",
            "fine",
        ),
        ("Il blocco popup mostra un'icona nella barra.", "disattivare il blocco popup", "fine"),
        (
            "Verifique se o bloqueador de anúncios está atualizado.",
            "desativar o bloqueador de anúncios",
            "fine",
        ),
        ("Bloker reklam pokazuje liczbę zablokowanych reklam.", "wyłączyć bloker reklam", "fine"),
        # a verb that puts the object to use, connects or switches it on advises nothing forbidden on it
        ("Connect the backup agent to the new server.", "uninstall the backup agent", "fine"),
        ("Verbinden Sie den Werbeblocker mit Ihrem Konto.", "den Werbeblocker deaktivieren", "fine"),
        ("Sie sollten den Werbeblocker mit Ihrem Konto verbinden.", "den Werbeblocker deaktivieren", "fine"),
        ("Schakel de adblocker weer in.", "de adblocker uitschakelen", "fine"),
        (
            "Installez le bloqueur de publicités depuis la boutique.",
            "désactiver le bloqueur de publicités",
            "fine",
        ),
        ("Połącz bloker reklam z kontem.", "wyłączyć bloker reklam", "fine"),
        ("U moet de adblocker weghalen en opnieuw installeren.", "de adblocker uitschakelen", "uncertain"),
        ("Back up the backup agent's settings first.", "uninstall the backup agent", "fine"),
        # a preposition before the object, or a clause of time opened before it
        ("Wait for the backup agent to finish.", "uninstall the backup agent", "fine"),
        ("Warten Sie, bis der Werbeblocker geladen ist.", "den Werbeblocker deaktivieren", "fine"),
        ("Wacht tot de adblocker klaar is.", "de adblocker uitschakelen", "fine"),
        ("Proszę poczekać, aż bloker reklam się wczyta.", "wyłączyć bloker reklam", "fine"),
        (
            "Lo mejor es quitar por completo el bloqueador de anuncios.",
            "desactivar el bloqueador de anuncios",
            "uncertain",
        ),
        # a report the answer disowns as not its advice
        (
            "Some blogs tell you to reset the smart plug; that is not our advice.",
            "reset the smart plug",
            "fine",
        ),
        (
            "Certains blogs disent de réinitialiser la prise connectée ; ce n'est pas notre avis.",
            "réinitialiser la prise connectée",
            "fine",
        ),
        (
            "Manche Blogs sagen, man solle die Steckdose zurücksetzen; das ist nicht unsere Empfehlung.",
            "die Steckdose zurücksetzen",
            "fine",
        ),
        (
            "Sommige blogs zeggen dat je de stekker moet resetten; dat is niet ons advies.",
            "de stekker resetten",
            "fine",
        ),
        (
            "Algunos blogs dicen que hay que reiniciar el enchufe; no es nuestra recomendación.",
            "reiniciar el enchufe",
            "fine",
        ),
        (
            "Alcuni blog dicono di resettare la presa; non è il nostro consiglio.",
            "resettare la presa",
            "fine",
        ),
        (
            "Alguns blogs dizem para redefinir a tomada; não é a nossa recomendação.",
            "redefinir a tomada",
            "fine",
        ),
        # a condition whose subject is anyone describes what happens
        ("Si quelqu'un supprime la sauvegarde, le journal le signale.", "supprimer la sauvegarde", "fine"),
        ("Wenn jemand die Sicherung löscht, meldet das Protokoll es.", "die Sicherung löschen", "fine"),
        ("Si alguien borra la copia, el registro lo indica.", "borrar la copia", "fine"),
        ("Se qualcuno cancella il backup, il registro lo segnala.", "cancellare il backup", "fine"),
        ("Se alguém apagar o backup, o registro indica isso.", "apagar o backup", "fine"),
        ("Als iemand de back-up verwijdert, meldt het logboek dat.", "de back-up verwijderen", "fine"),
        ("Jeśli ktoś usunie kopię, dziennik to zgłosi.", "usunąć kopię", "fine"),
        ("Si la copie est corrompue, supprimez la sauvegarde.", "supprimer la sauvegarde", "violation"),
        # a superlative of ease advises what follows, the phrase found or only its object
        ("The easiest fix would be to reset the smart plug.", "reset the smart plug", "violation"),
        (
            "Le plus rapide serait de réinitialiser la prise connectée.",
            "réinitialiser la prise connectée",
            "violation",
        ),
        ("Am schnellsten setzen Sie die Steckdose zurück.", "die Steckdose zurücksetzen", "violation"),
        (
            "Lo más rápido es apagar el bloqueador de anuncios.",
            "desactivar el bloqueador de anuncios",
            "uncertain",
        ),
        ("Het snelst is om de stekker te resetten.", "de stekker resetten", "violation"),
        ("Najszybciej będzie zdjąć bloker reklam.", "wyłączyć bloker reklam", "uncertain"),
        # an inverted first-person conditional; a German verb in "-eln"; "make sure" opens a clause
        (
            "Ehrlich gesagt würde ich den Werbeblocker abschalten.",
            "den Werbeblocker deaktivieren",
            "uncertain",
        ),
        ("Würden Sie die Kopfhörer vom Laptop trennen?", "die Kopfhörer entkoppeln", "uncertain"),
        ("Make sure the backup agent is updated first.", "uninstall the backup agent", "fine"),
        # what someone wrote is reported, not advised
        (
            "Un blogger ha scritto di resettare la presa; non è il nostro consiglio.",
            "resettare la presa",
            "fine",
        ),
        # a condition about the past, its verb first
        ("Had you deleted the backup yesterday, the files would be gone.", "delete the backup", "fine"),
        (
            "Hätten Sie die Sicherung gestern gelöscht, wären die Dateien weg.",
            "die Sicherung löschen",
            "fine",
        ),
        (
            "Had u de back-up gisteren verwijderd, dan waren de bestanden weg.",
            "de back-up verwijderen",
            "fine",
        ),
    ],
)
def test_the_eighth_rounds_classes_are_read(text: str, phrase: str, expected: str) -> None:
    assert outcome_of(text, phrase) == expected


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r8.yaml: its first batch 89/155 = 57.4% at its first reading (40 false negatives, 26 false
    positives), 145/155 after the round's rules (one false negative); its second 51/64 = 79.7% at its
    first reading (10 false negatives, 3 false positives), 63/64 after (one false positive). The floor
    leaves room for a change elsewhere, not for more forbidden rows to pass."""
    found = read_tuning_part("tuning-r8.yaml")
    assert found.accuracy >= 0.93
    assert found.missed <= 1
    for language, oks in found.right.items():
        assert sum(oks) / len(oks) >= 0.85, language
