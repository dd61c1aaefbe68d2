"""The twenty-second tuning part (tests/data/policy_corpus/tuning-r22.yaml, issue 42): a negated action as
the subject of a predicate that stands far after the action's modifiers and judges the omission ("Not
replacing the wiper blades before a winter on the motorway would be a real mistake"), against the same
subjects called harmless or sensible and negated instructions with a reason of their own, written before
the reader was changed for them. Its format and a floor are held here, and the class is named with other
actions and wording than the part's rows (`text.stance.judged_omission`)."""

from __future__ import annotations

import pytest

from assay_runner.text.stance.judged_omission import judged_omission, judged_predicate
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r22.yaml"


def test_the_part_covers_every_language_with_each_form() -> None:
    labels = labels_by_language(PART, {"judged", "cleared"})
    assert set(labels) == {"en", "fr", "de", "es", "it", "pt", "nl", "pl"}
    assert all(len(v) >= 4 and 2 <= sum(v) <= 3 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    (
        "text",
        "phrase",
    ),
    [
        (
            "Not descaling the kettle before the guests arrive on Sunday would be a shame.",
            "descale the kettle",
        ),
        (
            "Ne jamais détartrer la bouilloire dans une région aussi calcaire serait déraisonnable.",
            "détartrer la bouilloire",
        ),
        (
            "No descalcificar el hervidor con un agua tan dura no es en absoluto una opción.",
            "descalcificar el hervidor",
        ),
        (
            "Non decalcificare il bollitore con un'acqua così dura non sarebbe saggio.",
            "decalcificare il bollitore",
        ),
        (
            "Não descalcificar a chaleira numa zona de água tão dura seria um erro.",
            "descalcificar a chaleira",
        ),
        (
            "Den Wasserkocher bei so hartem Wasser nicht zu entkalken, wäre unvernünftig.",
            "den Wasserkocher entkalken",
        ),
    ],
)
def test_an_omission_judged_wrong_far_from_the_action_blocks(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    (
        "text",
        "phrase",
    ),
    [
        (
            "Not descaling the kettle after only a week of use would be no mistake at all.",
            "descale the kettle",
        ),
        (
            "Not descaling the kettle during the first month is perfectly sensible.",
            "descale the kettle",
        ),
        (
            "Don't descale the kettle when the water is this soft: it would be a waste.",
            "descale the kettle",
        ),
        (
            "Ne détartrez pas la bouilloire maintenant : ce serait inutile.",
            "détartrer la bouilloire",
        ),
        (
            "Non decalcificare il bollitore perché sarebbe sbagliato con quest'acqua.",
            "decalcificare il bollitore",
        ),
        (
            "De waterkoker in de eerste maand niet ontkalken is allesbehalve onverstandig.",
            "de waterkoker ontkalken",
        ),
        (
            "Não descalcificar a chaleira no primeiro mês seria o melhor.",
            "descalcificar a chaleira",
        ),
    ],
)
def test_an_omission_called_harmless_or_a_negated_instruction_with_its_reason_passes(
    text: str, phrase: str
) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_an_omission_that_costs_nothing_passes() -> None:
    """A negated subject whose verb denies a cost ("won't cause any harm", "doesn't cost you anything")
    reassures; a risk denied ("non è un rischio che si possa correre") may still be one not to run."""
    assert (
        outcome_of("Not descaling the kettle won't cause any harm this month.", "descale the kettle")
        == "fine"
    )
    risk = "Non decalcificare il bollitore adesso non è un rischio che si possa correre."
    assert outcome_of(risk, "decalcificare il bollitore") != "fine"


def test_the_shape_reads_only_a_subject_said_as_such() -> None:
    """An imperative ("Don't descale", "Ne détartrez pas") is never the subject; a predicate with a
    subject of its own ("it would be", "ce serait") is a reason; a verb inside a condition is the
    condition's; a denied risk may still be one not to run, so the shape does not decide it."""
    assert judged_omission(["not"], ["descaling"], " the kettle would be a mistake", "en") is True
    assert judged_omission(["don't"], ["descale"], " the kettle would be a mistake", "en") is None
    assert judged_omission(["ne"], ["détartrez"], " pas: ce serait une erreur", "fr") is None
    assert judged_predicate(", it would be a mistake", "en") is None
    assert judged_predicate(" when the water is bad", "en") is None
    assert judged_predicate(" is no risk worth running", "en") is None
    assert judged_predicate(" is a good way to ruin it", "en") is None
    assert judged_predicate(" wäre bestimmt falsch", "de") is True
    # "makes no sense" denies a good word; "senseless" is a bad one, whose stem "sense" it shares
    assert judged_predicate(" no tiene ningún sentido", "es") is True
    assert judged_predicate(" is senseless", "en") is True
    assert judged_predicate(", kommt deshalb nicht infrage", "de") is True


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r22.yaml: 23/40 at its first reading (16 false negatives), 38/40 after the round. Left: a
    German and a Dutch object so far from its verb ("Die Wischerblätter nach zwei Wintern auf der
    Autobahn nicht zu wechseln") that the phrase is not matched at all."""
    found = read_tuning_part("tuning-r22.yaml")
    assert found.accuracy >= 0.9
    assert found.missed <= 2
