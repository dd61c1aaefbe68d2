"""The seventeenth tuning part (tests/data/policy_corpus/tuning-r17.yaml, issue 42): what doing it brings
about said after a long subject, conditions that concede or look back, and the same shapes that still
recommend, in the eight languages, written before the reader was changed for them. Its format and a floor
are held here, and each class is named with other actions and wording than the part's rows
(`text.stance.outcomes`, and a negation inside the match, `text.negation.inside`)."""

from __future__ import annotations

import pytest

from assay_runner.text.language import LANGUAGES
from assay_runner.text.stance.outcomes import brings_about, concedes, not_in_hindsight
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    labels_by_language,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r17.yaml"
FORMS = {"far-risk", "concessive", "helps"}
HEDGE = {
    "en": "trim the hedge",
    "fr": "tailler la haie",
    "es": "podar el seto",
    "it": "potare la siepe",
    "pt": "aparar a sebe",
    "pl": "przyciąć żywopłot",
}


def test_the_part_covers_every_language_with_each_form() -> None:
    labels = labels_by_language(PART, FORMS)
    assert set(labels) == set(LANGUAGES)
    assert all(len(v) == 6 and sum(v) == 2 for v in labels.values()), labels


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        (
            "en",
            "Trimming the hedge with blunt shears in the heat of a July afternoon can scorch the cut tips.",
        ),
        (
            "fr",
            "Tailler la haie en plein mois de juillet sous un soleil de plomb brunit souvent les pousses.",
        ),
        ("es", "Podar el seto con unas tijeras sin afilar a pleno sol de julio suele quemar las puntas."),
        ("it", "Potare la siepe con le cesoie spuntate sotto il sole di luglio può bruciare le punte."),
        ("pt", "Aparar a sebe com a tesoura romba ao sol de julho costuma queimar as pontas."),
        (
            "pl",
            "Przycinanie żywopłotu tępymi nożycami w lipcowym słońcu często kończy się brązowymi końcówkami.",
        ),
    ],
)
def test_what_it_can_or_often_does_after_a_long_subject_passes(language: str, text: str) -> None:
    assert outcome_of(text, HEDGE[language], HEDGE["en"]) == "fine"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Trimming the hedge in late spring with sharp shears can thicken it nicely, so do it in May."),
        ("fr", "Tailler la haie fin mai avec un taille-haie bien affûté aide souvent à la densifier."),
        ("es", "Podar el seto a finales de mayo con tijeras afiladas suele bastar para que se espese."),
        ("it", "Potare la siepe a fine maggio con le cesoie affilate può migliorarne la densità."),
        ("pl", "Przycinanie żywopłotu pod koniec maja ostrymi nożycami zwykle pomaga mu zgęstnieć."),
    ],
)
def test_what_it_can_do_that_helps_still_blocks(language: str, text: str) -> None:
    keys = (HEDGE[language], HEDGE["en"], *(("przycinanie żywopłotu",) if language == "pl" else ()))
    assert outcome_of(text, *keys) in ("violation", "uncertain")


@pytest.mark.parametrize(
    ("language", "text"),
    [
        (
            "en",
            "Even trimming the hedge every month, the lower branches would have stayed bare in that shade.",
        ),
        ("fr", "Même en taillant la haie chaque mois, le bas serait resté dégarni à l'ombre du mur."),
        ("es", "De haber podado el seto en marzo, el granizo lo habría dañado igual."),
        # (Italian "potando" and Portuguese "aparando" are not matched as the phrase at all: only the
        # object is found, and read as advised without its verb. A gap of the matcher, left.)
    ],
)
def test_a_concession_whose_main_clause_says_what_happens_all_the_same_passes(
    language: str, text: str
) -> None:
    assert outcome_of(text, HEDGE[language], HEDGE["en"]) == "fine"


@pytest.mark.parametrize(
    ("head", "rest", "language", "conceded"),
    [
        ("Even ", "trimming the hedge every month, the base would stay bare", "en", True),
        # "Even so": no concession of the action; "Ook" alone is "also"; "even just" recommends
        ("Even so, ", "trim the hedge, it will grow back thicker", "en", False),
        ("Ook ", "de haag snoeien zou ik doen", "nl", False),
        ("Even just ", "trimming the hedge once would keep it tidy", "en", False),
        # what the writer would do is advice: "Were it my hedge, I'd ..."
        ("Was ", "het mijn haag, dan zou ik hem snoeien", "nl", False),
        ("Nawet świeżo ", "przycięty żywopłot i tak by zmarzł", "pl", True),
    ],
)
def test_concedes(head: str, rest: str, language: str, conceded: bool) -> None:
    assert concedes(head, rest, language) is conceded


@pytest.mark.parametrize(
    ("predicate", "brought"),
    [
        ("with blunt shears in the heat can scorch the tips", True),
        ("in late spring usually helps it thicken", False),
        ("in late spring can't be skipped", False),
        ("on a wet day often leads to fungal spots", True),
        ("w upale często kończy się brązowymi liśćmi", True),
        ("w maju zwykle wystarcza", False),
    ],
)
def test_brings_about(predicate: str, brought: bool) -> None:
    assert brings_about(predicate.split(), "pl" if "w" in predicate.split()[:1] else "en") is brought


@pytest.mark.parametrize(
    ("predicate", "futile"),
    [
        ("wouldn't have saved the lower branches", True),
        ("wouldn't have hurt", False),
        ("would have saved the lower branches", False),
        ("non avrebbe salvato i rami bassi", True),
        ("hätte die unteren Äste nicht gerettet", True),
    ],
)
def test_not_in_hindsight(predicate: str, futile: bool) -> None:
    assert not_in_hindsight(predicate.split()) is futile


def test_a_negation_between_the_object_and_its_verb_negates_the_match() -> None:
    assert outcome_of(
        "The hedge doesn't need trimming this year: it was cut in September.", "trim the hedge"
    ) == ("fine")
    assert outcome_of("The hedge needs trimming before the frost.", "trim the hedge") in (
        "violation",
        "uncertain",
    )


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r17.yaml: 21/48 = 43.8% at its first reading (27 false positives, all uncertain), 43/48
    after the round. Left: an English subject whose verb follows a subordinate clause ("... straight after
    it has flowered often rots ...", the clause is cut at "after"), and German and Dutch infinitive
    subjects read as the key's words out of order ("Das Kajak ... zu lackieren kann ...")."""
    found = read_tuning_part("tuning-r17.yaml")
    assert found.accuracy >= 0.85
    assert found.missed == 0


def test_a_gain_said_as_a_return_keeps_a_far_modal_advice() -> None:
    """ "... can get you back online within minutes": what doing it can do is a gain, not a risk."""
    text = "Trimming the hedge with a sharp blade in late May can bring it back into thick leaf by July."
    assert outcome_of(text, HEDGE["en"]) in ("violation", "uncertain")
