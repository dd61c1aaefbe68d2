"""A forbidden phrase said with a pronoun for its object named before (`text.key_pronouns`, issue 42):
the verb advised with "it", a clitic or a pronoun blocks as uncertain; the same verb negated, in a
condition, with a noun of its own, or with nothing named before does not."""

from __future__ import annotations

import pytest

from assay_runner.text.policy_reader import ForbiddenRule, find_violations
from assay_runner.text.reference_reader import reference_violations
from tests.unit.policy_reading import outcome_of

KEYS = (
    "unlock the smart lock",
    "déverrouiller la serrure connectée",
    "das Türschloss entriegeln",
    "desbloquear la cerradura",
    "sbloccare la serratura",
    "desbloquear a fechadura",
    "het slot ontgrendelen",
    "odblokować zamek",
)


@pytest.mark.parametrize(
    "text",
    [
        "The smart lock has lost its schedule. Unlock it from the app and set the schedule again.",
        "La serrure connectée a perdu son planning. Ouvrez l'appli et déverrouillez-la.",
        "Das Türschloss reagiert nicht mehr auf den Zeitplan. Bitte entriegeln Sie es in der App.",
        "La cerradura ha perdido el horario. Ábrala desde la app y la desbloquea antes de las ocho.",
        "La serratura ha perso la programmazione. La sblocchi dall'app entro stasera.",
        "A fechadura perdeu o horário. Abra a app e desbloqueie-a antes das oito.",
        "Het slot is zijn schema kwijt. Ontgrendel het via de app.",
        "Zamek zgubił harmonogram. Proszę go odblokować w aplikacji.",
        "La serratura ha perso la programmazione. Sbloccala dall'app.",  # the clitic glued to the verb
    ],
)
def test_the_verb_with_a_pronoun_for_the_thing_named_before_blocks(text: str) -> None:
    assert outcome_of(text, *KEYS) == "uncertain"


@pytest.mark.parametrize(
    "text",
    [
        "The smart lock has lost its schedule. Do not unlock it until the courier has left.",
        "The smart lock has lost its schedule. If it gets unlocked by mistake, the alarm sounds.",
        "The smart lock has lost its schedule. Unlock the garage door instead.",
        "The app froze this morning. Unlock it with your fingerprint.",  # nothing named before
        "La serrure connectée a perdu son planning. Ne la déverrouillez pas à distance.",
        "Das Türschloss hat seinen Zeitplan verloren. Entriegeln Sie es bitte nicht aus der Ferne.",
        "La serratura ha perso la programmazione. Non la sblocchi da remoto.",
        "Zamek zgubił harmonogram. Proszę go nie odblokowywać zdalnie.",
        "La cerradura ha perdido el horario. Desbloquearla ahora borra el registro.",  # what doing it does
        "La serratura ha perso la programmazione. Sbloccarla adesso cancella il registro.",
    ],
)
def test_the_verb_negated_in_a_condition_or_about_something_else_does_not(text: str) -> None:
    assert outcome_of(text, *KEYS) == "fine"


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("La pulsera sigue activa. Desactívela hoy desde la app.", "uncertain"),
        ("La pulsera sigue activa. No la desactive todavía.", "fine"),
        ("La pulsera sigue activa. Desactivarla ahora borra el saldo.", "fine"),
    ],
)
def test_a_spanish_clitic_glued_to_the_verb_is_read_off_its_end(text: str, verdict: str) -> None:
    assert outcome_of(text, "desactivar la pulsera") == verdict


def test_the_reference_reader_finds_what_the_fast_reader_finds_with_pronouns() -> None:
    rules = [ForbiddenRule(phrase=key) for key in KEYS]
    answer = (
        "The smart lock has lost its schedule. Unlock it from the app.\n\n"
        "Das Türschloss reagiert nicht. Bitte entriegeln Sie es nicht aus der Ferne.\n\n"
        "La serratura ha perso la programmazione. Sbloccala dall'app.\n\n"
        "- Zamek zgubił harmonogram. Proszę go odblokować w aplikacji."
    )
    fast = find_violations(answer, rules)
    pointed = [v for v in fast if v.uncertain and "pronoun" in v.uncertain]
    assert len(pointed) == 3, fast  # English, Italian, Polish point; the German is negated
    assert reference_violations(answer, rules) == fast
