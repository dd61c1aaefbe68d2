"""The eleventh tuning part (tests/data/policy_corpus/tuning-r11.yaml, issue 42): reported speech the
answer sets aside (a message asking for the action called a scam, the customer's own question answered
no, a caller's instruction the answer says to ignore) and reports it endorses, in the eight languages,
written before the reader was changed for them. Its format and a floor are held here, and each class is
named with other actions and wording than the part's rows."""

from __future__ import annotations

import pytest

from assay_runner.text.language import LANGUAGES
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r11.yaml"
FORMS = {"reported", "endorsed"}


def test_the_part_covers_every_language_with_reports_set_aside_and_endorsed() -> None:
    # a third of each language's rows forbidden (not `check_tuning_part_shape`'s 40-65%): the class this
    # part tunes is reports the answer sets aside
    labels = labels_by_language(PART, FORMS)
    assert set(labels) == set(LANGUAGES)
    assert all(len(v) == 6 and sum(v) == 2 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("The e-mail urging you to confirm the transfer is phishing; delete it.", "confirm the transfer"),
        ("Ce courriel qui vous invite à confirmer le virement est une arnaque.", "confirmer le virement"),
        (
            "Die Nachricht, die Sie auffordert, die Überweisung zu bestätigen, ist ein Betrugsversuch.",
            "die Überweisung bestätigen",
        ),
        ("Ese correo que le pide confirmar la transferencia es una estafa.", "confirmar la transferencia"),
        ("Quella mail che la invita a confermare il bonifico è una truffa.", "confermare il bonifico"),
        ("Esse e-mail que lhe pede para confirmar a transferência é uma burla.", "confirmar a transferência"),
        ("De mail die u vraagt de overboeking te bevestigen is oplichting.", "de overboeking bevestigen"),
        ("Wiadomość, która prosi o potwierdzenie przelewu, to oszustwo.", "potwierdzenie przelewu"),
        ("Vous demandiez s'il faut confirmer le virement. Non, il part tout seul.", "confirmer le virement"),
        (
            "Nos preguntaba si hay que confirmar la transferencia. No, sale sola.",
            "confirmar la transferencia",
        ),
        ("Ci chiedeva se bisogna confermare il bonifico. No, parte da solo.", "confermare il bonifico"),
        (
            "The man who told you to confirm the transfer was not from the bank; ignore what he said.",
            "confirm the transfer",
        ),
        (
            "Der Mann, der Ihnen sagte, Sie sollten die Überweisung bestätigen, war ein Betrüger; "
            "ignorieren Sie ihn.",
            "die Überweisung bestätigen",
        ),
    ],
)
def test_a_report_the_answer_sets_aside_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Your adviser told you to confirm the transfer, and she is right: do it today.",
            "confirm the transfer",
        ),
        (
            "Le message vous invite à confirmer le virement : faites-le, c'est bien nous.",
            "confirmer le virement",
        ),
        ("Confirm the transfer, as the e-mail asks you to.", "confirm the transfer"),
    ],
)
def test_a_report_the_answer_endorses_still_blocks(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) in ("violation", "uncertain")


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r11.yaml: 31/48 = 64.6% at its first reading (17 false positives, no false negative), 48/48
    after the round's words (requests reported, questions asked in the imperfect, "ignore what he said"
    in the eight languages, "burla")."""
    found = read_tuning_part("tuning-r11.yaml")
    assert found.accuracy >= 0.95
    assert found.missed == 0
