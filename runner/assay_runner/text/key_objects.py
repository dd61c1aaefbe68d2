"""A forbidden phrase's object advised without its verb: the wording the keys never found.

Almost every forbidden sentence the reader let through in the seventh round held the phrase's object in
an instruction or advice, its action said with a verb the keys do not hold: "get rid of the printer
driver", "den Druckertreiber entfernen", "remettez le thermostat à zéro" for "uninstall the printer
driver", "den Druckertreiber deinstallieren", "réinitialiser le thermostat". Such a sentence must not
pass silently: when a clause advises the object of a phrase rule (its words, by key, in the sentence's
language) the way it would advise the phrase, and the phrase itself is not found in that sentence, the
reading is uncertain and says which rule's object was seen without its verb.

The object is the phrase without its verb: the first word and an English particle after it ("turn off
parental controls" -> "parental controls"), or the last word of a German or Dutch phrase, which puts its
verb last ("den Druckertreiber deinstallieren" -> "Druckertreiber"); leading articles and possessives
are dropped. The object is read as a rule of its own by the same reader (negation, reports, rejected or
hypothetical shapes, headings and warnings all apply), and a reading that advises it, or finds no shape,
or a question left open, is then held to the shape of advice about an action on the object
(`advised_object`): an advising head, then at most a few words (the unmatched verb, an adverb, "Sie",
"u"), then the object, and no state word after it. The advising head is one of the reader's advice
frames ("you should", "il faut", "am besten", "conviene", "warto"), a first-person conditional or "in
your place" ("I'd", "je remettrais", "yo pondría", "riporterei", "eu voltaria", "ik zou",
"przywróciłbym", "À votre place"), a polite question that asks for the action ("Could you", "Könnten
Sie", "Pourriez-vous", "Kunt u", "Czy mógłby pan"), or the head of the clause, which then opens with
its verb ("Remove the printer driver", "Löschen Sie den Druckertreiber", "Coupez le contrôle parental").
What it leaves out: the object as the subject ("The thermostat shows ..."), after "that/whether/ob/que/
czy" ("Check that the printer driver is current"), after a verb that keeps or inspects it ("Keep
parental controls enabled", "Prüfen Sie den Druckertreiber", "Warto zostawić ..."), followed by a word
of an enabled state, or further from its head ("Send me a photo of the thermostat display").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from assay_runner.text.advice.cues import _cues, _words
from assay_runner.text.advice.frames import _FRAME, _LEAD_IN
from assay_runner.text.advice.outcome import UNANSWERED, UNRECOGNISED
from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.head_words import fold, words_of
from assay_runner.text.language import sentence_language
from assay_runner.text.match import DETERMINERS, find_phrase, phrase_tokens, tokenize
from assay_runner.text.sentence_reading import phrase_languages
from assay_runner.text.tokens import looks_past

__all__ = ["advised_object", "key_object", "object_rules", "objects_advised"]

# A phrasal verb's particle right after its verb belongs to the verb ("turn off", "switch off").
_PARTICLES = frozenset({"off", "on", "up", "down", "out", "back", "over", "away"})
# Adverbs a phrase's verb takes beside it ("neu installieren", "opnieuw instellen", "zainstalować
# ponownie").
_VERB_ADVERBS = frozenset(
    {"neu", "erneut", "wieder", "opnieuw", "weer", "terug", "ponownie", "again", "nuevamente", "novamente"}
    | {"nuovamente", "nouveau", "de nouveau", "di nuovo", "de nuevo", "de novo"}
)
_DUTCH_GERMAN_ARTICLES = frozenset({"den", "die", "das", "dem", "de", "het", "een", "ein", "eine", "einen"})


def _verb_last(words: Sequence[str], phrase: str) -> bool:
    """Is the phrase written verb last, as German and Dutch write it: its last word an infinitive in
    "-en", "-ln" or "-rn", and its first an article, a capitalised noun, or the phrase read as German or
    Dutch?"""
    if not words[-1].casefold().endswith(("en", "ln", "rn")):  # "deaktivieren", "entkoppeln", "ändern"
        return False
    first = words[0]
    return (
        first.casefold() in _DUTCH_GERMAN_ARTICLES
        or first[:1].isupper()
        or phrase_languages(phrase)[:1] in (("de",), ("nl",))
    )


@lru_cache(maxsize=1024)
def key_object(phrase: str, longest_word: int = 4) -> str | None:
    """The object of a forbidden phrase (see the module), or None when the phrase has none left (a bare
    verb, "reinstall") or keeps only words shorter than `longest_word` (as a rule of its own, "the hot
    tub" would find every "hot")."""
    words = phrase.split()
    if len(words) < 2 or not phrase_tokens(" ".join(words[1:])):
        return None
    if _verb_last(words, phrase):
        rest = words[:-1]  # German and Dutch phrases are written verb last
        while rest and rest[-1].casefold() in _VERB_ADVERBS:
            rest = rest[:-1]  # "neu installieren", "opnieuw installeren": the adverb is the verb's
    elif words[0].casefold() in DETERMINERS or looks_past(words[0]):
        return None  # no verb first: a noun phrase ("the firewall") or a participle ("guaranteed refund")
    else:
        rest = words[1:]
        while rest and (rest[0].casefold() in _PARTICLES or rest[0].casefold() in _VERB_ADVERBS):
            rest = rest[1:]  # "turn off", "zainstalować ponownie"
        if " ".join(rest[:2]).casefold() in _VERB_ADVERBS:
            rest = rest[2:]  # "procesar de nuevo el pedido"
    while rest and rest[0].casefold() in DETERMINERS:
        rest = rest[1:]
    if not rest or max(len(t.text) for t in phrase_tokens(" ".join(rest))) < longest_word:
        return None
    return " ".join(rest)


def _phrase_found(phrase: str, clause: str) -> bool:
    """Is the phrase itself in the clause, with the keys of a language it may be written in?"""
    return any(
        find_phrase(tokenize(clause, language), phrase, language)
        for language in dict.fromkeys(("en", *phrase_languages(phrase)))
    )


def object_rules(rules: Sequence[ForbiddenRule]) -> dict[ForbiddenRule, ForbiddenRule]:
    """Each phrase rule's object rule (`key_object`), mapped back to the rule it came from."""
    objects: dict[ForbiddenRule, ForbiddenRule] = {}
    for rule in rules:
        if rule.phrase is not None and (found := key_object(rule.phrase)) is not None:
            objects.setdefault(ForbiddenRule(phrase=found, allow_negated=rule.allow_negated), rule)
    return objects


def objects_advised(
    found: Sequence[Violation], object_found: Sequence[Violation], objects: dict[ForbiddenRule, ForbiddenRule]
) -> list[Violation]:
    """The uncertain readings the object rules add: a clause that plainly advises a rule's object in a
    sentence where the rule itself was not found (nor read uncertain), one per rule and sentence."""
    seen = {(v.rule, v.sentence_index) for v in found}
    added: list[Violation] = []
    for violation in object_found:
        rule = objects[violation.rule]
        if (rule, violation.sentence_index) in seen:
            continue
        if rule.phrase is not None and _phrase_found(rule.phrase, violation.clause):
            continue  # the phrase is there, and its reading is the reader's (a warning, a negation)
        if violation.uncertain not in (None, UNRECOGNISED, UNANSWERED):
            continue  # negated, rejected, reported, hypothetical: the reader has read it
        if not advised_object(violation.clause, violation.match, violation.uncertain == UNANSWERED):
            continue
        seen.add((rule, violation.sentence_index))
        added.append(
            replace(
                violation,
                rule=rule,
                uncertain=f"{violation.match!r}, the object of {rule.display!r}, is advised without its verb",
            )
        )
    return added


# Advising heads beyond the reader's advice frames: a first-person conditional and "in your place", a
# polite question that asks for the action, "best to".
_HEADS = _cues(
    r"\b(?:i'd|i would|best to|could you|would you|can you|will you)\b",
    r"\b(?:je \w+rais|à votre place|le mieux est de|le mieux serait de|pourriez-vous|pouvez-vous)\b",
    r"\b(?:ich würde|würde ich|an ihrer stelle|könnten sie|können sie|würden sie)\b",
    r"\b(?:yo \w+ría|en su lugar|lo mejor es|lo mejor sería|podría|podrías)\b",
    r"\b(?:\w{3,}rei|al suo posto|la cosa migliore è|la cosa migliore sarebbe|potrebbe|potresti|dovrebbe)\b",
    r"\b(?:eu \w+ria|no seu lugar|o melhor é|o melhor seria|poderia|poderias)\b",
    r"\b(?:ik zou|zou ik|het beste|in uw plaats|als ik u was|kunt u|zou u|wilt u)\b",
    r"\b(?:\w+(?:łbym|łabym)|na pana miejscu|na pani miejscu|"
    r"czy (?:mógłby|mogłaby|może|możesz|mógłbyś|mogłabyś)(?: pan| pani)?)\b",
)
# A polite question's head: only these make a question left open ask for the action.
_ASKING = _cues(
    r"\b(?:could|would|can|will) you\b|\b(?:könnten|können|würden) sie\b|\b(?:pourriez|pouvez)-vous\b",
    r"\bpodrías?\b|\bpotrebbe\b|\bpotresti\b|\bpoderias?\b|\b(?:kunt|zou|wilt) u\b",
    r"\bczy (?:mógłby|mogłaby|może|możesz|mógłbyś|mogłabyś)\b",
    # polite requests put as questions: would you mind, is it possible, would you be so kind
    r"\bwould you mind\b|\bany chance you\b|\b(?:is|would) it be possible\b|\bis it possible for you\b",
    r"\b(?:vous|ça vous|cela vous) (?:dérangerait|ennuierait)\b|\bvous pourriez\b",
    r"\b(?:vous )?serait-il possible\b",
    r"\bwären sie so\b|\bbesteht die möglichkeit\b|\b(?:wäre|ist) es möglich\b|\bkönntest du\b",
    r"\b(?:le|te|les) importaría\b|\bsería (?:tan amable|posible)\b|\bhabría (?:forma|manera)\b",
    r"\b(?:le|ti|vi) dispiacerebbe\b|\briesc[ei] a\b|\bsarebbe possibile\b",
    r"\bimporta-se de\b|\bconsegue\b|\bseria possível\b",
    r"\blukt het (?:u|je|jou|jullie)\b|\bis het mogelijk\b|\bzou (?:je|jij|jullie)\b",
    r"\bczy (?:dałoby się|da się|byłaby pani|byłby pan|mógłbyś|moglibyście)\b",
)
# Words that may stand between the head and the object beside the verb: a polite pronoun, an adverb.
_BESIDE_VERB = _words(
    """sie u vous usted lei você pan pani please bitte alstublieft proszę completely fully entirely just
    simply first now briefly quickly komplett ganz vollständig kurz einfach erst helemaal even gewoon eerst
    complètement entièrement simplement d'abord completamente completo tutto subito simplemente
    całkowicie całkiem najpierw"""
)
# A clause that opens with one of these does not open with its verb.
_NOT_A_VERB = DETERMINERS | _words(
    """i we you he she it they there this these those that ich wir du er es sie man je nous il elle on ils
    elles yo nosotros él ella io noi lui lei eu nós ele ela ik wij we hij zij ze het men ja my on ona oni
    pana pani państwa such as for with in on at by from to of about like via für mit von zu pour avec dans
    par para con en por per da com em voor met van naar dla z w na do"""
)
# The object's head is not advised through these: "that", "whether" and their like open a clause of
# their own ("Check that the printer driver is current").
_SUBORDINATORS = _words(
    """that whether if dass ob que qu' si che se of dat czy że żeby aby sure ensure until till before after
    when once while since because bis bevor nachdem während weil wenn sobald jusqu quand lorsque avant
    après parce hasta cuando antes después porque mientras finché quando prima dopo perché mentre até
    depois enquanto tot voordat nadat omdat terwijl wanneer zodra aż zanim kiedy gdy bo ponieważ"""
)
# A preposition right before the object: it is not the verb's object ("Wait for the device", "Look at
# the router's lights", "Gehen Sie zu ...").
_PREPOSITIONS = _words(
    """for at to on with from into in about onto towards für auf mit zu bei nach über um à au aux sur avec
    pour vers chez en con para por sobre hacia per su da verso com em ao voor met op naar bij dla ze na
    do przy od"""
)
# Verbs that keep or inspect the object, not act on it (by the start of the word).
_KEEPING = re.compile(
    r"(?:keep|leav|let|check|verif|inspect|test|lass|laat|late|behalt|prüf|überprüf|kontroll|controle|"
    r"gard|laiss|vérif|manten|mantén|manter|deja|deix|compru|comprob|revis|tene|tien|lasci|controll|"
    r"confir|zostaw|pozostaw|sprawd|dej|restart|reboot|start|uruchom|redémarr|reinici|riavvi|herstart|"
    r"neustart|update|aktualisier|bijwerk|actualis|aggiorn|atualiz|zaktualizuj)"
)
# A negation between the head and the object ("Avoid deleting the profile", "sans supprimer le ...").
_NEGATIONS = _words(
    """not never no don't avoid without instead stop nicht nie kein keine ohne statt vermeiden vermeiden ne
    pas jamais sans évitez éviter au lieu no nunca sin evite evitar en vez non mai senza eviti evitare não
    nunca sem evite niet nooit geen zonder vermijd nie bez zamiast unikaj"""
)
# A clause opened by a verbal noun, a gerund or an infinitive names the action as its subject
# ("Deleting the profile removes ...", "Usunięcie konta nic nie da", "Eliminar la cuenta sería un error").
_SUBJECT_FORMS = {
    "en": re.compile(r"\w+ing$"),
    "pl": re.compile(r"\w+(?:nie|cie)$"),
    "fr": re.compile(r"\w+(?:er|ir|re)$"),
    "es": re.compile(r"\w+(?:ar|er|ir)(?:lo|la|los|las)?$"),
    "it": re.compile(r"\w+(?:are|ere|ire)$"),
    "pt": re.compile(r"\w+(?:ar|er|ir)$"),
}
# A state word after the object: the advice keeps it so ("Keep parental controls enabled").
_ENABLED = re.compile(
    r"(?:enabled|on|active|activated|aktiv|aktiviert|eingeschaltet|an|aan|aanstaan|ingeschakeld|actif|"
    r"activé|activo|activado|attivo|attivato|ativo|ativado|ligado|włączon\w*|aktywn\w*)$"
)
# Verbs that put the object to use, connect or switch it on (by the start of the word): "Connect the device
# to Wi-Fi", "Verbinden Sie das Gerät ...", "Połącz urządzenie ..." advise no forbidden action on it.
_USING = re.compile(
    r"(?:use|open|connect|plug|charge|pair|enable|install|configure|set|add|select|tap|click|sign|log|"
    r"type|enter|save|copy|download|insert|attach|register|activate|link|sync|back|move|"
    r"verwend|benutz|nutz|öffn|verbind|schließ|lad|koppl|koppel|aktivier|installier|konfigurier|richt|"
    r"wähl|tipp|klick|meld|gib|speicher|kopier|steck|registrier|synchronisier|sicher|verschieb|"
    r"utilis|ouvr|connect|branch|charg|jumel|activ|install|configur|sélection|choisi|appui|cliqu|saisi|"
    r"entr|enregistr|insér|allum|sauvegard|déplac|"
    r"usa|use|utilic|utiliz|abr|conect|enchuf|carg|emparej|activ|instal|seleccion|elij|puls|escrib|"
    r"introduz|guard|enciend|"
    r"usi|apr|colleg|caric|associ|attiv|selezion|scegl|prem|clicc|tocc|digit|inser|salv|accend|"
    r"lig|carreg|emparelh|ativ|selecion|escolh|toque|insir|"
    r"gebruik|verbind|sluit|laad|activeer|installeer|configureer|stel|kies|selecteer|tik|klik|voer|sla|"
    r"kopieer|steek|"
    r"uży|otw|połącz|podłącz|nałado|naładu|sparu|sparow|włącz|zainstal|skonfigur|wybi|wybr|wpis|zapis|"
    r"skopi|klikn|naci|włóż|włoż)"
)
# A German or Dutch clause that ends in a particle of switching on ("Schalten Sie das Gerät ein").
_ON_PARTICLES = frozenset({"ein", "an", "aan", "in"})
_COORDINATING = frozenset({"und", "oder", "en", "of", "dann", "dan"})
_HYPHENED = re.compile(r"[\w'][\w'-]*")  # "de-installeer" is one word
# Adverbials of more than one word that may stand between a verb and its object ("eliminar por completo el
# controlador", "eliminare del tutto il driver"): their preposition is not the object's.
_ADVERBIALS = re.compile(
    r"\b(?:por completo|del todo|del tutto|per ora|por ahora|por agora|de vez|pour l'instant|"
    r"pour le moment|für immer|voor altijd|na razie|na chwilę)\b"
)
_MAX_GAP = 2  # "get rid (of)", "eliminar por (completo)", "zet (u)": the verb and a particle


def advised_object(clause: str, match: str, question: bool) -> bool:
    """Does `clause` advise an action on `match` (a rule's object) the way the module describes? A
    `question` left open counts only with a polite head that asks for the action."""
    at = fold(clause).find(fold(match))
    if at < 0:
        return False
    if any(_ENABLED.match(word) for word in words_of(clause[at + len(match) :])[:2]):
        return False
    before = fold(clause[:at])
    heads = [m.end() for m in (_ASKING if question else _HEADS).finditer(before)]
    if not question:
        heads += [m.end() for m in _FRAME.finditer(before)]
    if heads:
        gap = _HYPHENED.findall(before[max(heads) :])
    elif question:
        return False
    else:
        gap = _HYPHENED.findall(before)
        while gap and gap[0] in _LEAD_IN:
            gap = gap[1:]
        if not gap or gap[0] in _NOT_A_VERB:
            return False  # the object, or another word than a verb, opens the clause
        subject = _SUBJECT_FORMS.get(sentence_language(clause, "en"))
        if subject is not None and subject.match(gap[0]):
            return False
    gap = _ADVERBIALS.sub(" ", " ".join(gap)).split()
    gap = [word for word in gap if word not in DETERMINERS and word not in _BESIDE_VERB]
    if gap[-2:] == ["rid", "of"]:
        gap = gap[:-1]  # "get rid of": "of" belongs to the verb
    if len(gap) > _MAX_GAP or not (_SUBORDINATORS.isdisjoint(gap) and _NEGATIONS.isdisjoint(gap)):
        return False
    if gap and gap[-1] in _PREPOSITIONS:
        return False
    if gap and (_KEEPING.match(gap[0]) or _USING.match(gap[0])):
        return False
    # German and Dutch put the verb (an infinitive in "-n"), or its particle, last: "Sie sollten das Gerät
    # ... verbinden", "Schakel de adblocker weer in"
    rest = _HYPHENED.findall(fold(clause[at + len(match) :]))
    rest = rest[: next((i for i, w in enumerate(rest) if w in _COORDINATING), len(rest))]
    last = rest[-1] if rest else ""
    return not (last in _ON_PARTICLES or (not gap and last.endswith("n") and _USING.match(last)))
