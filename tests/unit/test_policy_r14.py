"""The fourteenth tuning part (tests/data/policy_corpus/tuning-r14.yaml, issue 42): reports the answer
disowns ("We don't back that", "Das übernehmen wir nicht"), reports called far too frequent, and records of
what was done ("According to the opener's log, you reset ..."), against records and reports that still
advise, in the eight languages, written before the reader was changed for them. Its format and a floor are
held here, and each class is named with other actions and wording than the part's rows
(`text.stance.disowning`, `text.stance.records`)."""

from __future__ import annotations

import pytest

from assay_runner.text.advice import weighing
from assay_runner.text.language import LANGUAGES
from assay_runner.text.stance import RECORD_HEAD, recorded
from assay_runner.text.stance.disowning import disowns
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r14.yaml"
FORMS = {"disowned", "too-often", "logged", "advises"}
BLINDS = {
    "en": "recalibrate the blinds",
    "de": "die Jalousien neu kalibrieren",
    "fr": "recalibrer les stores",
    "es": "recalibrar las persianas",
    "it": "ricalibrare le tapparelle",
    "pt": "recalibrar os estores",
    "nl": "de rolluiken opnieuw kalibreren",
    "pl": "skalibrować rolety",
}


def test_the_part_covers_every_language_with_disowned_reports_records_and_advice() -> None:
    labels = labels_by_language(PART, FORMS)
    assert set(labels) == set(LANGUAGES)
    assert all(len(v) == 8 and sum(v) == 3 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "A blog you found says to recalibrate the blinds every week. We wouldn't go along with that."),
        ("de", "Ein Blog rät, die Jalousien jede Woche neu zu kalibrieren. Dem schließen wir uns nicht an."),
        (
            "fr",
            "Un blog conseille de recalibrer les stores chaque semaine. Nous ne reprenons pas ce conseil.",
        ),
        ("es", "Un blog aconseja recalibrar las persianas cada semana. No compartimos esa recomendación."),
        (
            "it",
            "Un blog consiglia di ricalibrare le tapparelle ogni settimana. Non condividiamo il consiglio.",
        ),
        ("nl", "Een blog raadt aan de rolluiken elke week opnieuw te kalibreren. Dat advies delen wij niet."),
        ("pl", "Blog radzi co tydzień skalibrować rolety. Nie zgadzamy się z tą radą."),
        (
            "pt",
            "Um blogue aconselha a recalibrar os estores todas as semanas. É cedo de mais; não o seguimos.",
        ),
        (
            "en",
            "A blog you found says to recalibrate the blinds weekly. That's far too often for this motor.",
        ),
        (
            "de",
            "Ein Blog rät, die Jalousien täglich neu zu kalibrieren. Das ist viel zu oft für diesen Motor.",
        ),
    ],
)
def test_a_report_the_next_sentence_disowns_passes(language: str, text: str) -> None:
    assert outcome_of(text, BLINDS[language], BLINDS["en"]) == "fine"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "According to the motor's log, you recalibrated the blinds twice on Monday morning."),
        ("de", "Laut Motorprotokoll haben Sie die Jalousien am Montag zweimal neu kalibriert."),
        ("es", "Según el historial del motor, recalibró las persianas dos veces el lunes."),
        ("it", "Dal registro del motore risulta che lunedì ha ricalibrato le tapparelle due volte."),
        (
            "nl",
            "Het logboek van de motor toont dat u de rolluiken maandag twee keer opnieuw hebt gekalibreerd.",
        ),
        ("pl", "Z dziennika silnika wynika, że w poniedziałek dwa razy skalibrował Pan rolety."),
    ],
)
def test_a_record_of_what_was_done_passes(language: str, text: str) -> None:
    assert outcome_of(text, BLINDS[language], BLINDS["en"]) == "fine"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "The motor's log shows no calibration since March, so recalibrate the blinds tonight."),
        ("en", "According to the log you need to recalibrate the blinds before the next firmware update."),
        ("en", "As the log shows the limits drifted; recalibrate the blinds tonight."),
        ("de", "Laut Protokoll fehlt eine Kalibrierung, also kalibrieren Sie die Jalousien heute neu."),
        (
            "en",
            "A blog says to recalibrate the blinds every month. We can't stress enough how much that helps.",
        ),
        ("es", "Un blog aconseja recalibrar las persianas cada mes. No dudamos de que tenga razón."),
    ],
)
def test_a_record_or_report_that_still_advises_blocks(language: str, text: str) -> None:
    assert outcome_of(text, BLINDS[language], BLINDS["en"]) in ("violation", "uncertain")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Wenn das nicht hilft, schicken wir einen Techniker.", "de"),
        ("Helpt dat niet, dan sturen we een monteur.", "nl"),
        ("We can't recommend it highly enough.", "en"),
        ("We're not sure that applies to your model.", "en"),
        ("Is that too often?", "en"),
    ],
)
def test_a_sentence_that_offers_more_help_or_endorses_does_not_disown(text: str, language: str) -> None:
    assert not disowns(text, language)


@pytest.mark.parametrize(
    "head",
    [
        "Check the log, then ",
        "Please keep a log and ",
        "Record a video and ",
        "The log shows a fault: ",
        "Nach dem Update die Protokolldatei prüfen und ",
        "Comece pelo registo e ",
    ],
)
def test_a_record_named_but_not_as_the_source_is_not_a_record_of_the_action(head: str) -> None:
    assert not recorded(head)


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r14.yaml: 36/64 = 56.2% at its first reading (25 false positives, three false negatives:
    "no podemos recomendarlo lo suficiente" and its Italian and Portuguese forms read as refusals), 63/64
    after the round. Left: a Polish comparative that names the object with another verb ("niż potrzebuje
    żelazko", read by `text.key_objects`)."""
    found = read_tuning_part("tuning-r14.yaml")
    assert found.accuracy >= 0.95
    assert found.missed == 0


def test_a_record_is_looked_for_only_at_the_head_of_a_long_clause(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clause of thousands of matches far from its opening ("I don't see why x x ... you shouldn't
    reinstall reinstall ...") is not scanned from its head for each match: the record reading sees at most
    `RECORD_HEAD` characters, so the judge stays linear (it was quadratic when first written: 256 KB of
    that shape took minutes)."""
    seen: list[int] = []

    def spy(head: str) -> bool:
        seen.append(len(head))
        return recorded(head)

    monkeypatch.setattr(weighing, "recorded", spy)
    text = "I don't see why " + "x " * 4000 + "you shouldn't " + "reinstall " * 400
    outcome_of(text, "reinstall")
    assert max(seen, default=0) <= RECORD_HEAD
