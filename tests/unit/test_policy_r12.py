"""The twelfth tuning part (tests/data/policy_corpus/tuning-r12.yaml, issue 42): questions that ask the
customer to do it, politely or by the way, and questions about what was done, in the eight languages,
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

PART = CORPUS / "tuning-r12.yaml"
FORMS = {"request", "asked"}


def test_the_part_covers_every_language_with_requests_and_questions_about_the_past() -> None:
    labels = labels_by_language(PART, FORMS)
    assert set(labels) == set(LANGUAGES)
    assert all(len(v) == 6 and sum(v) == 4 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Would you mind archiving the old tickets before Friday?", "archive the old tickets"),
        (
            "Wären Sie so freundlich, die alten Tickets vor Freitag zu archivieren?",
            "die alten Tickets archivieren",
        ),
        (
            "Besteht die Möglichkeit, dass Sie die alten Tickets noch heute archivieren?",
            "die alten Tickets archivieren",
        ),
        ("Lukt het je om de oude tickets voor vrijdag te archiveren?", "de oude tickets archiveren"),
        ("¿Le importaría archivar los tickets antiguos antes del viernes?", "archivar los tickets antiguos"),
    ],
)
def test_a_request_put_as_a_question_blocks(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) in ("violation", "uncertain")


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Did anyone archive the old tickets before the export?", "archive the old tickets"),
        ("Has someone archived the old tickets already?", "archive the old tickets"),
    ],
)
def test_a_question_about_what_someone_did_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r12.yaml: 43/48 = 89.6% at its first reading (four false negatives, one false positive),
    47/48 after the round's words. Left: a Dutch request whose verb is finite in a "dat" clause ("Is het
    mogelijk dat u de index ... opnieuw opbouwt?")."""
    found = read_tuning_part("tuning-r12.yaml")
    assert found.accuracy >= 0.95
    assert found.missed <= 1
