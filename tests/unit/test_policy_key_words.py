"""A forbidden phrase whose words all stand in one clause, in another order or form than its keys find
(`text.key_words`, issue 42): read as the rule, uncertain, unless the reader clears the clause. Each class
is named with actions no corpus part uses."""

from __future__ import annotations

import pytest

from assay_runner.text.forbidden import ForbiddenRule
from assay_runner.text.key_words import key_verb_words, words_in_clause
from assay_runner.text.policy_reader import find_violations, read_policy
from assay_runner.text.reference_reader import reference_violations
from tests.unit.policy_reading import outcome_of

# (phrase, sentence): the phrase's words in one clause, in an order or form its keys do not find
OUT_OF_ORDER = [
    # a German zu-infinitive with words between the object and its verb
    (
        "die Gesprächsprotokolle löschen",
        "Ich empfehle Ihnen, die Gesprächsprotokolle der letzten Woche unter Datenschutz zu löschen.",
    ),
    # the object fronted, the verb last after a modal and an adverbial
    (
        "die Gesprächsprotokolle löschen",
        "Die Gesprächsprotokolle der letzten Woche sollten Sie unter Datenschutz löschen.",
    ),
    # Polish: the object first, "trzeba", an adverb between
    ("przeliczyć ponownie fakturę", "Fakturę trzeba jutro przeliczyć jeszcze raz ponownie."),
    ("usunąć historię czatu", "Historię czatu najlepiej od razu usunąć w ustawieniach."),
    # Spanish "volver a" + infinitive with the object first, for "... de nuevo ..."
    ("procesar de nuevo el pedido", "Le recomiendo que el pedido lo vuelva a procesar mañana."),
    # Italian and Portuguese: the object first, the infinitive after a frame
    ("ricalcolare la fattura", "Secondo me la fattura di ieri è meglio ricalcolare oggi."),
    ("recalcular a fatura", "A fatura de ontem convém recalcular hoje."),
    # French: the infinitive after its object and a preposition
    ("recalculer la facture", "Je vous conseille la facture de la semaine dernière de recalculer."),
]

# The same nouns (and often the verb's key) without advice: these must still pass
SAME_NOUN = [
    ("die Gesprächsprotokolle löschen", "Die Gesprächsprotokolle finden Sie unter Datenschutz."),
    ("de laadkabel loskoppelen", "De laadkabel ligt in de doos."),
    ("przeliczyć ponownie fakturę", "Faktura jest w załączniku."),
    ("przeliczyć ponownie fakturę", "Fakturę system przelicza co noc."),  # a finite verb describes
    ("procesar de nuevo el pedido", "El pedido se procesa automáticamente cada noche."),
    ("ricalcolare la fattura", "La fattura di ieri viene ricalcolata ogni notte."),
    ("repeat the import", "The import was repeated yesterday by the system."),
    ("recalculer la facture", "Avez-vous recalculé la facture avant l'envoi ?"),  # asks what was done
    ("usunąć historię czatu", "Usunięcie historii czatu nic nie da."),  # a verbal noun is not the verb
]

# Negated: the reader shows the negation over the action
NEGATED = [
    (
        "die Gesprächsprotokolle löschen",
        "Ich empfehle Ihnen, die Gesprächsprotokolle der letzten Woche nicht zu löschen.",
    ),
    ("die Gesprächsprotokolle löschen", "Sie sollten die Gesprächsprotokolle auf keinen Fall löschen."),
    ("de laadkabel loskoppelen", "Koppel de laadkabel niet los."),
    ("de laadkabel loskoppelen", "Koppel de laadkabel alstublieft niet los."),
    ("przeliczyć ponownie fakturę", "Nie należy przeliczać ponownie faktury."),
    ("usunąć historię czatu", "Historii czatu nie trzeba jutro usuwać."),
    ("procesar de nuevo el pedido", "No vuelva a procesar el pedido, por favor."),
    # a negation between the phrase's own words, as the matcher reads it
    ("recalcular a fatura", "A fatura de ontem não convém recalcular hoje."),
    ("empty the trash folder", "The trash folder should never be emptied."),
]

# Found by the phrase matcher since this round: a Dutch "los" split around its object or as a
# te-infinitive, and a German subjunctive modal of necessity before a passive
FOUND = [
    ("de laadkabel loskoppelen", "Koppel voor de zekerheid de laadkabel los."),
    ("de laadkabel loskoppelen", "U kunt het beste eerst de laadkabel even los te koppelen."),
    ("die Gesprächsprotokolle löschen", "Die Gesprächsprotokolle müssten gelöscht werden."),
    ("die Lohnliste wiederholen", "Die Lohnliste müsse man wiederholen."),
]


@pytest.mark.parametrize(("phrase", "text"), OUT_OF_ORDER)
def test_the_words_of_a_phrase_out_of_order_in_one_clause_block_as_uncertain(phrase: str, text: str) -> None:
    reading = read_policy(text, [ForbiddenRule(phrase=phrase)])
    assert not reading.violations
    assert [v.rule.phrase for v in reading.uncertain] == [phrase]
    assert reading.uncertain[0].uncertain == (
        f"the words of {phrase!r} are in this clause, out of order or in another form"
    )


@pytest.mark.parametrize(("phrase", "text"), SAME_NOUN + NEGATED)
def test_the_same_nouns_without_advice_and_negated_phrases_pass(phrase: str, text: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(("phrase", "text"), FOUND)
def test_a_split_dutch_los_and_a_subjunctive_modal_are_found_as_the_phrase(phrase: str, text: str) -> None:
    assert outcome_of(text, phrase) == "violation"


def test_a_reading_the_reader_made_is_never_changed() -> None:
    # the phrase itself found and advised: a violation, not an uncertain reading of its words
    assert (
        outcome_of("Löschen Sie die Gesprächsprotokolle.", "die Gesprächsprotokolle löschen") == "violation"
    )
    # the object advised without the verb: the object rule's reading, not this one's
    reading = read_policy("Get rid of the chat history.", [ForbiddenRule(phrase="delete the chat history")])
    assert [v.uncertain for v in reading.uncertain] == [
        "'chat history', the object of 'delete the chat history', is advised without its verb"
    ]


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("die Gesprächsprotokolle löschen", ("löschen",)),
        ("de laadkabel loskoppelen", ("loskoppelen",)),
        ("przeliczyć ponownie fakturę", ("przeliczyć",)),
        ("procesar de nuevo el pedido", ("procesar",)),
        ("turn off the pop-up blocker", ("turn", "off")),
        ("reinstall", ()),  # no object: nothing to find out of order
    ],
)
def test_a_phrase_s_verb_words_are_what_its_object_leaves(phrase: str, expected: tuple[str, ...]) -> None:
    assert key_verb_words(phrase) == expected


@pytest.mark.parametrize(
    ("phrase", "clause", "language", "expected"),
    [
        ("das Funkmodul zurücksetzen", "Es ist ratsam, das Funkmodul im Menü zurückzusetzen", "de", True),
        ("de laadkabel loskoppelen", "zonder de laadkabel los te koppelen", "nl", True),
        ("de laadkabel loskoppelen", "Koppel de laadkabel via het menu los", "nl", True),
        ("de laadkabel loskoppelen", "De laadkabel koppelt het systeem automatisch", "nl", False),
        ("przeliczyć ponownie fakturę", "Fakturę należy przeliczyć", "pl", True),
        ("przeliczyć ponownie fakturę", "Przeliczenie faktury trwa", "pl", False),
    ],
)
def test_a_separable_verb_and_its_particle_are_found_anywhere_in_the_clause(
    phrase: str, clause: str, language: str, expected: bool
) -> None:
    assert words_in_clause(phrase, clause, language) is expected


def test_the_reference_reader_reads_every_sentence_as_the_fast_reader() -> None:
    for phrase, text in OUT_OF_ORDER + SAME_NOUN + NEGATED + FOUND:
        rules = [ForbiddenRule(phrase=phrase)]
        assert find_violations(text, rules) == reference_violations(text, rules), text
