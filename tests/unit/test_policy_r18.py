"""The eighteenth tuning part (tests/data/policy_corpus/tuning-r18.yaml, issue 42): a negated possibility
over a negated action, "without" under a negated possibility and a negated saying that it is not to be
done, against the same two negations that deny a cause, call the omission harmless or deny a reproach, in
the eight languages, written before the reader was changed for them (in two batches, each before its
change). Its format and a floor are held here, and each class is named with other actions and wording
than the part's rows (`text.stance.cannot_not`, and "fare a meno di" in `text.stance.avoiding`)."""

from __future__ import annotations

import pytest

from assay_runner.text.language import LANGUAGES
from assay_runner.text.stance.cannot_not import cannot_not
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r18.yaml"
FILTER = {
    "en": "descale the coffee grinder",
    "fr": "détartrer le moulin à café",
    "es": "descalcificar el molinillo",
    "it": "decalcificare il macinino",
    "pt": "descalcificar o moinho",
    "nl": "de koffiemolen ontkalken",
    "pl": "odkamienić młynek",
}


def test_the_part_covers_every_language_with_each_form() -> None:
    labels = labels_by_language(PART, {"cannot-not", "passes", "without"})
    assert set(labels) == set(LANGUAGES)
    # two blocking and two passing rows in the first batch, one or two of each in the second
    assert all(6 <= len(v) <= 8 and 3 <= sum(v) <= 4 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "With water this hard there's no way not to descale the coffee grinder this week."),
        ("fr", "Avec une eau aussi dure, il est inconcevable de ne pas détartrer le moulin à café."),
        ("es", "Con el agua tan dura, no hay manera de no descalcificar el molinillo este mes."),
        ("it", "Con l'acqua così dura non si può non decalcificare il macinino."),
        ("pt", "Com a água tão dura, não há como não descalcificar o moinho este mês."),
        ("pl", "Przy tak twardej wodzie nie można nie odkamienić młynka w tym tygodniu."),
        ("fr", "Pas question de relancer la machine sans détartrer le moulin à café."),
        ("es", "Ningún técnico le diría que no hace falta descalcificar el molinillo con esta agua."),
        ("en", "No barista would tell you not to descale the coffee grinder with water like yours."),
        ("it", "Con quest'acqua non può fare a meno di decalcificare il macinino."),
    ],
)
def test_two_negations_that_cancel_block(language: str, text: str) -> None:
    assert outcome_of(text, FILTER[language], FILTER["en"]) == "violation"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("fr", "Ce n'est pas parce que vous n'avez pas détartré le moulin à café que la meule grince."),
        (
            "en",
            "Nobody would say you haven't descaled the coffee grinder often enough: the burr is simply worn.",
        ),
        ("es", "No es por no haber descalcificado el molinillo que la muela chirría: está gastada."),
        ("en", "There's no need to descale the coffee grinder: it never touches water."),
    ],
)
def test_a_denied_cause_or_reproach_and_a_plain_negation_pass(language: str, text: str) -> None:
    assert outcome_of(text, FILTER[language], FILTER["en"]) == "fine"


@pytest.mark.parametrize(
    ("head", "match", "language", "cancels"),
    [
        ("There is no way not to ", ["descale", "it"], "en", True),
        ("Nobody would say you haven't ", ["descaled", "it"], "en", False),
        ("Il est impossible de ne pas ", ["détartrer", "le", "moulin"], "fr", True),
        ("Ce n'est pas parce que vous n'avez pas ", ["détartré", "le", "moulin"], "fr", False),
        ("Es ist undenkbar, ", ["die", "Mühle", "nicht", "zu", "entkalken"], "de", True),
        ("Es ist gut, ", ["die", "Mühle", "nicht", "zu", "entkalken"], "de", False),
        ("Nie ma mowy, żeby nie ", ["odkamienić", "młynka"], "pl", True),
        # the outer negation in another part of the sentence does not reach the action
        ("Nie rób tego: nie ", ["odkamieniaj", "młynka"], "pl", False),
    ],
)
def test_cannot_not(head: str, match: list[str], language: str, cancels: bool) -> None:
    assert cannot_not(head, [w.casefold() for w in match], language) is cancels


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r18.yaml: its first batch 21/32 = 65.6% at its first reading (10 false negatives), 31/32
    after the first change; its second batch 6/19 (7 false negatives), and the whole part 44/51 after the
    second change, with no false negative. Left: "without" the action under a predicate that calls it
    harmless ("It's no problem to ride the first day without waxing it") stays uncertain, and an Italian
    cause denial with a past participle ("Non è perché non ha sciolinato ...") reads as a violation."""
    found = read_tuning_part("tuning-r18.yaml")
    assert found.accuracy >= 0.84
    assert found.missed == 0


def test_the_shapes_around_a_match_read_a_bounded_head(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clause of thousands of matches ("Wait ... reinstall reinstall reinstall ...") hands each shape
    around a match at most `_WINDOW` characters of its head, not the whole head: a slice of the head per
    match made the judge quadratic (bench/judges_cost.py, the restarted shape, 11 ms/KB at 1 MB against 5
    at 64 KB before the bound, 5.0 after)."""
    from assay_runner.text.sentence_reading import match_outcome
    from assay_runner.text.stance.words import _WINDOW

    seen: list[int] = []

    def spy(head: str, language: str) -> bool:
        seen.append(len(head))
        return False

    monkeypatch.setattr(match_outcome, "unless_needed", spy)
    outcome_of("Please wait, " + "then reinstall " * 600, "reinstall")
    assert seen
    assert max(seen) <= _WINDOW


def test_a_negated_modal_over_not_cancels_in_english() -> None:
    """ "You cannot not ...": the two negations are one word each in English (French "ne pas" is two)."""
    assert (
        outcome_of("You cannot not descale the coffee grinder after this much use.", FILTER["en"])
        == "violation"
    )


def test_going_wrong_without_it_reassures() -> None:
    """ "You can't go wrong without descaling it": a third negation, the omission is safe."""
    assert outcome_of(
        "You can't go wrong without descaling the coffee grinder this month.", FILTER["en"]
    ) != ("violation")
