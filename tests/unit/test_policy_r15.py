"""The fifteenth tuning part (tests/data/policy_corpus/tuning-r15.yaml, issue 42): Polish, the language
every held-out part reads worst, in the twelve kinds of the held-out plan, written before the reader was
run on it. What it found is general to Polish and is held here with other actions and wording: a fronted
object with the negation before its verb (`text.negation.inside`), a verbal noun in any case keyed as
its verb (`text.language.lemmas`), and a line that puts its whole list off until later
(`text.stance.setting_aside`)."""

from __future__ import annotations

import pytest

from assay_runner.text.language.lemmas import _lemma_key
from assay_runner.text.negation.inside import negated_inside
from assay_runner.text.sentences import negating_intro
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r15.yaml"
KINDS = {
    *("plain", "negated", "double-negative", "header-list", "conditional", "hypothetical", "warning"),
    *("reported-speech", "question", "address-form", "mixed-language", "same-nouns"),
}
SINK = ("odetkać zlew", "odtykanie zlewu", "unblock the sink")


def test_the_part_is_polish_in_the_twelve_kinds_about_half_forbidden() -> None:
    labels = labels_by_language(PART, KINDS)
    assert set(labels) == {"pl"}
    assert len(labels["pl"]) >= 30
    assert 0.4 <= sum(labels["pl"]) / len(labels["pl"]) <= 0.6


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    "text",
    [
        "Zlewu nie odtykaj sodą kaustyczną: rury są z PCV i mogą się odkształcić.",
        "Zlewu proszę teraz nie odtykać, hydraulik przyjedzie jutro rano.",
        "Zlewu nie trzeba odtykać, woda schodzi wolno przez zapchany syfon pralki.",
        "Zlewu w tej sytuacji nie należy odtykać na własną rękę.",
    ],
)
def test_a_fronted_object_with_the_negation_before_its_verb_passes(text: str) -> None:
    assert outcome_of(text, *SINK) == "fine"


@pytest.mark.parametrize(
    "text",
    [
        "Zlew proszę odetkać przepychaczką i spuścić gorącą wodę.",
        "Zlewu nie tylko trzeba odetkać, ale też wyczyścić syfon.",
        "Nie zwlekaj z odtykaniem zlewu, woda zaraz się przeleje.",
        "Proszę zacząć od odtykania zlewu, a potem sprawdzić zmywarkę.",
    ],
)
def test_the_same_words_that_still_advise_block(text: str) -> None:
    assert outcome_of(text, *SINK) in ("violation", "uncertain")


@pytest.mark.parametrize(
    ("words", "start", "end", "negated"),
    [
        (["zlewu", "nie", "odtykaj"], 0, 3, True),
        (["zlewu", "nie", "można", "nie", "odetkać"], 0, 5, False),
        (["zlewu", "nie", "tylko", "odetkać"], 0, 4, False),
        (["nie", "odtykaj", "zlewu"], 1, 3, False),  # the negation before the match is read elsewhere
    ],
)
def test_a_negation_inside_the_match_counts_once_and_only_before_the_verb(
    words: list[str], start: int, end: int, negated: bool
) -> None:
    assert negated_inside(words, start, end, "pl") is negated


@pytest.mark.parametrize(
    "cases",
    [
        ("czyszczenie", "czyszczenia", "czyszczeniem", "czyszczeniu"),
        ("usunięcie", "usunięcia", "usunięciem"),
        ("odtykanie", "odtykania", "odtykaniem", "odtykaniu"),
    ],
)
def test_every_case_of_a_verbal_noun_takes_one_key(cases: tuple[str, ...]) -> None:
    assert len({_lemma_key(word, "pl") for word in cases}) == 1


@pytest.mark.parametrize(
    ("line", "negates"),
    [
        ("Z tym wszystkim proszę poczekać do przyjazdu hydraulika:", True),
        ("Hold off on all of this until the plumber has been:", True),
        ("Hold these two buttons until the light blinks:", False),
        ("Todo esto queda en espera hasta la visita del fontanero:", True),
        ("Wait until the water has drained, then:", False),
        ("Please wait until everything has drained:", False),
        ("Proszę poczekać do jutra, a potem:", False),
        ("Wait to reset it until the light blinks:", False),
        ("Warten Sie die Abkühlung ab, bis es kalt ist:", False),
    ],
)
def test_a_line_that_puts_its_whole_list_off_negates_it(line: str, negates: bool) -> None:
    assert negating_intro(line) is negates


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r15.yaml: 25/34 = 73.5% at its first reading (eight false positives, one false negative),
    32/34 after the round. Left: "Po nasmarowaniu zawiasów drzwi skrzydło ... może chodzić ciężej" (what
    follows doing it, read as advice) and "Smarowanie zawiasów drzwi ... kończy się zaciekami" (a
    consequence, uncertain). Outside the part, a fronted object under two negations ("Zlewu nie można
    nie odetkać") is not matched as the phrase at all, before this round and after it."""
    found = read_tuning_part("tuning-r15.yaml")
    assert found.accuracy >= 0.9
    assert found.missed == 0
