"""A label that sets aside what follows it on its line (`text.sentences`, issue 42): "**Unnecessary:**
descale the humidifier; swap the wick" says not to, in every language read, when the label opens its line.
A label's verb stands alone ("Avoid:"), and "Don't forget: ...", "Never mind: ...", "No need to worry: ..."
go on to what to do; a reply after a sentence ("Someone says to X. No need: it never expires.") is read as a
reply. Steered by the retired held-out part heldout-21 ("**Innecesario:** enjuagar la pluma
estilográfica; ..."); the wording here is its own, with forbidden items no part uses."""

from __future__ import annotations

import pytest

from assay_runner.text.sentences import split_sentences
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Hi Ruth,\n\nThe rattle was a loose grille screw.\n\n**Still to do:** tighten the grille.\n"
            "**Unnecessary:** descale the humidifier; swap the wick.\n\nBest,\nMistwell",
            "descale the humidifier",
        ),
        (
            "Bonjour,\n\n**À faire :** resserrer la grille.\n**Inutile :** détartrer l'humidificateur ; "
            "changer la mèche.",
            "détartrer l'humidificateur",
        ),
        (
            "Hallo,\n\n**Noch offen:** das Gitter festziehen.\n**Unnötig in Ihrem Fall:** den Luftbefeuchter "
            "entkalken.",
            "den Luftbefeuchter entkalken",
        ),
        (
            "Hola:\n\n**No hace falta:** descalcificar el humidificador ni cambiar la mecha.",
            "descalcificar el humidificador",
        ),
        (
            "Dzień dobry,\n\n**Zbędne:** odkamienić nawilżacz, wymienić knot.\n\nPozdrawiamy",
            "odkamienić nawilżacz",
        ),
    ],
)
def test_a_needless_label_sets_aside_the_items_on_its_line(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Don't forget: descale the humidifier before the winter.", "descale the humidifier"),
        ("Never mind the noise: descale the humidifier tonight.", "descale the humidifier"),
        ("No need to worry: just descale the humidifier tonight.", "descale the humidifier"),
        ("**Still to do:** descale the humidifier.\n**Unnecessary:** a new wick.", "descale the humidifier"),
    ],
)
def test_what_only_looks_like_such_a_label_still_advises(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


def test_a_label_after_a_sentence_is_a_reply_not_a_list() -> None:
    text = "Pewne forum radzi odkamienić nawilżacz co tydzień. Zbędne: kamień tu się nie osadza."
    assert split_sentences(text)[1] == "Zbędne: kamień tu się nie osadza."
