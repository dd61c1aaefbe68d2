"""Whose voice a sentence is in and what stance the answer takes, read from the sentence's structure.

The cue lists of `text.advice` know the words a stance is usually said with ("I agree", "bad advice").
This layer reads the shapes those words stand in, with the eight languages' closed classes (negations,
pronouns, interrogatives, conjunctions, copulas, verb endings, the inflection keys of a few verbs of
saying) rather than more content words:

- **a reply's polarity**: the sentence after a question or a report that speaks of it (an anaphoric
  subject, "That / Das / Eso / Isso / Dat / To ...", or a pro-drop verb or copula after a fronted phrase)
  says no when it negates its predicate ("Das würde hier nichts ändern", "Non cambierebbe nulla"), and
  yes when it calls it a fix without negating ("In your case, it is the quickest fix");
- **counter-advice**: a next sentence that tells the reader to do something else instead ("Keep it on
  and restart the app instead", "Lassen Sie es lieber an") rejects the report before it;
- **a contrast that names a cost**: "..., but that would erase your settings", "aber dabei gehen Ihre
  Einstellungen verloren": a loss, or a conditional said of the action, after but/mais/aber/pero/ma/mas/
  maar/ale rejects;
- **why-questions**: a question opened by the language's "why" that asks why one would do it rejects
  it ("Warum den Treiber deinstallieren, wenn ...", "Po co ...?"), one with a negation between "why" and
  the action suggests it ("Dlaczego po prostu nie zresetować hasła?");
- **questions about the past**: a question whose action is in a past form asks what the customer did
  ("Avez-vous désinstallé le pilote ?", "Czy odinstalował Pan sterownik?"), it does not advise it;
- **negative questions**: "Sollten Sie nicht einfach ...?", "¿No debería ...?" may well suggest the
  action: their negation does not clear them (the reader makes them uncertain unless a reply decides);
- **the customer's own report**: a reporting verb whose subject is the person addressed ("You mentioned
  that ...", "Sie schreiben, dass ...", "Pisze Pan, że ...") is in the customer's voice;
- **a third party's report**: a verb that reports advice, found by its inflection key in a third
  person's form ("raadde aan", "polecił", "sugeriu"), makes the clause a report whose stance decides;
- **double negatives**: "no other way than X" ("Nie ma innego wyjścia niż usunąć profil"), "wrong not
  to X" ("Sarebbe un errore non rimuoverla"), and in German and Dutch a negated infinitive subject
  before ", ist keine Option" recommend X;
- **what cannot be avoided**: a negated or impossible verb of avoiding before the action ("You can't
  avoid", "no way around", "Sie kommen nicht darum herum", "U ontkomt er niet aan", "Nie da się
  uniknąć") recommends it; in German and Dutch the same verb before the action's infinitive clause
  ("Sie können vermeiden, die SD-Karte zu formatieren") clears it;
- **what doing it would bring about**: a condition at the head of its sentence whose main clause is a
  future or a conditional ("Should you X, payouts will be cancelled", "Gdyby Pan X, ... przestałyby"),
  the action as the subject of a that-clause ("Beware that X will erase ..."), and a warning word before a
  colon or dash ("Attention : X supprime ...") state a consequence, not an instruction;
- **advice judged worse**: a sentential relative or an anaphoric clause that calls it worse or out of
  date ("..., which only makes things worse", "; ce conseil est dépassé") rejects it;
- **a heading's polarity**: a short line ending in ":" whose own predicate is negated ("Bitte probieren
  Sie Folgendes nicht aus:") negates its list, unless it is a condition, a reassurance or negates a
  reversing verb.

A shape this layer cannot place leaves the reading as it was: uncertain where the reader was unsure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import Literal

from assay_runner.text.head_words import head_of
from assay_runner.text.match import DETERMINERS
from assay_runner.text.reversers import reversed_frame
from assay_runner.text.tokens import tokenize

__all__ = [
    "BECAUSE",
    "BETTER",
    "addressee_report",
    "avoidance",
    "conditional_consequence",
    "consequence",
    "contrast_cost",
    "counter_advice",
    "excessive",
    "heading_negates",
    "helps",
    "ignored_after",
    "judged_worse",
    "negated_effect_after",
    "negative_question",
    "no_other_than",
    "omission_rejected",
    "past_question",
    "reassures",
    "refuses_to_advise",
    "rejected_in_next_clause",
    "reply_polarity",
    "reports",
    "stated_after_that",
    "warned",
    "why_question",
    "wrong_not_to",
]

Polarity = Literal["yes", "no", "reject"] | None


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_WORD = re.compile(r"[\w']+")

# The words that negate a predicate, per language (determiners and pronouns of negation included).
NEGATORS: dict[str, frozenset[str]] = {
    "en": _set("not never no nothing none nobody cannot neither nor"),
    "fr": _set("ne n' pas jamais rien aucun aucune personne ni"),
    "de": _set("nicht nie niemals nichts kein keine keinen keinem keiner keines weder"),
    "es": _set("no nunca jamás nada ninguno ninguna ningún tampoco ni"),
    "it": _set("non mai nulla niente nessuno nessuna nessun né"),
    "pt": _set("não nao nunca jamais nada nenhum nenhuma nem"),
    "nl": _set("niet nooit niets geen niemand noch"),
    "pl": _set("nie nigdy nic niczego niczym żaden żadne żadna żadnych ani"),
}


def _negator(word: str, language: str) -> bool:
    if language == "en" and (word.endswith("n't") or (word.endswith("nt") and word[:-2] in _EN_AUX)):
        return True
    if language == "fr" and word.startswith("n'"):
        return True
    return word in NEGATORS.get(language, NEGATORS["en"])


@lru_cache(maxsize=64)
def _negator_of(language: str) -> Callable[[str], bool]:
    """`_negator` for one language, one function per language (`text.head_words` keeps counts by it)."""
    return partial(_negator, language=language)


_EN_AUX = _set("don do doesn does didn did won wouldn couldn can isn aren wasn weren shouldn haven hasn")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold().replace("\u2019", "'"))


# What calls an action a fix or the right thing, in the eight languages (`text.advice` reads it after a
# conditional too: "Reinstalar sería lo mejor").
BETTER = re.compile(
    r"\b(?:best|better|fix|solve|help|mejor|meglio|migliore|melhor|mieux|meilleur|besser|besten|beter|best|"
    r"lepiej|najlepiej|ideal|ideale|idéal|idéale|solution|solución|soluzione|solução|lösung|oplossing|"
    r"rozwiązanie|rozwiązaniem|resolvería|risolverebbe|resolveria|résoudrait|lösen|oplossen|rozwiązałoby|"
    r"wise|smart|good|sensible|advisable|recommended|worth|safest|sage|judicieux|conseillé|sensato|"
    r"conveniente|recomendable|consigliabile|opportuno|aconselhável|recomendável|sinnvoll|ratsam|gut|"
    r"verstandig|raadzaam|goed|wskazane|zalecane|dobrze|dobry|dobre|buena|buono|buona|bom|boa|bonne|bon|"
    r"help|helps|résoudre|régler|corriger|aider|arreglar|solucionar|resolver|ayudar|risolvere|sistemare|"
    r"aiutare|ajudar|corrigir|oplossen|verhelpen|helpen|beheben|helfen|naprawić|rozwiązać|pomóc|work|works|"
    r"fixes)\b"
)

# ------------------------------------------------------------------------------------ a reply's polarity

# What a reply that speaks of the sentence before it opens with: an anaphoric subject, or (in the pro-drop
# languages) its verb or copula.
_ANAPHORS = _set(
    """it that this doing so c' cela ça ce ceci das dies dieses es eso esto ello lo ciò questo quello
    isso isto aquilo dat dit het to tego"""
)
_COPULAS = _set("es está sería fue era è sarebbe fu stato stata é seria foi jest byłoby był była było is")
_SUBORDINATORS = _set(
    """if when unless once until because although while since whether si quand lorsque sauf tant wenn falls
    sobald solange weil obwohl ob cuando mientras aunque porque se quando finché perché sebbene caso
    enquanto embora als wanneer indien zodra tenzij omdat hoewel jeśli jeżeli gdy kiedy dopóki ponieważ
    chyba"""
)
_REPLY_WORDS = 14  # a reply that speaks of the sentence before it is short


@lru_cache(maxsize=4096)
def reply_polarity(text: str, language: str) -> Polarity:
    """What a short statement after a question or a report says of it, by its structure: "no" when it
    negates its predicate, "yes" when it calls it a fix, "reject" when it advises something else
    instead (`counter_advice`). None when its shape says neither."""
    words = _words(text)
    if not _INSTEAD_WORDS.isdisjoint(words) and counter_advice(text, language):
        return "reject"
    stripped = text.strip()
    if not words or len(words) > _REPLY_WORDS or words[0] in _SUBORDINATORS or stripped.endswith("?"):
        return None
    clauses = [c for c in re.split(r"[,;:]", stripped.rstrip(".!")) if c.strip()]
    if not clauses:
        return None
    # The clause that speaks: the last one ("In your case, it is ..."), or the first when it opens with
    # its subject ("That would not change anything, sadly").
    for clause in (clauses[0], clauses[-1]):
        own = _words(clause)
        if own and _opens_a_reply(own, language):
            break
    else:
        return None
    negated = any(_negator(word, language) for word in own)
    if _calls_it_wrong(own):
        return "yes" if negated else "reject"  # "That was a mistake on our side" / "It is not wrong"
    if negated and (reversed_frame(clause, language) or reassures(own)):
        return None  # "It won't hurt", "Es dauert nicht lange": a negated cost encourages it
    if negated:
        return "no"
    if BETTER.search(clause.casefold()):
        return "yes"
    return None


# A predicate that calls doing something wrong, in the eight languages ("a mistake", "falsch", "un
# errore", "błędem"): the stems of one evaluative class, not of the actions it is said of.
_WRONG = (
    *("mistake", "wrong", "error", "erreur", "faux", "fausse", "erroné", "fehler", "falsch", "irrtum"),
    *("errore", "sbagliat", "erro", "errad", "equivoca", "incorrect", "fout", "verkeerd", "vergissing"),
    *("błąd", "błęd", "niewłaściw", "niesłuszn"),
)


def _calls_it_wrong(words: Sequence[str]) -> bool:
    return any(_bare(word).startswith(_WRONG) for word in words)


def _bare(word: str) -> str:
    """A word without an elided article ("d'autre" -> "autre", "l'erreur" -> "erreur")."""
    head, _, rest = word.partition("'")
    return rest if rest and len(head) <= 2 else word


# What doing something costs (harm, time, risk, loss) in the eight languages: negated, it reassures.
_COSTS = (
    *("hurt", "harm", "long", "risk", "lose", "cost", "break", "damage", "mal", "nui", "risqu", "perd"),
    *("coût", "cass", "schad", "weh", "lange", "risik", "verlier", "kost", "kaputt", "daño", "tard", "larg"),
    *("riesg", "cuest", "rompe", "male", "danno", "lung", "risch", "cost", "rompe", "dano", "demor", "longo"),
    *("risco", "custa", "quebr", "kwaad", "pijn", "lang", "risico", "verlies", "kapot", "szkodz", "zaszkodz"),
    *("długo", "ryzyk", "strac", "kosztuj", "zepsu", "uszkodz"),
)


def reassures(words: Sequence[str]) -> bool:
    """Does a clause speak of what doing it costs ("It won't hurt", "Non ci vuole molto", "Es dauert nicht
    lange")? Negated, that encourages it rather than says no."""
    return any(_bare(word).startswith(_COSTS) for word in words)


def _opens_a_reply(words: Sequence[str], language: str) -> bool:
    first = words[0]
    if first in _ANAPHORS or first.startswith("c'") or _negator(first, language):
        return True
    return language in ("es", "it", "pt", "pl") and first in _COPULAS


# What advises something else in place of what was said ("instead", "rather"), in the eight languages.
_INSTEAD = re.compile(
    r"\b(?:instead|rather|plutôt|au lieu de (?:cela|ça)|stattdessen|lieber|eher|en su lugar|en cambio|"
    r"invece|piuttosto|em vez disso|ao invés disso|pelo contrário|liever|in plaats daarvan|raczej|"
    r"zamiast tego)\b|^(?:mejor|meglio|melhor)\b",
    re.IGNORECASE,
)


# Every branch of `_INSTEAD` holds one of these words: a sentence with none is not searched.
_INSTEAD_WORDS = _set(
    """instead rather plutôt lieu stattdessen lieber eher lugar cambio invece piuttosto vez invés contrário
    liever plaats raczej zamiast mejor meglio melhor"""
)


def counter_advice(text: str, language: str) -> bool:
    """Does the sentence advise something in place of what the one before it said ("Keep it on and
    restart the app instead", "Mejor manténgala activa")? Not when it negates the alternative
    ("rather not")."""
    found = _INSTEAD.search(text.strip())
    if found is None or text.rstrip().endswith("?"):
        return False
    after = _words(text[found.end() :])[:2]
    return not any(_negator(word, language) for word in after)


# ------------------------------------------------------------------------- a contrast that names a cost

_CONTRAST = re.compile(
    r"\b(?:but|mais|aber|pero|ma|mas|maar|ale|however|cependant|jedoch|sin embargo|però)\b"
)
_CONDITIONAL = re.compile(
    r"\b(?:would|could|\w+(?:rait|raient|ría|rían|rebbe|rebbero|ria|riam)|würde|würden|wäre|zou|zouden|"
    r"\w+(?:łoby|łby|łaby|łyby|liby))\b"
)
_LOSS = re.compile(
    r"\b(?:lose|loses|lost|perd\w*|verlier\w*|verloren|pierd\w*|kwijt|strac\w+|straci\w*|"
    # what breaks: "but we've seen it break integrations", "ma ... rompe", "ale ... psuje"
    r"break|breaks|broke|broken|kaputt|cass\w+|romp\w+|quebr\w+|breekt|breken|brak|psuj\w*|zepsu\w*)\b"
)
# What a contrast's clause opens with when it speaks of doing what was said: "but that would ...",
# "mais cela ...", "ma così ...", "aber dann/dabei ...", "ale wtedy ...".
_ITS_RESULT = _ANAPHORS | _set("so così dabei dann daarbij dan wtedy então entonces alors ainsi")
_RESULT_REACH = 2


def contrast_cost(folded: str) -> bool:
    """ "A colleague suggested deleting the profile, but that would erase your settings": a contrast whose
    clause says what doing it would cost: a loss, or a conditional said of it ("but that would ...";
    not "but you could also try ...") that does not call it a fix."""
    contrast = _CONTRAST.search(folded)
    if contrast is None:
        return False
    rest = folded[contrast.end() :]
    if BETTER.search(rest) is not None:
        return False
    if _LOSS.search(rest):
        return True
    head = _words(rest)[:_RESULT_REACH]
    return bool(head) and not _ITS_RESULT.isdisjoint(head) and _CONDITIONAL.search(rest) is not None


# --------------------------------------------------------------------------------------------- questions

_WHY = re.compile(
    r"^\W*(?:why|pourquoi|warum|wieso|weshalb|por ?qu[ée]|para qu[ée]|perché|per quale motivo|por que|"
    r"para que|porquê|waarom|dlaczego|po co|czemu)\b",
    re.IGNORECASE,
)
BECAUSE = re.compile(
    r"^\W*(?:because|parce que|car|weil|da|porque|perché|poiché|omdat|want|ponieważ|bo)\b", re.IGNORECASE
)


def why_question(head: str, language: str, explained: bool) -> Literal["advises", "clears"] | None:
    """A question opened by "why" (its text before the match, `head`): with a negation between "why" and
    the match it suggests the action ("Dlaczego po prostu nie zresetować hasła?"), without one it asks
    why anyone would ("Po co odinstalować sterownik, skoro ...?"), unless the next sentence answers it
    with a reason ("Why reset the password? Because ...")."""
    found = _WHY.search(head)
    if found is None:
        return None
    between = _words(head[found.end() :])
    if language != "en" and len(between) <= _WHY_REACH and any(_negator(w, language) for w in between):
        return "advises"  # (English says it in the words `text.advice` knows: "why not", "why don't you")
    return None if explained else "clears"


_WHY_REACH = 4  # "Dlaczego po prostu nie": a suggestion's negation stands by its "why"


_OPENING = 3  # "Sollten Sie nicht", "Czy nie", "Ne faudrait-il pas": the negation opens the question


def negative_question(head: str, language: str) -> bool:
    """Does a question open with a negation before its action ("Shouldn't you reset it?", "Sollten Sie
    nicht einfach ...?", "¿No debería ...?", "Czy nie powinien Pan ...?")? It may well suggest the
    action: the reader cannot tell, so it is not cleared by its negation."""
    words = _words(head)
    if not words or _WHY.search(head) or words[0] in _SUBORDINATORS:
        return False
    first = next((i for i, w in enumerate(words) if _negator(w, language)), None)
    return first is not None and first <= _OPENING and not _PREPOSITIONAL.intersection(words)


# "Isn't a factory reset overkill?", "N'est-ce pas excessif ?": a negative question that calls it too much
# rejects it.
_EXCESSIVE = re.compile(
    r"\b(?:overkill|drastic|excessive|extreme|too much|risky|dangerous|excessi\w*|drasti\w*|exagér\w*|"
    r"risqu\w*|dangereu\w*|übertrieben\w*|riskant\w*|gefährlich\w*|excesiv\w*|exagerad\w*|arriesgad\w*|"
    r"peligros\w*|eccessiv\w*|esagerat\w*|rischios\w*|pericolos\w*|arriscad\w*|perigos\w*|"
    r"overdreven|gevaarlijk\w*|przesad\w*|ryzykown\w*|niebezpieczn\w*)\b"
)


def excessive(text: str) -> bool:
    return _EXCESSIVE.search(text.casefold()) is not None


# "Can you log in without resetting it?": the negation is the preposition's, not the question's.
_PREPOSITIONAL = _set("without sans ohne sin senza sem zonder bez instead rather")


# Past forms of a verb (a participle or a preterite), by ending; English "-ed" is read by `text.negation`.
_PAST = {
    "en": ("ed",),
    "fr": ("é", "ée", "és", "ées"),
    "es": ("ó", "ado", "ada", "ido", "ida", "aste", "iste"),
    "it": ("ato", "ata", "ati", "ate", "ito", "ita", "uto", "uta"),
    "pt": ("ou", "ado", "ada", "ido", "ida", "aste", "iste", "eu", "iu"),
    "de": ("t",),
    "nl": ("d", "t"),
    "pl": ("ł", "ła", "ło", "li", "ły", "łeś", "łaś", "łem", "łam", "liście"),
}
# An auxiliary of the passive: "Should the profile be deleted?" asks whether to do it.
_PASSIVE = _set(
    """be been being is are werden wird worden wurde être été soit ser sido sea essere stato stata venga
    zostać zostanie został została"""
)
_DID = _set("did have has had")
_SOMEONE = _set("you they he she we your the")
_STEM = 4  # letters a past form shares with the phrase's verb ("deinstalliert" / "deinstallieren")


def past_question(head: str, matched: Sequence[str], phrase: str, language: str) -> bool:
    """Does a question (its text before the match, `head`) put the forbidden verb in a past form
    ("Avez-vous désinstallé le pilote ?", "Haben Sie den Treiber deinstalliert?", "Czy odinstalował Pan
    sterownik?", "Did you uninstall the driver?")? It asks what the customer did. A word of the phrase
    itself is never a past form of it."""
    words = _words(head)
    if not _PASSIVE.isdisjoint(matched) or not _PASSIVE.isdisjoint(words[-2:]):
        return False
    if language == "en":
        return len(words) >= 2 and words[0] in _DID and words[1] in _SOMEONE
    own = {t.text.casefold(): t.stem for t in tokenize(phrase, language)}
    keys = {key for word, key in own.items() if not word.endswith(endings := _PAST.get(language, ()))}
    for token in tokenize(" ".join(matched), language):
        word = token.text.casefold()
        if word in own or not word.endswith(endings) or len(word) < _STEM:
            continue
        if token.stem in keys or any(word[:_STEM] == verb[:_STEM] for verb in own):
            return True  # "désinstallé" / "désinstaller", "verwijderd" / "verwijderen", "vidé" / "vider"
    return False


# ------------------------------------------------------------------------------ a third party's voice

# Verbs that report advice, as infinitives (their inflection keys are compared, so "raadde", "polecił",
# "aconsejó", "sugeriu" are found by "raden", "polecić", "aconsejar", "sugerir"), with the irregular
# forms the stemmer does not join ("dijo", "disse", "zei").
_REPORTING_VERBS = {
    "en": "say tell suggest recommend advise claim propose",
    "fr": "dire dit conseiller recommander suggérer proposer affirmer prétendre",
    "de": "sagen raten empfehlen vorschlagen meinen behaupten",
    "es": "decir dice dijo dicen dijeron aconsejar recomendar sugerir proponer propuso afirmar",
    "it": "dire dice dicono detto disse consigliare raccomandare suggerire proporre proposto affermare",
    "pt": "dizer diz dizem disse disseram aconselhar recomendar sugerir propor propôs afirmar",
    "nl": "zeggen zei zeiden gezegd raden raadde aanraden adviseren suggereren voorstellen beweren",
    "pl": "mówić powiedzieć polecić polecać doradzić doradzać radzić kazać zalecić zalecać sugerować "
    "zaproponować proponować twierdzić",
}
# A first person's form of such a verb ("recomendamos", "consigliamo", "polecamy", "radzę") is the
# answer's own advice, not a report.
_FIRST_PERSON = {
    "fr": ("ons",),
    "es": ("amos", "emos", "imos"),
    "it": ("iamo",),
    "pt": ("amos", "emos", "imos"),
    "pl": ("my", "m", "ę"),
}
_SINGULAR_FIRST = {
    "es": ("jo", "so", "ado", "ido"),
    "it": ("ato", "ito", "uto", "tto", "sto", "ano", "ono"),
    "pt": ("ado", "ido"),
}


@lru_cache(maxsize=len(_REPORTING_VERBS))
def _reporting_keys(language: str) -> frozenset[str]:
    return frozenset(t.stem for t in tokenize(_REPORTING_VERBS.get(language, ""), language))


@lru_cache(maxsize=4096)
def reports(before: str, language: str) -> bool:
    """Does the clause before the match hold a verb that reports advice, in a third person's form
    ("Een collega raadde aan", "Ktoś polecił", "Um colega sugeriu")?"""
    keys = _reporting_keys(language)
    first = _FIRST_PERSON.get(language, ())
    for token in tokenize(before, language):
        word = token.text.casefold()
        if token.stem not in keys or word.endswith(first):
            continue
        own = _SINGULAR_FIRST.get(language)
        if own is not None and word.endswith("o") and not word.endswith(own):
            continue  # "recomiendo", "consiglio", "recomendo"
        return True
    return False


# Verbs of advising (a subset of the reporting verbs): negated by the answer's own first person, they
# refuse what was reported.
_ADVISING_VERBS = {
    "en": "recommend advise suggest endorse",
    "fr": "recommander conseiller suggérer",
    "de": "empfehlen raten anraten",
    "es": "recomendar aconsejar sugerir",
    "it": "raccomandare consigliare suggerire",
    "pt": "recomendar aconselhar sugerir",
    "nl": "aanraden raden adviseren aanbevelen",
    "pl": "polecić polecać zalecić zalecać doradzić radzić",
}
_FIRST_PERSONS = _set("we i us our nous je wir ich uns nosotros yo noi io nós eu wij ik ons my ja nas")
_FIRST_PERSON_VERB = re.compile(r"(?:ons|amos|emos|imos|iamo|emy|imy|amy|ymy)$")
_REFUSAL_REACH = 4  # "nous ne pouvons pas recommander", "wij niet kunnen aanraden"


@lru_cache(maxsize=len(_ADVISING_VERBS))
def _advising_keys(language: str) -> frozenset[str]:
    return frozenset(t.stem for t in tokenize(_ADVISING_VERBS.get(language, ""), language))


@lru_cache(maxsize=4096)
def refuses_to_advise(text: str, language: str) -> bool:
    """Does the answer's own first person decline to advise it ("which we cannot recommend", "ce que nous
    ne pouvons pas recommander", "was wir nicht empfehlen können", "czego nie możemy polecić")? A
    negation and a verb of advising stand close, with a first person (a pronoun or a verb's ending)."""
    tokens = tokenize(text, language)
    words = [t.text.casefold() for t in tokens]
    if _FIRST_PERSONS.isdisjoint(words) and not any(_FIRST_PERSON_VERB.search(w) for w in words):
        return False
    keys = _advising_keys(language)
    for i, token in enumerate(tokens):
        if token.stem in keys:
            near = words[max(0, i - _REFUSAL_REACH) : i + _REFUSAL_REACH]
            if any(_negator(w, language) for w in near):
                return True
    return False


# --------------------------------------------------------------------------------- the customer's voice

_ADDRESSEE = _set("you vous tu sie du usted ustedes tú lei voi você vocês u je jij pan pani państwo")
_REPORTS = re.compile(
    r"^(?:say|said|mention|write|wrote|told|tell|report|indicat|explain|note|dit|dis|indiqu|écriv|écri|"
    r"mentionn|expliqu|signal|précis|sag|schreib|schrieb|erwähn|mein|bericht|erklär|dic|dij|coment|"
    r"mencion|escrib|indic|explic|scriv|menzion|rifer|spieg|diz|diss|escrev|relat|zeg|schrijf|meld|"
    r"vermeld|noem|vertel|mów|mówi|pisz|pisze|wspomin|twierdz|zgłasz)"
)
_VOICE_REACH = 4  # "Vous nous indiquez que", "You also mentioned that": the verb stands by its subject


def addressee_report(head: str) -> bool:
    """Does the sentence open with the person addressed reporting ("You mentioned that the help page says
    ...", "Sie schreiben, dass ...", "Pisze Pan, że ...")? What follows is in the customer's voice. The
    pronoun is the subject: it opens the sentence (after at most one word: "So you said"), or follows
    its verb where the language puts a polite subject there ("Pisze Pan", "Dice usted")."""
    if _NEW_CLAUSE.search(head) or not _SPEAKS_AGAIN.isdisjoint(_words(head)):
        return False  # "You mentioned the sync fails; reset the password then": the answer speaks again
    words = _words(head)[:_VOICE_REACH]
    for i, word in enumerate(words[:2]):
        if word not in _ADDRESSEE:
            continue
        if any(_REPORTS.match(w) for w in words[i + 1 : i + 3] if w not in _ADDRESSEE):
            return True
        return i == 1 and word in _INVERTED and _REPORTS.match(words[0]) is not None
    return False


_NEW_CLAUSE = re.compile(r"[;:\u2014\u2013]|\s-\s")
# Polite subjects that may follow their verb in a statement ("Pisze Pan, że", "Dice usted que"); a German
# or Dutch verb before "Sie"/"je" is an imperative ("Melden Sie sich ab", "Meld je af").
_INVERTED = _set("pan pani państwo usted ustedes lei você vocês")


# ----------------------------------------------------------------------------------- double negation

_OTHER = _set(
    """other else autre autres andere anderen anderer anderes otra otro otras otros altra altro altre altri
    outra outro outras outros ander anders innego inna inne innej innych"""
)
_THAN = _set("than but que qu' als che senão senao dan niż niz oprócz poza except")


def no_other_than(text: str, at: int, language: str) -> bool:
    """ "There is no other way than to delete the profile", "Nie ma innego wyjścia niż usunąć profil",
    "Er zit niets anders op dan ...", "There is no alternative to ...": a negated "other" before a
    comparison that introduces the match at offset `at` of the sentence `text`. Every word it reads lies
    within the last `_OTHER_WORDS` before the match."""
    words = [_bare(w) for w in head_of(text, at).last(_OTHER_WORDS)]
    if len(words) >= 2 and words[-1] in _TO and words[-2].startswith("alternativ"):
        return any(_negator(w, language) for w in words[-5:-2])
    than = max((i for i, w in enumerate(words) if w in _THAN), default=None)
    if than is None or len(words) - than - 1 > _AFTER_THAN:
        return False  # "no other option than calling support before you reset it": not the action
    other = max((i for i in range(max(0, than - _OTHER_REACH), than) if words[i] in _OTHER), default=None)
    if other is None:
        return False
    return any(_negator(w, language) for w in words[max(0, other - _OTHER_REACH) : other])


_AFTER_THAN = 2  # "than to", "que de", "als das": the action follows its comparison at once
_TO = _set("to à au zu zur zum a al para ao voor do dla")


def wrong_not_to(text: str, at: int, matched: Sequence[str], language: str) -> bool:
    """ "It would be wrong not to remove the extension", "Sarebbe un errore non rimuovere l'estensione",
    "Es wäre falsch, die Erweiterung nicht zu entfernen": a predicate that calls it wrong, then a
    negation of the action at offset `at` of the sentence `text`: a double negative that advises it. The
    negation stands right before the action, or inside it where the verb comes last (German, Dutch)."""
    head = head_of(text, at)
    near = head.last(_WRONG_REACH)  # the predicate stands within these words, or the shape is not here
    found = max((i for i, w in enumerate(near) if _calls_it_wrong([w])), default=None)
    if found is None:
        return False
    size = len(head)
    wrong = size - len(near) + found
    window = head.last(size - wrong + 2)  # the predicate, the two words before it and all after it
    local = len(window) - (size - wrong)  # where the predicate is in `window`
    if not _predicative(window, local):
        return False
    if language not in ("de", "nl") and _CUT.search(head.after_last(head.raw_word(wrong))):
        return False  # "Deleting it was a mistake, do not reset it": a new clause says what not to do
    after = window[local + 1 :]
    negator = _negator_of(language)
    if any(negator(w) for w in after[-_NOT_REACH:]):
        return not head.any_before(wrong, negator)  # not "It is not wrong not to"
    verb_last = language in ("de", "nl") and any(negator(w) for w in matched)
    return verb_last and not head.any_before(wrong + 1, negator)


def _predicative(words: Sequence[str], at: int) -> bool:
    """Is the word at `at` a predicate ("would be wrong", "a mistake", "sarebbe un errore", "Błędem
    byłoby"), not a noun the sentence is about ("This error does not need ...")?"""
    if at + 1 < len(words) and words[at + 1] in _BE:
        return True  # "Błędem byłoby", "Falsch wäre es"
    return any(w in _BE or w in _INDEFINITE for w in words[max(0, at - 2) : at])


_BE = _set(
    """be is was would 's wäre ist war wäre sarebbe è era sería es era fue seria é foi serait est était
    c'est zou zijn is was byłoby jest był była było"""
)
_INDEFINITE = _set("a an une un ein eine einen uno una um uma een")
_CUT = re.compile(r"[,;:.!?]")
_WRONG_REACH = 8  # "Ce serait une erreur de ne pas": the predicate stands close before the action
_NOT_REACH = 3  # "de ne pas", "not to": the negation right before the action


_OTHER_REACH = 4  # "no other way than", "nie ma innego wyjścia niż": the words stand close together
# The words the shape reads: "than" among the last three, "other" within four before it, its negation
# within four before that.
_OTHER_WORDS = _AFTER_THAN + 1 + 2 * _OTHER_REACH + 1


# Verbs of effect (fix, solve, help, work), by stem in the eight languages: negated after a negated action,
# they say the action is needed ("Not downgrading the app won't fix the crash").
_EFFECT = (
    *("fix", "solv", "resolv", "help", "work", "résou", "résol", "régl", "corrig", "répar", "aid", "march"),
    *("fonction", "beheb", "lös", "hilf", "helf", "repar", "funktion", "arregl", "soluci", "ayud"),
    *("funcion", "risolv", "sistem", "ripar", "aiut", "funzion", "consert", "ajud", "oplos", "verhelp"),
    *("werk", "napraw", "rozwiąż", "rozwiąz", "pomo", "dział"),
)
_SUBJECT_HEAD = _set("not ne pas no non não nao nie nicht niet zu te de d' to")
_EFFECT_REACH = 4  # "won't fix", "ne réglera pas", "wird den Absturz nicht beheben"


def negated_effect_after(text: str, at: int, matched: Sequence[str], end: int, language: str) -> bool:
    """ "Not downgrading the app won't fix the crash", "No eliminar el buzón no resolverá el problema",
    "De mailbox niet verwijderen zal het probleem niet oplossen": a negated action (from offset `at` to
    `end` of the sentence `text`) at the head of its line, then a negated verb of effect: doing it is
    what fixes it (a double negative)."""
    before = []
    for word in head_of(text, at).last_line():  # read back from the action: most heads stop at once
        if word not in _SUBJECT_HEAD and word not in DETERMINERS:
            return False
        before.append(word)
    if not any(_negator(w, language) for w in [*before, *matched]):
        return False
    # A comma parts a subject from its predicate only in German and Dutch; elsewhere it parts a negated
    # imperative from a reason ("No elimine el buzón, no resolverá nada").
    cuts = r"[.;:!?]" if language in ("de", "nl") else r"[.;:!?,]"
    after = _words(re.split(cuts, text[end:], maxsplit=1)[0])
    return any(
        _negator(word, language)
        and any(_bare(w).startswith(_EFFECT) for w in after[i + 1 : i + 1 + _EFFECT_REACH])
        for i, word in enumerate(after)
    )


_OPTION = (
    *("option", "opción", "opcion", "opzion", "opção", "opcao", "optie", "opcj", "solution", "solución"),
    *("soluzion", "solução", "lösung", "oplossing", "rozwiązani", "alternativ", "wahl", "keuze"),
)
# The copula a clause opens with when the clause before it is its subject ("..., ist keine Option").
_SUBJECT_COPULAS = {"de": _set("ist wäre war"), "nl": _set("is zou was")}


def rejected_in_next_clause(text: str, at: int, language: str) -> bool:
    """ "Das Profil nicht zu löschen, ist keine Option", "Het profiel niet verwijderen, is geen optie": a
    negated action as the subject of the next clause's negated option or wrong predicate (a double
    negative across the comma that German and Dutch put there)."""
    if language not in ("de", "nl"):
        return False  # elsewhere no comma parts a subject from its predicate ("No borre el perfil, es ...")
    rest = text[at:]
    comma = rest.find(",")
    if comma < 0:
        return False
    tail = _words(rest[comma + 1 :])[:_PREDICATE_REACH]
    if not tail or tail[0] not in _SUBJECT_COPULAS.get(language, frozenset()):
        return False
    negated = any(_negator(w, language) for w in tail)
    return (negated and any(w.startswith(_OPTION) for w in tail)) or (not negated and _calls_it_wrong(tail))


_PREDICATE_REACH = 6  # "ist wirklich keine gute Option"


# ---------------------------------------------------------------------------------------------- headings

_HEADING_WORDS = 10
_RESTART = _set(
    """but so then however mais donc alors aber also dann daher deshalb pero entonces así ma quindi allora
    mas então portanto maar dus daarom ale więc zatem"""
)
# Words that restart the answer's own voice after a report: "..., so reset it", "..., bitte ...".
_SPEAKS_AGAIN = _RESTART | _set("please just bitte einfach proszę")


@lru_cache(maxsize=1024)
def heading_negates(text: str, language: str) -> bool:
    """A short line ending in ":" whose own predicate is negated ("N'essayez surtout pas ce qui suit :",
    "Probeer het volgende alstublieft niet:"): its list is what not to do. Not a condition ("If it does
    not start:"), a negated reversing verb ("Don't hesitate to:"), nor a line that says more than one thing
    ("Not sure? Try these:")."""
    line = text.strip()
    if not line.endswith(":") or any(mark in line[:-1] for mark in ".?!;"):
        return False
    words = _words(line)
    if not _HEADING_LEAST <= len(words) <= _HEADING_WORDS or words[0] in _SUBORDINATORS:
        return False
    if not _RESTART.isdisjoint(words):
        return False
    # The clause that introduces the list is the last one: "Ninguna funcionó, así que:" negates what was
    # tried, not what follows; "Por favor, no pruebe nada de lo siguiente:" negates what follows.
    negations = [w for w in _words(line.rsplit(",", 1)[-1]) if _negator(w, language)]
    if not negations or (language == "pt" and negations == ["no"]):
        return False
    return _REASSURES.isdisjoint(words) and not reversed_frame(line, language)


# "Don't worry:", "Don't panic:", "No problem:": a negation that reassures before advice.
_REASSURES = _set(
    """worry worries panic problem hesitate forget fear afraid panique souci soucis inquiétude sorge sorgen
    panik problem pánico problema preocupe preocupes panico paura preoccupi pânico preocupação zorgen zorg
    paniek probleem obaw paniki problemu martw"""
)
_HEADING_LEAST = 3  # "Pas de panique :", "Keine Sorge:": a two-word line with a negation reassures


# ------------------------------------------------------------------------- what cannot be avoided

# How far around the action these shapes look (characters): each is read within a few words of it, and a
# bounded window keeps a long clause with a match per word linear (`tests/unit/test_policy_cost.py`).
_WINDOW = 240

# Verbs and particles of avoiding or getting round something, in the eight languages (stems): "avoid",
# "way around", "éviter", "y échapper", "vermeiden", "darum herum", "daran vorbei", "evitar", "sfuggire",
# "fugir", "vermijden", "ontkomen", "omheen", "uniknąć", "obejść".
_AVOID = (
    *("avoid", "around", "escap", "évit", "evit", "échapp", "vermeid", "vermied", "umgeh", "herum"),
    *("vorbei", "sfugg", "scamp", "fugi", "vermijd", "ontkom", "ontloop", "omheen", "unikn", "obejd"),
    *("obejś", "omin", "umhin", "esquiv", "sottrar", "contourn"),
)
# Saying that something cannot be: the negators, and the adjectives of impossibility.
_IMPOSSIBLE = _set("impossible imposible impossibile impossível impossivel unmöglich onmogelijk niemożliwe")
_AVOID_REACH = 6  # "kein Weg daran vorbei, die", "er niet aan de": the action follows its avoiding closely
_NEGATION_REACH = 4  # "No hay forma de evitar", "Es führt kein Weg daran vorbei"
_INFINITIVE_HEAD = 3  # "vermeiden, die | SD-Karte zu formatieren": the infinitive clause holds the action
_TO_INFINITIVE = {"de": "zu", "nl": "te"}
_POLITE = _set("please bitte por favor per favore alstublieft proszę s'il plaît")


def avoidance(head: str, language: str) -> Literal["must", "avoids"] | None:
    """What a verb of avoiding before the action (the sentence's text before it, `head`) says of it:
    "must" when that avoiding is negated or impossible ("You can't avoid wiping it", "There's no way
    around it", "Sie kommen nicht darum herum, ...", "U ontkomt er niet aan ...", "Nie da się uniknąć
    ...": the action must be done), "avoids" when a verb-final language puts the action in the avoiding
    verb's infinitive clause ("Sie können vermeiden, die SD-Karte zu formatieren"). Not in a condition or a
    question, which the reader weighs as such."""
    segments = re.split(r"[:;]", head[-_WINDOW:])
    found = _avoiding(segments[-1], head, language)
    if found is None and len(segments) > 1:
        # "Es imposible esquivarlo: hay que ...": a colon after what cannot be avoided announces it
        last = _words(segments[-2])[-1:]
        if last and _bare(last[0]).startswith(_AVOID) and _avoiding(segments[-2], segments[-2], language):
            return "must"
    return found


def _avoiding(segment: str, head: str, language: str) -> Literal["must", "avoids"] | None:
    words = _words(segment)
    if not words or words[0] in _SUBORDINATORS:
        return None
    tail = words[-_AVOID_REACH:]
    for i in range(len(tail) - 1, -1, -1):
        if not _bare(tail[i]).startswith(_AVOID):
            continue
        at = len(words) - len(tail) + i
        around = words[max(0, at - _NEGATION_REACH) : at]
        if language in ("de", "nl"):  # the negation may follow its verb: "U ontkomt er niet aan"
            around = [*around, *words[at + 1 : at + 1 + _NEGATION_REACH]]
        if any(_negator(w, language) or w in _IMPOSSIBLE for w in around):
            return "must"
        before_comma, comma, after_comma = head.rstrip().rpartition(",")
        if (
            language in ("de", "nl")
            and comma
            and before_comma.casefold().endswith(tail[i])
            and len(_words(after_comma)) <= _INFINITIVE_HEAD
            and words[at - 1 : at] != [_TO_INFINITIVE[language]]
        ):
            return "avoids"  # "Sie können vermeiden, die SD-Karte zu formatieren" (not "Um ... zu vermeiden")
        return None
    return None


# ------------------------------------------------------------------- what doing it would bring about

# A future or conditional verb form, per language: what doing something will or would do. The Romance
# futures and conditionals by their endings; the others by their auxiliaries.
_CONSEQUENCE = {
    "en": re.compile(r"\b(?:will|'ll|would|'d|shall)\b"),
    "fr": re.compile(r"\b(?:\w{2,}(?:ra|ront|rait|raient)|sera|seront|serait)\b"),
    "es": re.compile(r"\b\w+(?:rá|rán|ría|rían)\b"),
    "it": re.compile(r"\b\w+(?:rà|ranno|rebbe|rebbero)\b"),
    "pt": re.compile(r"\b\w+(?:rá|rão|ria|riam)\b"),
    "de": re.compile(r"\b(?:wird|werden|würde|würden|wäre|wären|hätte|hätten|hiesse|müsste|müssten)\b"),
    "nl": re.compile(r"\b(?:zal|zullen|zou|zouden|worden|wordt)\b"),
    "pl": re.compile(r"\b(?:by|będzie|będą|zostanie|zostaną|\w+(?:łoby|łby|łaby|łyby|liby))\b"),
}


def consequence(text: str, language: str) -> bool:
    """Does a clause say what something will or would bring about (a future or a conditional form) without
    calling it a fix ("toutes les intégrations cesseraient de fonctionner", "werden ... storniert";
    not "that would fix it")?"""
    folded = text.casefold()
    found = _CONSEQUENCE.get(language, _CONSEQUENCE["en"]).search(folded)
    return found is not None and BETTER.search(folded) is None


# What opens a condition: a conditional conjunction, or (inverted) a modal before its subject ("Should
# you ...", "Sollten Sie ...", "Mocht u ...", "Were you to ...").
_IF = _set(
    """if si wenn falls se caso qualora als indien jeśli jeżeli gdyby mocht mochten sollte sollten
    würden würde should were"""
)
# Conditions opened by several words: "in case", "au cas où", "en caso de que", "nel caso in cui".
_SEVERAL_WORD_IF = re.compile(
    r"^(?:in case|au cas où|dans le cas où|im fall,? dass|en caso de que|nel caso (?:in cui|che)|"
    r"caso|no caso de|em caso de|in het geval dat|w przypadku gdy)\b\s*",
    re.IGNORECASE,
)
_INVERTED_IF = _set("sollte sollten würden würde should were mocht mochten")
_CONDITION_SUBJECTS = _set("you sie u je pan pani")
_CONDITION_REACH = 8  # "Si un jour vous décidiez de", "Gdyby kiedyś zdecydował się Pan"


def conditional_consequence(head: str, rest: str, language: str) -> bool:
    """The action inside a condition at the head of its sentence ("If you were to X, ...", "Should you X,
    ...", "Sollten Sie X, ...", "Mocht u X, dan ...", "Gdyby Pan X, ...") whose main clause says what would
    then happen (`consequence`): a hypothesis that warns, not an instruction. `head` is the sentence's
    text before the action, `rest` its text after."""
    if len(head) > _WINDOW:
        return False  # a condition of at most eight words
    words = _words(_SEVERAL_WORD_IF.sub("if ", head.lstrip(), count=1))
    if not words or len(words) > _CONDITION_REACH or words[0] not in _IF:
        return False
    if "," in head and language not in ("de", "nl"):
        return False  # a comma inside a condition parts its infinitive only in German and Dutch
    if words[0] in _INVERTED_IF and (len(words) < 2 or words[1] not in _CONDITION_SUBJECTS):
        return False  # "Should be fine", "Sollte das nicht helfen": no subject after the modal
    if not _POLITE.isdisjoint(words) or any(_negator(w, language) for w in words):
        return False  # "Würden Sie bitte ...": a request; a negated condition is read by `text.negation`
    rest = rest[:_WINDOW]
    comma = rest.find(",")
    if comma < 0 or rest[:comma].count(" ") > _CONDITION_REACH:
        return False  # the condition ends soon after its action, and a main clause follows
    main = re.split(r"[.;:!?]", rest[comma + 1 :])[0]
    return consequence(main, language)


# A warning's opening word, in the eight languages: "Careful:", "Attention :", "Vorsicht:", "Uwaga:".
_WARNS = _set(
    """careful beware warning caution attention achtung vorsicht cuidado atención attenzione atenção
    atencao let opgelet waarschuwing uwaga ostrożnie ostrzeżenie prudence ojo occhio pas note noter nota
    aviso hinweis informacja heads wel"""
)
# What doing it fixes (stems): a warning or a notice whose predicate says it helps advises it.
_HELPS = _EFFECT
_WARNING_HEAD = 3  # "Be careful", "Let op", "Tenga cuidado"


def helps(rest: str) -> bool:
    """Does the predicate after the action say it fixes or helps ("Note: resetting it fixes the sync",
    "Nota: formattare la scheda risolve il problema")?"""
    words = _words(_CUT.split(rest[:_WINDOW], 1)[0])
    return BETTER.search(" ".join(words)) is not None or any(_bare(w).startswith(_HELPS) for w in words)


def warned(head: str) -> bool:
    """Does the sentence open with a warning before a colon or a dash ("Be careful:", "Attention :", "Let
    op:", "Achtung -")?"""
    found = _WARNING_CUT.search(head, 0, _WINDOW)
    if found is None:
        return False
    words = _words(head[: found.start()])
    return 0 < len(words) <= _WARNING_HEAD and not _WARNS.isdisjoint(words)


_WARNING_CUT = re.compile(r":|\s[-\u2013\u2014]\s|[\u2013\u2014]|!")


# What introduces a clause that states a fact: "that", "que", "dass", "che", "dat", "że".
_THAT = _set("that que qu' dass che dat że")


# "Hay que", "tendrá que", "tem que": a modal of necessity before "que" is no "that"-clause.
_MUST_BEFORE_QUE = _set(
    """hay habría había habrá tiene tienes tengo tendrá tendría tenga tengas tener tem tens tenho terá teria
    tenha ter há haverá"""
)


def stated_after_that(before: Sequence[str]) -> bool:
    """Is the match the start of a "that"-clause ("Beware that resetting ...", "Sachez que réinitialiser
    ...", "Houd er rekening mee dat de smartcard resetten ...", "pamiętać, że zresetowanie ...")?"""
    at = len(before) - 1 if before and before[-1] in _THAT else len(before) - 2
    if at < 0 or before[at] not in _THAT or (at < len(before) - 1 and before[-1] not in DETERMINERS):
        return False
    return at == 0 or before[at - 1] not in _MUST_BEFORE_QUE


# A sentential relative or an anaphoric clause that judges what was said: "..., which only makes things
# worse", "..., ce qui ne fait qu'empirer les choses", "; ce conseil est dépassé".
_WHICH = re.compile(
    r"(?:,|;|\u2014|\u2013)\s*(?:which|what|ce qui|ce qu'|was|wat|lo que|lo cual|il che|ciò che|o que|co|"
    r"that|this|ce|cet|cette|dieser|diese|dies|das|ese|esa|esto|eso|è|questo|esse|essa|isso|dat|dit|ta|"
    r"ten|to)\b([^.;!?]*)",
    re.IGNORECASE,
)
# Worse, and out of date: the two judgements of advice that reject it without a negation.
_WORSE = (
    *("worse", "empir", "pire", "schlimmer", "schlechter", "verschlimm", "empeor", "peor", "peggior"),
    *("piora", "pior", "erger", "slechter", "pogarsz", "gorsz", "outdated", "obsolet", "dépassé"),
    *("périm", "veraltet", "desactualizad", "superat", "desatualizad", "verouderd", "nieaktualn"),
    *("przestarzał", "obsolete"),
)


# "please ignore that", "ignorieren Sie das", "negeer dat", "proszę to zignorować": a later clause that
# tells the reader to disregard what was said (the verb's stem, an anaphor for its object).
_IGNORE = ("ignor", "zignor", "negeer", "negeren")
_IGNORED = _set(
    "that this it them those das dies es eso esto lo la ello isso isto dat dit het to tego ce cela ça"
)


def ignored_after(rest: str, language: str) -> bool:
    """Does a later clause tell the reader to disregard it ("; please ignore that", "; negeer dat
    alstublieft", "; proszę to zignorować")? Not when it negates that ("don't ignore it")."""
    for clause in re.split(r"[;.!]|\s[-\u2013\u2014]\s", rest[:_WINDOW])[1:]:
        words = _words(clause)
        if (
            any(_bare(w).startswith(_IGNORE) for w in words)
            and not _IGNORED.isdisjoint(words)
            and not any(_negator(w, language) for w in words)
        ):
            return True
    return False


def judged_worse(rest: str, language: str) -> bool:
    """Does a clause after the action judge it worse or out of date ("which only makes things worse",
    "ce conseil est dépassé", "wat alles alleen maar erger maakt"), or tell the reader to ignore it
    (`ignored_after`)? Not when it negates that judgement."""
    if ignored_after(rest, language):
        return True
    for found in _WHICH.finditer(rest[:_WINDOW]):
        words = _words(found.group(1))
        negated = any(_negator(w, language) and w not in ("ne", "n'") for w in words)  # "ne fait qu'empirer"
        if any(_bare(w).startswith(_WORSE) for w in words) and not negated:
            return True
    return False


# What a negated predicate of an omission may say: no option, out of the question ("nie wchodzi w grę"),
# no way out, no help.
_NO_OPTION = (*_OPTION, "gr", "wyjści", "pomo", "rozwiąż", "napraw", "wyjśc")


def omission_rejected(rest: str, language: str) -> bool:
    """The predicate after an action named as not done ("Nieusunięcie konta | nie wchodzi w grę", "... |
    byłoby błędem"): True when it rejects the omission (a negated option or help, or a mistake without a
    negation): the answer recommends the action. False when it says anything else of not doing it."""
    words = _words(_CUT.split(rest[:_WINDOW], 1)[0])[:_PREDICATE_REACH]
    negated = any(_negator(w, language) for w in words)
    if negated:
        return any(_bare(w).startswith(_NO_OPTION) for w in words)
    return _calls_it_wrong(words)
