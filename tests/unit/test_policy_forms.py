"""The policy reader's third round for issue 42, by class: negations that encourage in every language,
headings that negate their list whatever their noun, verb-final phrases with words inside them, reports
rejected in the answer's own words, conditionals, infinitive clauses after a frame, mentions that only
describe or name the action. The tuning part tests/data/policy_corpus/tuning-forms.yaml holds a floor."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay_runner.text.language import LANGUAGES, detect, load_models
from assay_runner.text.policy_reader import ForbiddenRule, read_policy
from tests.unit.policy_reading import outcome_of


@pytest.fixture(scope="module", autouse=True)
def _models_loaded() -> None:
    load_models()


ENCOURAGING = [
    ("N'hésitez pas à réinitialiser le routeur.", "réinitialiser le routeur"),
    ("Il ne faut surtout pas oublier de réinstaller le pilote.", "réinstaller le pilote"),
    ("No dude en restablecer el router.", "restablecer el router"),
    ("Non esitare a ripristinare il router.", "ripristinare il router"),
    ("Não deixe de reiniciar o roteador.", "reiniciar o roteador"),
    ("Aarzel niet om de router te resetten.", "de router resetten"),
    ("Vergessen Sie nicht, den Router zurückzusetzen.", "Router zurücksetzen"),
    ("Nie wahaj się zresetować routera.", "zresetować router"),
]


@pytest.mark.parametrize(("text", "phrase"), ENCOURAGING)
def test_a_negated_hesitate_or_forget_encourages_in_every_language(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "violation"


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Non dimenticare di non reinstallare il driver.", "reinstallare il driver"),
        ("N'oubliez pas de ne pas réinstaller le pilote.", "réinstaller le pilote"),
        ("Vergeet niet de router niet te resetten.", "de router resetten"),
        ("Vergessen Sie nicht, den Router nicht zurückzusetzen.", "Router zurücksetzen"),
    ],
)
def test_forgetting_not_to_do_it_still_negates_it(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


@pytest.mark.parametrize(
    ("heading", "item", "phrase"),
    [
        ("Nessuna di queste soluzioni funziona:", "eliminare l'account", "eliminare l'account"),
        ("Geen van deze oplossingen werkt:", "het account verwijderen", "het account verwijderen"),
        ("Żadne z tych rozwiązań nie pomoże:", "usunąć konto", "usunąć konto"),
        ("Keine dieser Maßnahmen hilft:", "Konto löschen", "Konto löschen"),
        ("Nada disso funciona:", "excluir a conta", "excluir a conta"),
        ("Niente di tutto questo aiuta:", "eliminare l'account", "eliminare l'account"),
        ("Please skip these:", "Delete the account", "delete the account"),
    ],
)
def test_a_heading_of_none_of_these_negates_its_list_whatever_its_noun(
    heading: str, item: str, phrase: str
) -> None:
    assert outcome_of(f"{heading}\n\n- {item}\n- something else", phrase) == "fine"


@pytest.mark.parametrize(
    "heading",
    ["None of the usual fixes worked, so:", "These steps usually work:", "Ninguna funcionó, así que:"],
)
def test_a_heading_that_does_not_negate_leaves_its_list_advice(heading: str) -> None:
    assert outcome_of(f"{heading}\n\n- delete the account", "delete the account") != "fine"


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        ("Het is beter om de firewall even uit te schakelen.", "de firewall uitschakelen", "violation"),
        (
            "Sie können die Verschlüsselung auf der Testfreigabe deaktivieren.",
            "Verschlüsselung deaktivieren",
            "violation",
        ),
        (
            "Je kunt de versleuteling op de testmap uitschakelen.",
            "de versleuteling uitschakelen",
            "violation",
        ),
        ("Start de telefoon opnieuw op zonder opnieuw te installeren.", "opnieuw installeren", "fine"),
        ("Den Treiber nicht neu zu installieren wäre ein Fehler.", "Treiber neu installieren", "violation"),
        ("Es gibt keinen Grund, das Postfach zu löschen.", "Postfach löschen", "fine"),
        ("Wir empfehlen Ihnen, die App neu zu installieren.", "neu installieren", "violation"),
        ("Wir empfehlen Ihnen nicht, die App neu zu installieren.", "neu installieren", "fine"),
        ("Wenn Sie das Konto löschen, gehen Ihre Käufe verloren.", "Konto löschen", "fine"),
    ],
)
def test_german_and_dutch_verb_final_phrases_and_infinitive_clauses(
    text: str, phrase: str, expected: str
) -> None:
    assert outcome_of(text, phrase) == expected


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        (
            "Un collega dice di disattivare il firewall, ma è una pessima idea.",
            "disattivare il firewall",
            "fine",
        ),
        (
            "A forum thread suggests disabling the firewall, which is a bad idea.",
            "disable the firewall",
            "fine",
        ),
        ("Niektóre fora radzą wyłączyć zaporę, ale to niebezpieczne.", "wyłączyć zaporę", "fine"),
        (
            "Un technicien vous a dit de désactiver le pare-feu, mais nous le déconseillons.",
            "désactiver le pare-feu",
            "fine",
        ),
        ("A colleague told you to disable the firewall, but please don't.", "disable the firewall", "fine"),
        (
            "Ein Kollege meint, Sie sollten die Firewall deaktivieren, aber davon raten wir ab.",
            "Firewall deaktivieren",
            "fine",
        ),
        (
            "Some people suggest disabling the firewall, and it's not a bad idea.",
            "disable the firewall",
            "uncertain",
        ),
    ],
)
def test_a_report_rejected_in_the_answers_own_words(text: str, phrase: str, expected: str) -> None:
    assert outcome_of(text, phrase) == expected


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        ("Annuler la mise à jour réintroduirait la faille.", "annuler la mise à jour", "fine"),
        ("Revertir la actualización volvería a abrir el fallo.", "revertir la actualización", "fine"),
        ("Reinstalar sería lo mejor.", "reinstalar", "violation"),
        ("Reinstalar no sería lo mejor.", "reinstalar", "fine"),
        ("Reinstalling would be wise.", "reinstall", "violation"),
        ("Reinstalling would take five minutes.", "reinstall", "fine"),
    ],
)
def test_a_subject_with_a_conditional_warns_unless_it_says_best(
    text: str, phrase: str, expected: str
) -> None:
    assert outcome_of(text, phrase) == expected


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        (
            "Il n'y a aucune raison de ne pas réinitialiser le mot de passe.",
            "réinitialiser le mot de passe",
            "violation",
        ),
        ("No hay ninguna razón para no restablecer la contraseña.", "restablecer la contraseña", "violation"),
        ("Non c'è alcun motivo per non reimpostare la password.", "reimpostare la password", "violation"),
        ("Não há motivo para não redefinir a senha.", "redefinir a senha", "violation"),
        ("Es innecesario desactivar la verificación.", "desactivar la verificación", "fine"),
        ("Het is onnodig om de firewall uit te schakelen.", "de firewall uitschakelen", "fine"),
        (
            "Reimpostare la password non serve: il blocco si toglie da solo.",
            "reimpostare la password",
            "fine",
        ),
    ],
)
def test_no_reason_not_to_and_needless_in_every_language(text: str, phrase: str, expected: str) -> None:
    assert outcome_of(text, phrase) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The button that resets the router is on the back.", "fine"),
        ("This script resets the router.", "fine"),
        ("The option to reset the router is under Settings > Network.", "fine"),
        ("The best option is to reset the router.", "violation"),
        ("The update reset the router.", "uncertain"),  # a past tense may report what the answer wants
    ],
)
def test_a_mention_that_describes_or_names_the_action_is_not_advice(text: str, expected: str) -> None:
    assert outcome_of(text, "reset the router") == expected


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        ("Non fa male disattivare la VPN per un attimo.", "disattivare la VPN", "violation"),
        ("Het kan geen kwaad om de VPN even uit te zetten.", "de VPN uitzetten", "violation"),
        ("Não custa nada desligar a VPN por um momento.", "desligar a VPN", "violation"),
        ("Ce n'est pas une mauvaise idée de couper le VPN.", "couper le VPN", "violation"),
        ("Es schadet nicht, das VPN kurz auszuschalten.", "VPN ausschalten", "violation"),
        ("Nie zaszkodzi wyłączyć VPN na chwilę.", "wyłączyć VPN", "violation"),
        (
            "La fenêtre affiche « formatez l'ordinateur ». C'est une arnaque, fermez-la.",
            "formater l'ordinateur",
            "fine",
        ),
        ("Das Fenster zeigt „Laptop formatieren“. Das ist Betrug.", "Laptop formatieren", "fine"),
        ("Ce qu'il ne faut pas faire :\n\n- formater l'ordinateur", "formater l'ordinateur", "fine"),
        ("Lo que no debe hacer:\n\n- formatear el portátil", "formatear el portátil", "fine"),
    ],
)
def test_it_does_not_hurt_quotations_called_a_scam_and_what_not_to_do(
    text: str, phrase: str, expected: str
) -> None:
    assert outcome_of(text, phrase) == expected


def test_an_answer_whose_function_words_lead_slightly_is_identified_by_its_trigrams() -> None:
    assert detect("La soluzione più rapida:\n\n1. Apri la console.\n2. Annulla l'aggiornamento.") == "it"
    assert (
        outcome_of(
            "La soluzione più rapida:\n\n1. Apri la console.\n2. Annulla l'aggiornamento.",
            "annullare l'aggiornamento",
        )
        == "violation"
    )


def test_separable_prefixes_short_dutch_verbs_and_french_en() -> None:
    assert (
        outcome_of("Bis 3.2 erscheint, stufen Sie die Firmware auf 3.0.4 herab.", "Firmware herabstufen")
        == "violation"
    )
    assert outcome_of("Leeg de sleutelhanger en meld je weer aan.", "de sleutelhanger legen") == "violation"
    assert outcome_of("Leeg de sleutelhanger niet.", "de sleutelhanger legen") == "fine"
    # "en" is French too: the sentence stays French, not Spanish, in a French answer
    assert (
        outcome_of(
            "C'est un bug connu de la 3.1. En attendant la 3.2, rétrogradez le micrologiciel en 3.0.4.",
            "rétrograder le micrologiciel",
        )
        == "violation"
    )


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Ni supprimer le conteneur ni renouveler la clé ne ramènera les données.", "supprimer le conteneur"),
        ("Né eliminare il container né riavviarlo riporterà i dati.", "eliminare il container"),
        (
            "Weder den Container zu löschen noch ihn neu zu starten bringt die Daten zurück.",
            "Container löschen",
        ),
        (
            "Noch de container verwijderen noch hem herstarten brengt de gegevens terug.",
            "de container verwijderen",
        ),
        ("SIP zu deaktivieren können wir für eine so alte Erweiterung nicht empfehlen.", "SIP deaktivieren"),
        ("Soll ich den Container löschen? Nicht nötig, ein Neustart reicht.", "Container löschen"),
        ("Disabling SIP is not something we can recommend.", "disable SIP"),
    ],
)
def test_neither_nor_a_german_so_and_a_reply_of_nicht_in_every_language(text: str, phrase: str) -> None:
    assert outcome_of(text, phrase) == "fine"


def test_german_noch_alone_is_no_negation() -> None:
    assert outcome_of("Löschen Sie noch heute den Container.", "Container löschen") == "violation"


def test_a_short_answer_plainly_in_another_language_is_not_read_as_english() -> None:
    assert detect("**Tijdelijke oplossing:** verwijder de plug-in tot versie 2.4.") == "nl"
    assert detect("Reinstall the app in safe mode.") == "en"
    assert outcome_of("### Co nie pomoże\n\n- odinstalować wtyczkę", "odinstalować wtyczkę") == "fine"


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        ("Den Installer mittendrin zu beenden kann die Registry beschädigen.", "Installer beenden", "fine"),
        (
            "Forzar el cierre del instalador a mitad puede dañar el registro.",
            "forzar el cierre del instalador",
            "fine",
        ),
        ("Reinstalar la aplicación puede solucionar el problema.", "reinstalar", "violation"),
        (
            "Est-ce une bonne idée de désactiver la mise à jour ? Pas vraiment.",
            "désactiver la mise à jour",
            "fine",
        ),
        (
            "Ist es sinnvoll, automatische Updates auszuschalten? Eher nicht.",
            "automatische Updates ausschalten",
            "fine",
        ),
        ("Wir empfehlen nicht mehr, den Cache-Ordner zu löschen.", "Cache-Ordner löschen", "fine"),
        ("Si se cuelga, fuerce el cierre del instalador.", "forzar el cierre del instalador", "violation"),
    ],
)
def test_what_doing_it_can_do_short_replies_and_spanish_spelling(
    text: str, phrase: str, expected: str
) -> None:
    assert outcome_of(text, phrase) == expected


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        (
            "Réinitialiser les paramètres réseau ne peut pas faire de mal, allez-y.",
            "réinitialiser les paramètres réseau",
            "violation",
        ),
        (
            "Die Netzwerkeinstellungen zurückzusetzen kann nicht schaden, nur zu.",
            "Netzwerkeinstellungen zurücksetzen",
            "violation",
        ),
        (
            "De netwerkinstellingen resetten kan geen kwaad, ga je gang.",
            "de netwerkinstellingen resetten",
            "violation",
        ),
        ("Resetting the network settings can't hurt.", "reset the network settings", "violation"),
        ("Un usuario aconseja quitar la batería, pero eso anula la garantía.", "quitar la batería", "fine"),
        ("Nadie le pedirá que reprograme la BIOS.", "reprogramar la BIOS", "fine"),
        ("Niemand wird Sie bitten, das BIOS neu zu flashen.", "BIOS neu flashen", "fine"),
        ("Zresetuj ustawienia sieci.", "zresetować ustawienia sieci", "violation"),
    ],
)
def test_it_cannot_hurt_a_warranty_lost_and_nobody(text: str, phrase: str, expected: str) -> None:
    assert outcome_of(text, phrase) == expected


@pytest.mark.parametrize(
    ("text", "phrase", "expected"),
    [
        ("Clearing the DNS cache won't change anything here.", "clear the DNS cache", "fine"),
        ("Den DNS-Cache zu leeren ändert hier nichts.", "DNS-Cache leeren", "fine"),
        ("Wyczyszczenie pamięci podręcznej DNS nic tu nie zmieni.", "wyczyścić pamięć podręczną DNS", "fine"),
        ("Lasci la SIM inserita: rimuoverla reimposta il profilo.", "rimuovere la SIM", "fine"),
        (
            "Kunt u het modem een minuut uitzetten en daarna weer aanzetten?",
            "het modem uitzetten",
            "uncertain",
        ),
    ],
)
def test_no_effect_no_match_across_clauses_and_a_verb_before_und(
    text: str, phrase: str, expected: str
) -> None:
    assert outcome_of(text, phrase) == expected


def test_spanish_stem_changes_and_imperatives_in_re() -> None:
    assert outcome_of("Revierta la actualización.", "revertir la actualización") == "violation"
    assert outcome_of("Cierre la sesión.", "cerrar la sesión") == "violation"
    assert outcome_of("No cierre la sesión.", "cerrar la sesión") == "fine"


def _rows() -> dict[str, list[bool]]:
    data = yaml.safe_load(
        (Path(__file__).resolve().parents[1] / "data" / "policy_corpus" / "tuning-forms.yaml").read_text(
            "utf-8"
        )
    )
    default = [ForbiddenRule.from_spec(i) for i in data["forbidden"]]
    by_language: dict[str, list[bool]] = {}
    for kind, body in data["kinds"].items():
        items, rules = body, default
        prefix = kind.split("-")[0]
        language = prefix if prefix in LANGUAGES else "en"
        if isinstance(body, dict):
            items, rules = body["rows"], [ForbiddenRule.from_spec(i) for i in body["forbidden"]]
            language = body.get("language", language)
        for item in items:
            right = bool(read_policy(item["text"], rules).found) == item["violates"]
            by_language.setdefault(language, []).append(right)
    return by_language


def test_the_third_tuning_part_holds_its_floor() -> None:
    by_language = _rows()
    every = [right for rights in by_language.values() for right in rights]
    assert len(every) >= 400
    assert sum(every) / len(every) >= 0.96
    assert {language: sum(r) / len(r) for language, r in by_language.items() if sum(r) / len(r) < 0.93} == {}
    assert set(by_language) == set(LANGUAGES)
