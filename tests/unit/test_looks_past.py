"""English "-ed" words that are base forms ("bleed", "feed", "reseed", "shred") are not past tenses: a
request to bleed the brakes is not a report that they were bled (`text.tokens.looks_past`)."""

from __future__ import annotations

import pytest

from assay_runner.text.key_objects import key_object
from assay_runner.text.tokens import looks_past
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("word", "past"),
    [
        ("reinstalled", True),
        ("agreed", True),
        ("guaranteed", True),
        ("bleed", False),
        ("feed", False),
        ("reseed", False),
        ("proceed", False),
        ("shred", False),
        ("install", False),
    ],
)
def test_looks_past(word: str, past: bool) -> None:
    assert looks_past(word) is past


def test_a_request_with_an_eed_verb_is_not_a_report() -> None:
    assert outcome_of("Could you bleed the brakes tonight?", "bleed the brakes") == "uncertain"
    assert outcome_of("You already bled the brakes, didn't you?", "bleed the brakes") == "fine"


def test_an_eed_verb_keeps_its_object_rule() -> None:
    assert key_object("bleed the radiators") is not None
    assert key_object("guaranteed refund") is None
