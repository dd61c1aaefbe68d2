"""The thirteenth tuning part (tests/data/policy_corpus/tuning-r13.yaml, issue 42): lines over a list that
call the whole list futile ("None of these gets rid of the smell", "The smell stays, whichever of these
you try") and lines with a negation that still introduce advice, in the eight languages, written before
the reader was changed for them. Its format and a floor are held here, and each class is named with other
actions and wording than the part's rows (`text.stance.futile_list`)."""

from __future__ import annotations

import pytest

from assay_runner.text.language import LANGUAGES
from assay_runner.text.stance import calls_futile
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r13.yaml"
FORMS = {"none-helps", "whichever", "advises"}
FIRMWARE = {
    "en": "update the firmware",
    "de": "die Firmware aktualisieren",
    "es": "actualizar el firmware",
    "it": "aggiornare il firmware",
    "pl": "zaktualizować oprogramowanie",
    "fr": "mettre à jour le micrologiciel",
    "nl": "de firmware bijwerken",
    "pt": "atualizar o firmware",
}


def listed(marker: str, line: str, *items: str) -> str:
    """A line and the list it introduces, each item after `marker` ("-", "*", "1.": numbered on)."""
    numbered = marker[0].isdigit()
    return "\n".join(
        [line, *(f"{k}. {item}" if numbered else f"{marker} {item}" for k, item in enumerate(items, 1))]
    )


def test_the_part_covers_every_language_with_futile_lists_and_lists_that_still_advise() -> None:
    labels = labels_by_language(PART, FORMS)
    assert set(labels) == set(LANGUAGES)
    assert all(len(v) == 8 and sum(v) == 3 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        (
            "en",
            listed(
                "-",
                "### Sadly, none of these makes the rattle go away",
                "update the firmware",
                "tighten the fan",
            ),
        ),
        (
            "en",
            listed(
                "-",
                "**The rattle won't go away with either of these:**",
                "update the firmware",
                "swap the fan",
            ),
        ),
        (
            "de",
            listed(
                "-",
                "Keine dieser Maßnahmen behebt das Rasseln:",
                "die Firmware aktualisieren",
                "den Lüfter tauschen",
            ),
        ),
        (
            "es",
            listed(
                "*",
                "### Ninguna de estas opciones soluciona el ruido",
                "actualizar el firmware",
                "cambiar el ventilador",
            ),
        ),
        (
            "it",
            listed(
                "1.",
                "Nessuna di queste soluzioni risolve il rumore:",
                "aggiornare il firmware",
                "cambiare la ventola",
            ),
        ),
        (
            "pl",
            listed(
                "-",
                "**Żadne z tych rozwiązań nie naprawi grzechotania:**",
                "zaktualizować oprogramowanie",
                "wymienić wentylator",
            ),
        ),
        (
            "fr",
            listed(
                "-",
                "### Le bruit persiste, quelle que soit l'option",
                "mettre à jour le micrologiciel",
                "changer le ventilateur",
            ),
        ),
        (
            "nl",
            listed(
                "-",
                "Het geratel blijft, wat je ook doet:",
                "de firmware bijwerken",
                "de ventilator vervangen",
            ),
        ),
        (
            "en",
            listed(
                "-",
                "### The rattle remains whatever you pick from this list",
                "update the firmware",
                "reseat the fan",
            ),
        ),
    ],
)
def test_a_list_its_line_calls_futile_passes(language: str, text: str) -> None:
    assert outcome_of(text, FIRMWARE[language], FIRMWARE["en"]) == "fine"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", listed("-", "If none of the above helps:", "Update the firmware.", "Restart the unit.")),
        ("en", listed("-", "None of these takes long:", "Update the firmware.", "Restart the unit.")),
        (
            "en",
            listed(
                "-", "**None of these erases your recordings:**", "update the firmware", "restart the unit"
            ),
        ),
        ("en", listed("-", "Whatever model you have, do this:", "update the firmware", "restart the unit")),
        (
            "en",
            listed("1.", "Keep these in order, whatever happens:", "update the firmware", "restart the unit"),
        ),
        ("en", listed("-", "None of these worked? Then:", "update the firmware", "restart the unit")),
        (
            "de",
            listed(
                "-", "Nichts davon hat geholfen, also:", "die Firmware aktualisieren", "das Gerät neu starten"
            ),
        ),
        ("pt", listed("-", "Nada disso resolveu, então:", "atualizar o firmware", "reiniciar o aparelho")),
        (
            "es",
            listed(
                "-", "Si ninguna de estas opciones soluciona el ruido:", "actualizar el firmware", "llamarnos"
            ),
        ),
    ],
)
def test_a_line_with_a_negation_that_still_introduces_advice_blocks(language: str, text: str) -> None:
    assert outcome_of(text, FIRMWARE[language], FIRMWARE["en"]) in ("violation", "uncertain")


@pytest.mark.parametrize(
    "line",
    [
        "None of these worked, so:",
        "Keiner dieser Tipps hat geholfen, also:",
        "Żaden z nich nie pomógł, więc:",
    ],
)
def test_a_line_that_leads_on_after_saying_nothing_worked_is_not_futile(line: str) -> None:
    assert not calls_futile(line)


@pytest.mark.parametrize(
    ("line", "futile"),
    [
        ("Keine dieser Maßnahmen hilft, leider:", True),
        ("None of these helps, I'm afraid:", True),
        ("None of these helps, try this:", False),
        ("None of these requires any work:", False),
        ("None of these will wipe your settings:", False),
        ("Whatever you try, these are the steps:", False),
    ],
)
def test_a_comment_after_the_line_keeps_it_futile_and_a_directive_or_an_ease_does_not(
    line: str, futile: bool
) -> None:
    assert calls_futile(line) is futile


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r13.yaml: 32/64 = 50.0% at its first reading (32 false positives, none missed), 64/64 after
    the round (`text.stance.futile_list`)."""
    found = read_tuning_part("tuning-r13.yaml")
    assert found.accuracy >= 0.95
    assert found.missed == 0
