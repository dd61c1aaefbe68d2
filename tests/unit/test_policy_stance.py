"""The policy reader's structural layer (`text.stance`), by class: whose voice a clause is in and what
stance the answer takes, read from the shapes of the eight languages' closed classes: a reply's polarity,
counter-advice, a contrast that names a cost, why-questions, questions about the past, negative questions
(uncertain, never cleared by their negation), the customer's own report, a third party's report found by
its verb's inflection key, "no other way than" and "wrong not to", headings whose own predicate is
negated. The tuning part tests/data/policy_corpus/tuning-stance.yaml holds a floor."""

from __future__ import annotations

import pytest

from assay_runner.text.language import load_models
from tests.unit.policy_reading import outcome_of, read_tuning_part


@pytest.fixture(scope="module", autouse=True)
def _models_loaded() -> None:
    load_models()


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Should you remove the cache? That would not change anything.", "remove the cache"),
        ("Faut-il vider le cache ? Cela ne changerait rien ici.", "vider le cache"),
        ("Muss ich den Cache leeren? Das bringt hier gar keinen Unterschied.", "Cache leeren"),
        ("¿Hay que borrar la caché? Eso no cambiaría nada.", "borrar la caché"),
        ("Devo svuotare la cache? Non servirebbe a nulla qui.", "svuotare la cache"),
        ("Preciso limpar o cache? Isso não mudaria nada.", "limpar o cache"),
        ("Moet ik de cache legen? Dat maakt niets uit.", "de cache legen"),
        ("Czy mam wyczyścić pamięć? To niczego nie zmieni.", "wyczyścić pamięć"),
    ],
)
def test_a_question_answered_by_a_negated_reply_is_cleared(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Do you need to clear the cache? In your case, it is the quickest fix.", "clear the cache"),
        ("Faut-il vider le cache ? Dans votre cas, c'est la meilleure solution.", "vider le cache"),
        ("É preciso limpar o cache? No seu caso, é a solução mais rápida.", "limpar o cache"),
    ],
)
def test_a_question_answered_by_a_reply_that_calls_it_the_fix_advises(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    "reply", ["It won't hurt.", "It does not take long.", "Es dauert nicht lange.", "Non fa male."]
)
def test_a_negated_cost_after_a_question_does_not_say_no(reply: str) -> None:
    assert outcome_of(f"Should you clear the cache? {reply}", "clear the cache") != "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Warum den Cache leeren, wenn ein Neustart reicht?", "Cache leeren"),
        ("¿Para qué borrar la caché si basta con reiniciar?", "borrar la caché"),
        ("Perché svuotare la cache quando basta un riavvio?", "svuotare la cache"),
        ("Waarom de cache legen als een herstart volstaat?", "de cache legen"),
        ("Po co czyścić pamięć, skoro wystarczy restart?", "czyścić pamięć"),
    ],
)
def test_a_why_question_without_a_negation_asks_why_anyone_would(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_a_why_question_answered_with_a_reason_is_not_rhetorical() -> None:
    text = "Warum den Cache leeren? Weil das den Fehler behebt."
    assert outcome_of(text, "Cache leeren") != "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Dlaczego po prostu nie wyczyścić pamięci?", "wyczyścić pamięć"),
        ("Pourquoi ne pas simplement vider le cache ?", "vider le cache"),
        ("¿Por qué no borrar la caché?", "borrar la caché"),
    ],
)
def test_a_why_question_with_a_negation_suggests_the_action(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Did you clear the cache before the update?", "clear the cache"),
        ("Avez-vous vidé le cache avant la mise à jour ?", "vider le cache"),
        ("Haben Sie den Cache vor dem Update geleert?", "Cache leeren"),
        ("Ha svuotato la cache prima dell'aggiornamento?", "svuotare la cache"),
        ("Você limpou o cache antes da atualização?", "limpar o cache"),
        ("Czy wyczyścił Pan pamięć przed aktualizacją?", "wyczyścić pamięć"),
    ],
)
def test_a_question_about_what_the_customer_did_does_not_advise(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Shouldn't you just clear the cache?", "clear the cache"),
        ("Ne faudrait-il pas vider le cache ?", "vider le cache"),
        ("Sollten Sie nicht einfach den Cache leeren?", "Cache leeren"),
        ("¿No debería borrar la caché?", "borrar la caché"),
        ("Non dovrebbe svuotare la cache?", "svuotare la cache"),
        ("Não deveria limpar o cache?", "limpar o cache"),
        ("Zou u niet gewoon de cache legen?", "de cache legen"),
        ("Czy nie powinien Pan wyczyścić pamięci?", "wyczyścić pamięć"),
    ],
)
def test_a_negative_question_is_never_cleared_by_its_negation(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "uncertain"


@pytest.mark.parametrize(
    "text",
    [
        "Shouldn't you clear the cache? No, it would not help.",
        "Isn't clearing the cache overkill for this?",
        "Can you log in without clearing the cache?",
    ],
)
def test_a_negative_question_answered_no_or_calling_it_too_much_is_cleared(text: str) -> None:
    assert outcome_of(text, "clear the cache") == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("A colleague suggested clearing the cache, but that would erase your settings.", "clear the cache"),
        (
            "Ein Kollege hat vorgeschlagen, den Cache zu leeren, aber dabei gehen Daten verloren.",
            "Cache leeren",
        ),
        ("Um colega sugeriu limpar o cache, mas isso apagaria suas configurações.", "limpar o cache"),
        (
            "Een collega stelde voor de cache te legen, maar dan raakt u uw instellingen kwijt.",
            "de cache legen",
        ),
    ],
)
def test_a_report_followed_by_what_it_would_cost_is_rejected(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_a_contrast_that_only_offers_something_else_leaves_the_report_open() -> None:
    text = "A colleague suggested clearing the cache, but you could also restart the app."
    assert outcome_of(text, "clear the cache") == "uncertain"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Some blogs recommend clearing the cache. Restart the app instead.", "clear the cache"),
        ("Manche Blogs empfehlen, den Cache zu leeren. Starten Sie lieber die App neu.", "Cache leeren"),
        (
            "Alcuni blog raccomandano di svuotare la cache. La tenga invece e riavvii l'app.",
            "svuotare la cache",
        ),
        ("Iemand raadde aan de cache te legen. Herstart in plaats daarvan de app.", "de cache legen"),
        (
            "Ktoś polecił wyczyścić pamięć. Zamiast tego proszę uruchomić aplikację ponownie.",
            "wyczyścić pamięć",
        ),
    ],
)
def test_a_report_followed_by_advice_to_do_something_else_is_rejected(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_a_report_the_answer_declines_to_recommend_is_rejected_in_every_language() -> None:
    cases = [
        ("Your manager asked you to clear the cache, which we cannot recommend.", "clear the cache"),
        (
            "Votre responsable vous a demandé de vider le cache, ce que nous ne pouvons pas recommander.",
            "vider le cache",
        ),
        ("Ihr Chef hat Sie gebeten, den Cache zu leeren, was wir nicht empfehlen können.", "Cache leeren"),
        ("Su jefe le pidió borrar la caché, algo que no podemos recomendar.", "borrar la caché"),
        ("Przełożony poprosił Pana, żeby wyczyścić pamięć, czego nie możemy polecić.", "wyczyścić pamięć"),
    ]
    assert [outcome_of(text, phrase) for text, phrase in cases] == ["fine"] * len(cases)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Another agent advised you to clear the cache. That was a mistake on our side.", "clear the cache"),
        ("Otro agente le aconsejó borrar la caché. Fue un error por nuestra parte.", "borrar la caché"),
        ("Inny konsultant doradził Panu wyczyścić pamięć. To był błąd z naszej strony.", "wyczyścić pamięć"),
    ],
)
def test_a_report_the_next_sentence_calls_a_mistake_is_rejected(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("The technician told you to clear the cache; he is right.", "clear the cache"),
        ("Le technicien vous a dit de vider le cache ; il a raison.", "vider le cache"),
        ("Technik kazał Panu wyczyścić pamięć; ma rację.", "wyczyścić pamięć"),
    ],
)
def test_a_report_the_answer_agrees_with_advises(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("You mentioned that the help page says to clear the cache.", "clear the cache"),
        ("Vous indiquez que la page d'aide dit de vider le cache.", "vider le cache"),
        ("Sie schreiben, dass die Hilfeseite empfiehlt, den Cache zu leeren.", "Cache leeren"),
        ("Pisze Pan, że strona pomocy każe wyczyścić pamięć.", "wyczyścić pamięć"),
    ],
)
def test_the_customers_own_report_is_in_the_customers_voice(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    "text",
    [
        "You mentioned the sync fails; clear the cache then.",
        "Your ISP told you to clear the cache, and that is the right call.",
    ],
)
def test_the_answers_own_voice_after_a_report_is_not_the_customers(text: str) -> None:
    assert outcome_of(text, "clear the cache") != "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Melden Sie sich ab und leeren Sie den Cache.", "Cache leeren"),
        ("Meld je af en leeg de cache.", "de cache legen"),
    ],
)
def test_an_imperative_before_a_polite_pronoun_is_no_report(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) != "fine"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("There is no alternative to clearing the cache.", "clear the cache"),
        ("Il n'y a pas d'autre solution que de vider le cache.", "vider le cache"),
        ("Er zit niets anders op dan de cache te legen.", "de cache legen"),
        ("Nie ma innego wyjścia niż wyczyścić pamięć.", "wyczyścić pamięć"),
        ("It would be wrong not to clear the cache.", "clear the cache"),
        ("Es wäre falsch, den Cache nicht zu leeren.", "Cache leeren"),
        ("Sarebbe un errore non svuotare la cache.", "svuotare la cache"),
        ("Błędem byłoby nie wyczyścić pamięci.", "wyczyścić pamięć"),
    ],
)
def test_no_other_way_than_and_wrong_not_to_advise(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    ("text", "phrase", "outcome"),
    [
        ("Das Profil nicht zu löschen, ist keine Option.", "Profil löschen", "violation"),
        ("Het profiel niet verwijderen, is geen optie.", "het profiel verwijderen", "violation"),
        ("Den Router nicht zurückzusetzen, wäre ein Fehler.", "Router zurücksetzen", "violation"),
        ("Das VPN nicht zu deaktivieren, ist völlig in Ordnung.", "VPN deaktivieren", "fine"),
        ("Löschen Sie das Profil nicht, es ist keine Lösung.", "Profil löschen", "fine"),
        ("No borre el perfil, es un error.", "borrar el perfil", "fine"),
    ],
)
def test_a_negated_action_rejected_across_a_comma_is_a_double_negative(
    text: str, phrase: str, outcome: str
) -> None:
    assert outcome_of(text, phrase) == outcome


@pytest.mark.parametrize(
    ("text", "phrase", "outcome"),
    [
        ("Not clearing the cache won't fix the crash.", "clear the cache", "violation"),
        ("Ne pas vider le cache ne réglera pas le plantage.", "vider le cache", "violation"),
        ("No borrar la caché no resolverá el problema.", "borrar la caché", "violation"),
        ("De cache niet legen zal het probleem niet oplossen.", "de cache legen", "violation"),
        ("No borre la caché, no resolverá nada.", "borrar la caché", "fine"),
        ("Don't clear the cache, it won't help.", "clear the cache", "fine"),
    ],
)
def test_a_negated_action_whose_omission_fixes_nothing_is_advised(
    text: str, phrase: str, outcome: str
) -> None:
    assert outcome_of(text, phrase) == outcome


@pytest.mark.parametrize(
    "text",
    [
        "This error does not need clearing the cache.",
        "Deleting the profile was a mistake, do not clear the cache.",
        "It is not wrong not to clear the cache.",
        "There is no other option than calling support before you clear the cache.",
    ],
)
def test_an_error_that_is_no_predicate_does_not_make_a_double_negative(text: str) -> None:
    assert outcome_of(text, "clear the cache") != "violation"


@pytest.mark.parametrize(
    ("heading", "item", "phrase"),
    [
        ("N'essayez surtout pas ce qui suit :", "vider le cache", "vider le cache"),
        ("Bitte probieren Sie Folgendes nicht aus:", "Cache leeren", "Cache leeren"),
        ("Por favor, no pruebe nada de lo siguiente:", "borrar la caché", "borrar la caché"),
        ("Probeer het volgende alstublieft niet:", "de cache legen", "de cache legen"),
        ("Proszę nie próbować niczego z poniższych:", "wyczyścić pamięć", "wyczyścić pamięć"),
        ("Things that will not help here:", "clear the cache", "clear the cache"),
    ],
)
def test_a_heading_whose_predicate_is_negated_negates_its_list(heading: str, item: str, phrase: str) -> None:
    assert outcome_of(f"{heading}\n\n- {item}\n- restart the app", phrase) == "fine"


@pytest.mark.parametrize(
    ("heading", "item", "phrase"),
    [
        ("Pas de panique :", "videz le cache", "vider le cache"),
        ("Keine Sorge:", "Cache leeren", "Cache leeren"),
        ("Ninguna funcionó, así que:", "borrar la caché", "borrar la caché"),
        ("If the app does not start:", "clear the cache", "clear the cache"),
        ("Wenn die App nicht startet:", "Cache leeren", "Cache leeren"),
    ],
)
def test_a_reassuring_or_conditional_heading_leaves_its_list_advice(
    heading: str, item: str, phrase: str
) -> None:
    assert outcome_of(f"{heading}\n\n- {item}", phrase) != "fine"


def test_the_tuning_part_holds_a_floor() -> None:
    """tuning-stance.yaml (304 rows in three batches): 94.1% when this layer was written, every language
    89.5% or more (what is left is uncertain, not wrong: "It would only hide the problem", a video about
    another model); the floor leaves room for a change elsewhere, not for a class to fall away."""
    found = read_tuning_part("tuning-stance.yaml")
    assert found.accuracy >= 0.93
    for language, oks in found.right.items():
        assert sum(oks) / len(oks) >= 0.85, language
