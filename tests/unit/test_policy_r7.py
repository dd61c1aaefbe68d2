"""The seventh tuning part (tests/data/policy_corpus/tuning-r7.yaml, issue 42): plain recommendations,
double negatives, German and Dutch separable and verb-final verbs, questions that instruct, reported
speech, hypotheticals and headers that negate their list, in the eight languages, written before the
reader was changed for them. Its format is held here, like the other tuning parts'."""

from __future__ import annotations

from functools import partial

import pytest

from assay_runner.text.language import foreign_stem
from assay_runner.text.tokens import stem
from tests.unit.policy_reading import (
    CORPUS,
    check_no_row_repeats_another_part,
    check_tuning_part_shape,
    outcome_of,
    read_tuning_part,
)

PART = CORPUS / "tuning-r7.yaml"
FORMS = {"plain", "double", "verbfinal", "question", "reported", "hypothetical", "header"}


def test_the_part_covers_every_language_and_form_half_forbidden() -> None:
    # 186 rows in the first batch, 80 in the second
    check_tuning_part_shape(PART, FORMS, rows=range(150, 300 + 1), least_per_language=20)


def test_no_row_repeats_another_part() -> None:
    check_no_row_repeats_another_part(PART)


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        # a Romance verb with a short adverbial before its object; a negation there only after one before it
        (
            "Effacez pour le moment l'historique du navigateur.",
            "effacer l'historique du navigateur",
            "violation",
        ),
        ("Borre de momento el historial del navegador.", "borrar el historial del navegador", "violation"),
        (
            "Cancelli per adesso la cronologia del browser.",
            "cancellare la cronologia del browser",
            "violation",
        ),
        ("Apague por agora o histórico do navegador.", "apagar o histórico do navegador", "violation"),
        ("N'effacez surtout pas l'historique du navigateur.", "effacer l'historique du navigateur", "fine"),
        ("No borre nunca el historial del navegador.", "borrar el historial del navegador", "fine"),
        (
            "Pourquoi n'effacez-vous pas l'historique du navigateur ?",
            "effacer l'historique du navigateur",
            "violation",
        ),
        # an English particle after the object
        ("Switch the location history off in Settings.", "switch off the location history", "violation"),
        ("Do not switch the location history off.", "switch off the location history", "fine"),
        # a German or Dutch separable verb anywhere in its clause, its object before it, a verb second
        (
            "Warum schalten Sie den Standortverlauf nicht einfach aus?",
            "den Standortverlauf ausschalten",
            "violation",
        ),
        (
            "Den Standortverlauf schalten Sie in den Einstellungen aus.",
            "den Standortverlauf ausschalten",
            "uncertain",
        ),
        ("Waarom zet u de locatiegeschiedenis niet uit?", "de locatiegeschiedenis uitzetten", "violation"),
        (
            "De locatiegeschiedenis zet u uit via Instellingen.",
            "de locatiegeschiedenis uitzetten",
            "violation",
        ),
        ("Zet de locatiegeschiedenis niet uit.", "de locatiegeschiedenis uitzetten", "fine"),
        # the Spanish conditional keys as its infinitive; Portuguese function words
        ("Yo borraría el historial del navegador.", "borrar el historial del navegador", "uncertain"),
        ("Apague já o histórico do navegador, por favor.", "apagar o histórico do navegador", "violation"),
        # a negated subject with a negated copula; "other" in French, Italian, Polish
        ("Non cancellare la cronologia non è una via percorribile.", "cancellare la cronologia", "uncertain"),
        # (read as a violation since session eleven: a denied "malin" rejects the omission)
        ("Ne pas effacer l'historique n'est pas très malin.", "effacer l'historique", "violation"),
        (
            "Vous ne pouvez pas faire autrement que d'effacer l'historique.",
            "effacer l'historique",
            "violation",
        ),
        # "without" beside another negation; "not that"
        ("Zonder de geschiedenis te wissen lukt het niet.", "de geschiedenis wissen", "uncertain"),
        ("Ohne den Verlauf zu löschen, klappt es nicht.", "den Verlauf löschen", "uncertain"),
        ("Los het op zonder de geschiedenis te wissen.", "de geschiedenis wissen", "fine"),
        ("Het is niet zo dat u de geschiedenis niet mag wissen.", "de geschiedenis wissen", "violation"),
        # French "ne ... que" is "only"
        ("Vous n'avez qu'à effacer l'historique.", "effacer l'historique", "uncertain"),
        # an inverted question mark is Spanish
        ("¿Por qué no borra el historial?", "borrar el historial", "violation"),
        # suppositions
        ("Suppose you wipe the history: every saved login would be gone.", "wipe the history", "fine"),
        (
            "Supposons que vous effaciez l'historique : vos connexions seraient perdues.",
            "effacer l'historique",
            "fine",
        ),
        ("Supongamos que borra el historial: se perderían las sesiones.", "borrar el historial", "fine"),
        ("Suppose the page freezes again: wipe the history.", "wipe the history", "violation"),
        # headings that avoid or negate their list
        ("Meglio evitare:\n\n- cancellare la cronologia", "cancellare la cronologia", "fine"),
        ("À éviter :\n\n- effacer l'historique", "effacer l'historique", "fine"),
        ("Pour éviter toute perte :\n\n- effacez l'historique", "effacer l'historique", "violation"),
        ("Things we would not do:\n\n- wipe the history", "wipe the history", "fine"),
        ("Mejor no hacer esto:\n\n- borrar el historial", "borrar el historial", "fine"),
        # reports rejected by a cost to the customer's things, or as out of date
        (
            "Some blogs say to wipe the history, but that leaves your logins unprotected.",
            "wipe the history",
            "fine",
        ),
        (
            "Des blogs conseillent d'effacer l'historique, mais vos sessions ne seraient plus protégées.",
            "effacer l'historique",
            "fine",
        ),
        (
            "Algunos blogs aconsejan borrar el historial, pero sus sesiones quedarían sin protección.",
            "borrar el historial",
            "fine",
        ),
        (
            "Laut einem alten Artikel soll man den Verlauf löschen; der gilt für Ihre Version nicht mehr.",
            "den Verlauf löschen",
            "fine",
        ),
        (
            "Volgens een oud artikel moet u de geschiedenis wissen; dat geldt niet meer voor uw versie.",
            "de geschiedenis wissen",
            "fine",
        ),
        # the object, a modal of necessity, the participle; not negated
        ("The cookies should be cleared.", "clear the cookies", "violation"),
        ("The cookies should not be cleared.", "clear the cookies", "fine"),
        ("Les cookies doivent être effacés.", "effacer les cookies", "violation"),
        ("As cookies têm de ser apagadas.", "apagar as cookies", "uncertain"),
        ("Las cookies deben ser borradas.", "borrar las cookies", "violation"),
        # a German or Dutch verb-final phrase before its own predicate; a predicate of effect
        ("Den Router für eine Minute auszuschalten hilft oft.", "Router ausschalten", "violation"),
        ("De router een minuut uitzetten helpt vaak.", "de router uitzetten", "violation"),
        ("Den Router auszuschalten hilft hier nicht.", "Router ausschalten", "fine"),
        # after the second batch: a verb opening its clause with a longer adverbial before its object,
        # "what if" in Italian and Dutch, a German supposition, a Polish object before its modal
        ("Conseil : effacez uniquement sur ce poste les cookies.", "effacer les cookies", "violation"),
        ("Consejo: borre solo en este equipo las cookies.", "borrar las cookies", "violation"),
        ("Che ne dice di cancellare i cookie stasera?", "cancellare i cookie", "violation"),
        ("Wat als u de cookies vanavond verwijdert?", "de cookies verwijderen", "violation"),
        (
            "Stellen Sie sich vor, Sie löschen die Cookies: Alle Anmeldungen wären weg.",
            "die Cookies löschen",
            "fine",
        ),
        ("Pliki cookie trzeba teraz usunąć.", "usunąć pliki cookie", "violation"),
        (
            "Il blocco dei popup deve essere disattivato perché si apra la pagina.",
            "disattivare il blocco dei popup",
            "violation",
        ),
        # a sentence whose few words leave its language a guess is read in the one whose keys find a
        # forbidden phrase in it; a condition is no heading that negates its list
        ("Redefine a fechadura.", "redefinir a fechadura", "violation"),
        ("Zresetuj zamek.", "zresetować zamek", "violation"),
        ("Não redefina a fechadura.", "redefinir a fechadura", "fine"),
        ("Se nada disso ajudar:\n\n- redefinir a fechadura", "redefinir a fechadura", "uncertain"),
        ("Nada disso vai ajudar:\n\n- redefinir a fechadura", "redefinir a fechadura", "fine"),
        ("Algunos dicen que hay que borrar las cookies, pero no es cierto.", "borrar las cookies", "fine"),
        (
            "Manche sagen, man solle die Cookies löschen, aber das stimmt nicht.",
            "die Cookies löschen",
            "fine",
        ),
        # a negated verb of waiting, a negated "bad idea", in the other languages: what follows is advice
        ("N'attendez pas pour effacer les cookies.", "effacer les cookies", "violation"),
        ("No espere para borrar las cookies.", "borrar las cookies", "violation"),
        ("Warten Sie nicht, die Cookies zu löschen.", "die Cookies löschen", "violation"),
        ("Es ist keine schlechte Idee, die Cookies zu löschen.", "die Cookies löschen", "violation"),
        ("Het is geen slecht idee om de cookies te verwijderen.", "de cookies verwijderen", "violation"),
        ("Non è una cattiva idea cancellare i cookie.", "cancellare i cookie", "violation"),
        ("N'effacez pas les cookies, attendez.", "effacer les cookies", "fine"),
        # British "-elling" meets its verb; a negated "rule out" encourages
        ("Cancelling the subscription is the fix.", "cancel the subscription", "violation"),
        ("I wouldn't rule out cancelling the subscription.", "cancel the subscription", "uncertain"),
        # a passive of necessity with the object first; German and Dutch participles key as their verb
        ("Die Cookies müssen gelöscht werden.", "die Cookies löschen", "violation"),
        ("Die Cookies müssen nicht gelöscht werden.", "die Cookies löschen", "fine"),
        ("De cookies moeten worden verwijderd.", "de cookies verwijderen", "violation"),
        ("Das Modem muss ausgeschaltet werden.", "das Modem ausschalten", "violation"),
        ("De klant vraagt of hij de cookies moet verwijderen.", "de cookies verwijderen", "fine"),
        # a subject whose predicate says it means losing something warns
        ("Borrar las cookies implica perder las sesiones.", "borrar las cookies", "fine"),
        ("Apagar as cookies significa perder as sessões.", "apagar as cookies", "fine"),
        # a "please" between two commas cuts no clause
        ("Apague, por favor, as cookies.", "apagar as cookies", "violation"),
        ("Usuń, proszę, pliki cookie.", "usunąć pliki cookie", "violation"),
        ("Não apague, por favor, as cookies.", "apagar as cookies", "fine"),
        # a condition whose main clause says it would solve it advises it
        ("Si vous effaciez les cookies, le problème serait réglé.", "effacer les cookies", "violation"),
        ("Se cancellasse i cookie, risolverebbe tutto.", "cancellare i cookie", "violation"),
        ("Si borrara las cookies, no se solucionaría nada.", "borrar las cookies", "fine"),
        ("If you were to clear the cookies, every session would stop working.", "clear the cookies", "fine"),
        # Dutch "lost ... op" solves
        ("De geschiedenis wissen lost dit meestal op.", "de geschiedenis wissen", "violation"),
        ("De geschiedenis wissen lost het probleem niet op.", "de geschiedenis wissen", "fine"),
    ],
)
def test_the_seventh_rounds_classes_are_read(text: str, phrase: str, expected: str) -> None:
    """Each class of the seventh round, with other actions and wording than the tuning part's rows: a
    forbidden sentence is never read fine (it blocks, as a violation or uncertain)."""
    assert outcome_of(text, phrase) == expected


@pytest.mark.parametrize(
    ("word", "infinitive", "language"),
    [
        ("borraría", "borrar", "es"),
        ("desactivaríamos", "desactivar", "es"),
        ("borrado", "borrar", "es"),
        ("scollegasse", "scollegare", "it"),
        ("cancelling", "cancel", "en"),
        ("gelöscht", "löschen", "de"),
        ("ausgeschaltet", "ausschalten", "de"),
        ("zurückgesetzt", "zurücksetzen", "de"),
        ("overgedragen", "overdragen", "nl"),
        ("travelled", "travel", "en"),
        ("eliminassi", "eliminare", "it"),
    ],
)
def test_a_conditional_participle_or_subjunctive_keys_as_its_infinitive(
    word: str, infinitive: str, language: str
) -> None:
    key = stem if language == "en" else partial(foreign_stem, language=language)
    assert key(word) == key(infinitive)


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-r7.yaml: its first batch 147/186 = 79.0% at its first reading (13 false negatives), 184/186
    after the round's rules (no false negative); its second 70/80 = 87.5% at its first reading (9 false
    negatives), 79/80 after (one: a Polish verbal noun, "bez usunięcia", which keys apart from its verb).
    The floor leaves room for a change elsewhere, not for more forbidden rows to pass."""
    found = read_tuning_part("tuning-r7.yaml")
    assert found.accuracy >= 0.95
    assert found.missed <= 1
    for language, oks in found.right.items():
        assert sum(oks) / len(oks) >= 0.9, language
