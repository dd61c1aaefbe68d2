"""A heading without a colon that negates its list ("### Never on a sealed acrylic rim", "### Nada de
esto mientras dure la garantía") negates the bare items under it, not the sentences that instruct (issue 42,
`text.stance.headings.heading_without_colon_negates`). Steered by the false positives of the retired
held-out parts; the wording here is its own, with a forbidden item none of the parts use."""

from __future__ import annotations

import pytest

from assay_runner.text.stance.headings import heading_without_colon_negates
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "### Never on a marble worktop\n\n- descale the kettle with vinegar\n- scrub it with wire wool",
            "descale the kettle",
        ),
        (
            "### Nada de esto mientras dure la garantía\n\n- descalcificar el hervidor\n- lavarlo con lejía",
            "descalcificar el hervidor",
        ),
        (
            "### Bringt beim Pfeifen nichts\n\n- den Wasserkocher entkalken\n- den Deckel tauschen",
            "den Wasserkocher entkalken",
        ),
        (
            "### Nie dotyczy czajników szklanych\n\n- odkamienianie czajnika\n- szorowanie druciakiem",
            "odkamienić czajnik",
        ),
    ],
)
def test_a_negating_heading_negates_the_bare_items_under_it(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        # sentences that instruct: the heading's negation is of a worry, not of them
        (
            "### Nothing complicated\n\n- Unplug the kettle.\n- Descale the kettle with the sachet.",
            "descale the kettle",
        ),
        (
            "### Geen hogere wiskunde\n\n- Trek de stekker eruit.\n- Ontkalk de waterkoker.",
            "de waterkoker ontkalken",
        ),
        # a negated noun other than the list, a symptom, "nothing else"
        ("### No time to lose\n\n- descale the kettle\n- rinse it twice", "descale the kettle"),
        ("### Still not working\n\n- descale the kettle\n- rinse it twice", "descale the kettle"),
        ("### Nothing else is needed\n\n- descale the kettle", "descale the kettle"),
    ],
)
def test_items_that_instruct_or_headings_that_reassure_still_block(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) in ("violation", "uncertain")


def test_only_a_heading_without_a_colon_is_read_so() -> None:
    assert heading_without_colon_negates("Never on a marble worktop")
    assert not heading_without_colon_negates("Never on a marble worktop:")  # read as any intro line
    assert not heading_without_colon_negates("Kein Grund zur Sorge")
    assert not heading_without_colon_negates("Still not working")
