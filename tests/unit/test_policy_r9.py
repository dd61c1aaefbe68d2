"""The ninth tuning part (tests/data/policy_corpus/tuning-r9.yaml, issue 42): lines that introduce a list
and carry its polarity (a heading that forbids, a line that skips or sets aside what follows, after a
clause of time, reason or irrelevance), and lines with those words that still introduce advice, in the
eight languages, written before the reader was changed for them. Its format and a floor are held here,
and each class is named with other actions and wording than the part's rows."""

from __future__ import annotations

import pytest

from assay_runner.text.sentences import negating_intro
from assay_runner.text.stance import keeps, sets_aside
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    check_tuning_part_shape,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r9.yaml"
FORMS = {"header", "advising-header", "cue-header"}


def test_the_part_covers_every_language_and_form_about_half_forbidden() -> None:
    check_tuning_part_shape(PART, FORMS, rows=range(70, 90 + 1), least_per_language=9)


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("Not allowed on shared accounts, so leave these out:", False),
        ("Banned on company phones", True),
        ("While the update installs, stay well away from these:", False),
        ("À proscrire avant l'intervention du technicien :", False),
        ("Diese Punkte bitte auslassen:", False),
        ("Pasos que conviene omitir:", False),
        ("Cose da lasciar perdere per ora:", False),
        ("Até lá, deixe isto de lado:", False),
        ("Totdat de monteur er is, laat dit liggen:", False),
        ("Te kroki można sobie darować:", False),
    ],
)
def test_a_line_that_sets_its_list_aside(line: str, heading: bool) -> None:
    assert sets_aside(line, heading)


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("Skip ahead to these steps:", False),  # moving on, not leaving out
        ("To skip the tour:", False),  # a purpose
        ("If you skipped the backup:", False),  # a condition
        ("Nothing here is off-limits:", False),  # the word negated
        ("Access forbidden (403)", True),  # an error's name
        ("Why the app is forbidden to sync", False),  # no colon, not a heading
        ("Forbidden characters in file names. Rename it:", False),  # the word in another sentence
    ],
)
def test_a_line_with_those_words_that_does_not(line: str, heading: bool) -> None:
    assert not sets_aside(line, heading)


@pytest.mark.parametrize(
    "line",
    [
        "Please don't skip any of these:",
        "Überspringen Sie diese Schritte nicht:",
        "Ne sautez aucune de ces étapes :",
        "Non tralasci nessuno di questi passaggi:",
        "Deze stappen niet overslaan:",
    ],
)
def test_a_negated_verb_of_leaving_out_keeps_the_list(line: str) -> None:
    assert keeps(line)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("### Strictly forbidden\n- wipe the tablet\n- unpair the watch", "fine"),
        ("Until the courier comes, keep clear of these:\n1. wipe the tablet\n2. unpair the watch", "fine"),
        ("Die Uhr hat damit nichts zu tun, also Finger weg:\n- die Uhr entkoppeln", "fine"),
        ("Don't skip these two:\n- wipe the tablet\n- unpair the watch", "violation"),
        ("### Error 403 Forbidden\n1. wipe the tablet", "violation"),
        ("Ne zapomnij o tym:\n- rozparuj zegarek", "violation"),
    ],
)
def test_the_ninth_rounds_classes_are_read(text: str, verdict: str) -> None:
    keys = ("wipe the tablet", "unpair the watch", "die Uhr entkoppeln", "rozparuj zegarek")
    blocks = ("violation", "uncertain")  # a list that is asked for blocks, plainly or as uncertain
    assert outcome_of(text, *keys) in ((verdict,) if verdict == "fine" else blocks)


@pytest.mark.parametrize(
    ("line", "negates"),
    [
        ("Startet der Drucker immer noch nicht:", False),
        ("Druckt er danach weiterhin nichts:", False),
        ("Werkt de printer daarna nog steeds niet:", False),
        ("Zodat de printer niet meer vastloopt:", False),
        ("Probieren Sie Folgendes bitte nicht:", True),
        ("Probeer het volgende liever niet:", True),
        ("Nicht die Treiber löschen:", True),
    ],
)
def test_a_german_or_dutch_verb_first_condition_does_not_negate_its_list(line: str, negates: bool) -> None:
    assert negating_intro(line) is negates


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r9.yaml: its first batch 25/58 = 43.1% at its first reading (one false negative, 32 false
    positives), 57/58 after the round's rules; its second batch (words of leaving out that still introduce
    advice) 13/19 before the negated verb of leaving out was read as keeping the list, 19/19 after. The one
    left, a Dutch verb-first condition ("Maakt de VPN nog steeds geen verbinding:") read as a heading that
    negates its list, was read as a condition in session nine (`stance.headings.verb_first_condition`)."""
    found = read_tuning_part("tuning-r9.yaml")
    assert found.accuracy >= 0.95
    assert found.missed == 0
    for language, oks in found.right.items():
        assert sum(oks) / len(oks) >= 0.85, language
