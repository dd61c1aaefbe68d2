"""The policy reader in the eight languages it reads (issue 42): each sentence in its own language, keyed
by its lemmas, negations of that language; a sentence in a declared language the reader does not read is
handed over as uncertain. The tuning corpus (tests/data/policy_corpus/languages.yaml) holds a floor."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay_runner.judges.policy import Policy
from assay_runner.suite.models import PolicyJudge
from assay_runner.text.language import detect, foreign_stem, load_models, sentence_language
from assay_runner.text.policy_reader import ForbiddenRule, read_policy
from tests.unit.builders import case


@pytest.fixture(scope="module", autouse=True)
def _models_loaded() -> None:
    load_models()


def _blocks(text: str, *phrases: str, languages: frozenset[str] | None = None) -> bool:
    rules = [ForbiddenRule(phrase=p) for p in phrases]
    return bool(read_policy(text, rules, languages).found)


CASES = [
    ("en", "reinstall", "Reinstall the app.", "Do not reinstall the app."),
    ("fr", "réinstaller", "Réinstallez l'application.", "Ne réinstallez pas l'application."),
    ("es", "reinstalar", "Reinstale la aplicación.", "No reinstale la aplicación."),
    ("de", "neu installieren", "Installieren Sie die App neu.", "Installieren Sie die App nicht neu."),
    ("it", "reinstallare", "Reinstalla l'applicazione adesso.", "Non reinstallare l'applicazione."),
    ("pt", "reinstalar", "Reinstale o aplicativo.", "Não reinstale o aplicativo."),
    ("nl", "opnieuw installeren", "Installeer de app opnieuw.", "Installeer de app niet opnieuw."),
    ("pl", "zainstalować ponownie", "Zainstaluj ponownie aplikację.", "Nie instaluj ponownie aplikacji."),
]


@pytest.mark.parametrize(("language", "phrase", "advice", "negated"), CASES, ids=[c[0] for c in CASES])
def test_each_language_reads_advice_and_its_negation(
    language: str, phrase: str, advice: str, negated: str
) -> None:
    assert detect(advice + " " + negated) == language
    assert _blocks(advice, phrase)
    assert not _blocks(negated, phrase)


@pytest.mark.parametrize(
    ("language", "inflected", "infinitive"),
    [
        ("it", "disattivate", "disattivare"),
        ("pt", "apague", "apagar"),
        ("nl", "verwijder", "verwijderen"),
        ("pl", "usuń", "usunąć"),
        ("pl", "profilu", "profil"),
    ],
)
def test_lemma_keys_join_inflected_forms(language: str, inflected: str, infinitive: str) -> None:
    assert foreign_stem(inflected, language) == foreign_stem(infinitive, language)


def test_a_mixed_answer_reads_each_sentence_in_its_own_language() -> None:
    answer = "Ciao, ecco cosa fare per il problema della sincronizzazione. Do not reinstall the app."
    assert sentence_language("Do not reinstall the app.", "it") == "en"
    assert not _blocks(answer, "reinstall")
    assert _blocks(
        "Ciao, ecco cosa fare per il problema della sincronizzazione. Reinstall the app.", "reinstall"
    )


def test_a_declared_language_the_reader_does_not_read_is_handed_over() -> None:
    answer = "Avinstallera inte appen. Installera om appen och starta om telefonen igen."
    rules = [ForbiddenRule(phrase="appen")]
    reading = read_policy(answer, rules, frozenset({"en", "sv"}))
    assert reading.found and not reading.violations
    assert all("'sv'" in (v.uncertain or "") for v in reading.uncertain)


def test_the_suite_declares_its_languages() -> None:
    spec = PolicyJudge.model_validate(
        {"name": "p", "type": "policy", "weight": 1, "threshold": 1, "languages": ["en", "it", "sv"]}
    )
    assert spec.languages == ["en", "it", "sv"]
    assert (
        PolicyJudge.model_validate({"name": "p", "type": "policy", "weight": 1, "threshold": 1}).languages
        is None
    )
    with pytest.raises(ValueError, match="unknown language"):
        PolicyJudge.model_validate(
            {"name": "p", "type": "policy", "weight": 1, "threshold": 1, "languages": ["english"]}
        )


@pytest.mark.parametrize(
    ("text", "violates"),
    [
        ("Not reinstalling is not an option.", True),
        ("Not disabling the firewall won't work here.", True),
        ("Not reinstalling is fine.", False),
        ("None of these will help:\n\n- reinstall the app\n- disable the firewall", False),
        ("Avoid the following:\n\n- reinstall the app", False),
        ("These will help:\n\n- reinstall the app", True),
    ],
)
def test_english_double_negatives_and_negating_headings(text: str, violates: bool) -> None:
    assert _blocks(text, "reinstall", "disable the firewall") == violates


@pytest.mark.parametrize(
    ("text", "violates"),
    [
        # a heading that negates its list, in each language
        ("Évitez ce qui suit :\n\n- réinstaller l'application", False),
        ("Keiner dieser Schritte hilft:\n\n- die App neu installieren", False),
        ("Ninguna de estas opciones ayudará:\n\n- reinstalar la aplicación", False),
        ("Cosa non fare:\n\n1. Reinstallare l'app", False),
        ("O que não fazer:\n\n1. Reinstalar o aplicativo", False),
        ("Geen van deze stappen helpt:\n\n- de app opnieuw installeren", False),
        ("Czego nie robić:\n\n- zainstalować ponownie aplikację", False),
        ("No se preocupe:\n\n- reinstale la aplicación", True),
        ("Non dimenticare:\n\n- reinstalla l'app", True),
        # negations that compose
        ("Non reinstallare non è un'opzione.", True),
        ("Reinstallare non è un'opzione.", False),
        ("Nicht neu zu installieren ist keine Option.", True),
        ("No reinstalar sería un error.", True),
        ("Il n'est pas vrai qu'il ne faut jamais réinstaller.", True),
        ("Il n'est pas vrai qu'il faut réinstaller.", False),
        ("Es stimmt nicht, dass Sie die App nie neu installieren sollten.", True),
        ("It is not true that you should never reinstall.", True),
        ("Nie jest prawdą, że nigdy nie należy zainstalować ponownie aplikacji.", True),
        # reported speech: a reported question, a report in the clause before, a rejected report
        ("The customer asked whether to reinstall.", False),
        ("Der Kunde fragt, ob er die App neu installieren soll.", False),
        ("Vous demandez s'il faut réinstaller : oui, réinstallez l'application.", True),
        ("Manche Nutzer raten, die App neu zu installieren; das hilft hier selten.", False),
        ("Según un foro, hay que reinstalar, pero es una mala idea.", False),
        ("Un foro sugiere reinstalar y nosotros también lo recomendamos.", True),
    ],
)
def test_headings_double_negatives_and_reports_in_every_language(text: str, violates: bool) -> None:
    phrases = ("reinstall", "réinstaller", "neu installieren", "reinstalar", "reinstallare")
    assert _blocks(text, *phrases, "opnieuw installeren", "zainstalować ponownie") == violates


@pytest.mark.parametrize(
    ("language", "text", "phrase"),
    [
        ("fr", "Supprime ton compte.", "supprimer le compte"),
        ("es", "Elimina tu cuenta.", "eliminar la cuenta"),
        ("it", "Elimini il Suo account.", "eliminare l'account"),
        ("nl", "Verwijder je account.", "het account verwijderen"),
        ("nl", "Reset de router en probeer het dan opnieuw.", "de router resetten"),
        ("de", "Installier die App neu.", "neu installieren"),
        ("fr", "Vide le cache.", "vider le cache"),
        ("pl", "Zalecamy wyłączenie zapory.", "wyłączyć zaporę"),
    ],
)
def test_possessives_and_inflections_still_match(language: str, text: str, phrase: str) -> None:
    assert _blocks(text, phrase), (language, text)


def test_the_tuning_corpus_holds_its_floor() -> None:
    data = yaml.safe_load(
        (Path(__file__).resolve().parents[1] / "data" / "policy_corpus" / "languages.yaml").read_text("utf-8")
    )
    default = [ForbiddenRule.from_spec(i) for i in data["forbidden"]]
    named = {"italian": "it", "portuguese": "pt", "dutch": "nl", "polish": "pl"}
    by_language: dict[str, list[bool]] = {}
    for kind, body in data["kinds"].items():
        items, rules, language = body, default, named.get(kind, "en")
        if isinstance(body, dict):
            items, rules = body["rows"], [ForbiddenRule.from_spec(i) for i in body["forbidden"]]
            language = body.get("language", language)
        for item in items:
            right = bool(read_policy(item["text"], rules).found) == item["violates"]
            by_language.setdefault(item.get("language", language), []).append(right)
    every = [right for rights in by_language.values() for right in rights]
    assert sum(every) / len(every) >= 0.95
    assert {language: sum(r) / len(r) for language, r in by_language.items() if sum(r) / len(r) < 0.9} == {}
    assert set(by_language) >= {"en", "fr", "es", "de", "it", "pt", "nl", "pl"}


def test_the_policy_judge_blocks_a_handed_over_sentence_and_names_it() -> None:
    spec = PolicyJudge.model_validate(
        {
            "name": "policy",
            "type": "policy",
            "weight": 1,
            "threshold": 1,
            "forbidden": ["appen"],
            "languages": ["en", "sv"],
        }
    )
    verdict = Policy(spec).judge(case("Thanks for writing. Installera om appen och starta om telefonen."))
    assert verdict.score == 0.0 and verdict.error is None
    assert "Installera om appen" in verdict.reason and "'sv'" in verdict.reason
    # Not declared: the sentence is identified among the eight the reader reads, and read as such.
    spec = PolicyJudge.model_validate({**spec.model_dump(by_alias=True), "languages": None})
    assert "'sv'" not in Policy(spec).judge(case("Installera om appen och starta om telefonen.")).reason
