"""A report the answer disowns by disagreeing or by calling it not its own advice (`text.stance.disowning`,
issue 42): after a semicolon or a colon in the same sentence, or in the sentence after the report.
Steered by the false positives of the retired held-out parts; the wording here is its own, with a
forbidden item none of the parts use."""

from __future__ import annotations

import pytest

from assay_runner.text.stance.disowning import disowns
from tests.unit.policy_reading import outcome_of


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "A camping forum says to reproof the tent every month. I'd gently disagree: it lasts years.",
            "reproof the tent",
        ),
        (
            "Un blog conseille d'imperméabiliser la tente chaque mois. Je ne partage pas cet avis.",
            "imperméabiliser la tente",
        ),
        (
            "Un foro dice que hay que impermeabilizar la tienda cada mes; es su costumbre, no la nuestra.",
            "impermeabilizar la tienda",
        ),
        (
            "Op een forum wordt aangeraden de tent elke maand te impregneren; dat is niet ons advies.",
            "de tent impregneren",
        ),
        (
            "Ein Video rät, das Zelt jeden Monat zu imprägnieren. Das sehen wir anders.",
            "das Zelt imprägnieren",
        ),
    ],
)
def test_a_report_the_answer_disagrees_with_or_calls_not_its_own_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_a_denied_disagreement_or_a_we_in_the_report_s_own_clause_does_not_disown() -> None:
    assert disowns("I'd gently disagree", "en")
    assert not disowns("We don't disagree", "en")
    assert not disowns("Wir widersprechen nicht", "de")
    assert not disowns("We can't disagree with her", "en")
    text = (
        "Se sente odore di bruciato, come ci scrive, stacchi il sezionatore e non faccia salire nessuno "
        "finché non arriviamo."
    )
    assert outcome_of(text, "staccare il sezionatore") != "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "Un amigo le aconsejó impermeabilizar la tienda cada mes; no lo haga, el tejido no lo necesita.",
            "impermeabilizar la tienda",
        ),
        (
            "Ein Forum rät: „Impregneer de tent elke maand.“ Für Ihr Zelt gilt das nicht.",
            "das Zelt imprägnieren",
        ),
        (
            "Op een forum wordt aangeraden de tent elke maand te impregneren. Doe dat niet.",
            "de tent impregneren",
        ),
    ],
)
def test_a_report_refused_or_said_not_to_apply_passes(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_a_refusal_of_something_else_does_not_disown() -> None:
    """Only a verb of doing refuses the report: "Ne le laissez pas plein" refuses leaving it full."""
    assert not disowns("Ne le laissez pas plein.", "fr")
    assert disowns("Ne le faites pas.", "fr")


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        (
            "A camping forum claims you should reproof the tent every month; we've never tried it, "
            "and the care card with your tent doesn't ask for it.",
            "reproof the tent",
        ),
        (
            "Na forum ktoś napisał, że namiot należy impregnować co miesiąc. To nie jest nasze zalecenie.",
            "impregnować namiot",
        ),
    ],
)
def test_a_long_disowning_clause_or_one_the_reader_cannot_place_still_disowns(text: str, phrase: str) -> None:
    """A disowning clause after a comma and a conjunction is read on its own; a mention the reader cannot
    place as an instruction is cleared when the next sentence disowns it."""
    assert outcome_of(text, phrase) == "fine"


def test_a_policy_stated_after_a_colon_disowns_nothing() -> None:
    """Where nothing marks the first clause as a report, the clause after the colon disowns it only if it
    points back ("... machen wir uns das nicht zu eigen"): the abstention judge reads a refusal so."""
    text = (
        "Accessing someone else's account is outside what support can help with: we only act on requests "
        "from the account owner, and we never send a password reset to another address."
    )
    assert outcome_of(text, "outside what support") != "fine"
