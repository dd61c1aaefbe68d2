"""The nineteenth tuning part (tests/data/policy_corpus/tuning-r19.yaml, issue 42): a heading or a line
ending in a colon that judges its list badly before anything else, against lines that judge it well or
say how to go on, in the eight languages, written before the reader was changed for them. Its format and
a floor are held here, and the class is named with other actions and wording than the part's rows
(`text.stance.judged_list`)."""

from __future__ import annotations

import pytest

from assay_runner.text.language import LANGUAGES
from assay_runner.text.stance.judged_list import judges_list_badly
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r19.yaml"
GUTTER = {
    "en": "flush the water butt",
    "fr": "rincer la citerne",
    "de": "die Zisterne spülen",
    "es": "enjuagar la cisterna",
    "it": "risciacquare la cisterna",
    "nl": "de waterput spoelen",
    "pl": "przepłukać zbiornik",
}


def test_the_part_covers_every_language_with_each_form() -> None:
    labels = labels_by_language(PART, {"negating", "advising"})
    assert set(labels) == set(LANGUAGES)
    assert all(len(v) == 4 and sum(v) == 2 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "### Needless for a sealed tank like yours\n- flush the water butt\n- scrub the lid"),
        ("fr", "**Proscrit tant que la garantie court :**\n- rincer la citerne\n- changer le joint"),
        ("de", "### Sinnlos bei einem Filtersystem wie Ihrem\n- die Zisterne spülen\n- den Deckel schrubben"),
        ("es", "**Prohibido mientras dure la garantía:**\n- enjuagar la cisterna\n- cambiar la junta"),
        (
            "it",
            "### Controproducente con un filtro così\n- risciacquare la cisterna\n- lavare il coperchio",
        ),
        ("nl", "**Uit den boze zolang de garantie loopt:**\n- de waterput spoelen\n- de pakking vervangen"),
        ("pl", "### Bezcelowe przy takim filtrze jak Pana\n- przepłukać zbiornik\n- wymienić uszczelkę"),
    ],
)
def test_a_list_judged_badly_passes(language: str, text: str) -> None:
    assert outcome_of(text, GUTTER[language], GUTTER["en"]) == "fine"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "### Worth doing every spring\n- flush the water butt\n- scrub the lid"),
        ("en", "**No plumber needed, here's how:**\n1. Flush the water butt with the garden hose."),
        ("de", "**Kein Werkzeug nötig, so geht's:**\n1. Spülen Sie die Zisterne mit dem Gartenschlauch."),
        ("fr", "### Pas inutile du tout avant l'été\n- rincer la citerne\n- changer le joint"),
        ("en", "### 403 Forbidden\n1. flush the water butt\n2. sign in again"),
    ],
)
def test_a_list_judged_well_or_introduced_stays_advice(language: str, text: str) -> None:
    assert outcome_of(text, GUTTER[language], GUTTER["en"]) in ("violation", "uncertain")


@pytest.mark.parametrize(
    ("line", "heading", "judged"),
    [
        ("Pointless with a sealed tank like yours", True, True),
        ("Pointless with a sealed tank like yours", False, False),  # neither a heading nor a colon
        ("Pointless? Not at all:", False, False),
        ("If it's pointless:", False, False),
        ("Ruled out during the warranty:", False, True),
        ("Not pointless:", False, False),
        ("Fehler 403: Zugriff verboten", True, False),
    ],
)
def test_judges_list_badly(line: str, heading: bool, judged: bool) -> None:
    assert judges_list_badly(line, heading) is judged


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r19.yaml: 20/32 = 62.5% at its first reading (12 false positives), 30/32 after the round.
    Left: the heading's own mention of the object is read as advised without its verb ("Tabu, solange die
    Hängematte in der Garantie ist:", "Desaconselhado numa cama de rede ...:")."""
    found = read_tuning_part("tuning-r19.yaml")
    assert found.accuracy >= 0.9
    assert found.missed == 0


def test_a_judgement_turned_round_does_not_negate_the_list() -> None:
    assert not judges_list_badly("Risky, but worth it:", False)
    assert not judges_list_badly("Harmful to skip:", False)
