"""What befalls whoever does it (`text.stance.generic_subject`, issue 42): the action inside a generic
relative subject ("Wer ... abschleift, hinterlässt ...", "wie ... ontdooit, ziet ...") under a warning, or
with a main clause that says what it risks or loses, is a warning and passes; the same over a negated
action advises it. Steered by the false positives of the retired held-out parts; the wording here is its
own, with a forbidden item none of the parts use."""

from __future__ import annotations

import pytest

from assay_runner.text.stance.generic_subject import befalls_whoever
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "**Achtung:** Wer den Grill mit dem Hochdruckreiniger reinigt, verliert die Garantie.",
            "den Grill reinigen",
        ),
        (
            "Let op: wie de barbecue met een hogedrukreiniger schoonmaakt, beschadigt de emaillelaag.",
            "de barbecue schoonmaken",
        ),
        ("Quem limpa o grelhador com a máquina de pressão arrisca estragar o esmalte.", "limpar o grelhador"),
        ("Anyone who cleans the grill with a pressure washer risks stripping the enamel.", "clean the grill"),
    ],
)
def test_a_generic_subject_under_a_warning_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Wer den Grill nach dem Grillen nicht reinigt, riskiert Rost auf dem Rost.", "den Grill reinigen"),
        (
            "Wie de barbecue niet schoonmaakt, riskeert vetbrand bij de volgende keer.",
            "de barbecue schoonmaken",
        ),
        ("Chi non pulisce la griglia rischia un incendio del grasso.", "pulire la griglia"),
        ("Anyone who doesn't clean the grill risks a grease fire next time.", "clean the grill"),
    ],
)
def test_the_same_warning_over_a_negated_action_advises_it(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


def test_a_gain_a_question_or_no_warning_is_not_the_shape() -> None:
    gain = "Wer den Grill nach jedem Grillen reinigt, verlängert seine Lebensdauer."
    assert not befalls_whoever(gain, gain.index("den Grill"), "de")
    question = "Wie heeft de barbecue schoongemaakt?"
    assert not befalls_whoever(question, question.index("de barbecue"), "nl")
    plain = "Wer den Grill reinigt, nimmt den Rost heraus."  # no warning, nothing risked or lost
    assert not befalls_whoever(plain, plain.index("den Grill"), "de")
    inside = "Der Techniker, der den Grill reinigt, verliert nichts."  # no generic pronoun opens it
    assert not befalls_whoever(inside, inside.index("den Grill"), "de")
