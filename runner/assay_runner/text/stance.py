"""Whose voice a sentence is in and what stance the answer takes, read from the sentence's structure.

The cue lists of `text.advice` know the words a stance is usually said with ("I agree", "bad advice").
This layer reads the shapes those words stand in, with the eight languages' closed classes (negations,
pronouns, interrogatives, conjunctions, verb endings) rather than more content words:

- **a reply's polarity**: the sentence after a question or a report that speaks of it (an anaphoric
  subject, "That / Das / Eso / Isso / Dat / To ...", or a pro-drop verb or copula after a fronted phrase)
  says no when it negates its predicate ("Das würde hier nichts ändern", "Non cambierebbe nulla"), and
  yes when it calls it a fix without negating ("In your case, it is the quickest fix");
- **counter-advice**: a next sentence that tells the reader to do something else instead ("Keep it on
  and restart the app instead", "Lassen Sie es lieber an") rejects the report before it;
- **a contrast that names a cost**: "..., but that would erase your settings", "aber dabei gehen Ihre
  Einstellungen verloren": a conditional or a loss after but/mais/aber/pero/ma/mas/maar/ale rejects;
- **why-questions**: a question opened by the language's "why" that asks why one would do it rejects
  it ("Warum den Treiber deinstallieren, wenn ...", "Po co ...?"), one with a negation between "why" and
  the action suggests it ("Dlaczego po prostu nie zresetować hasła?");
- **questions about the past**: a question whose action is in a past form asks what the customer did
  ("Avez-vous désinstallé le pilote ?", "Czy odinstalował Pan sterownik?"), it does not advise it;
- **the customer's own report**: a reporting verb whose subject is the person addressed ("You mentioned
  that ...", "Sie schreiben, dass ...", "Pisze Pan, że ...") is in the customer's voice;
- **"no other way than X"**: a negated "other" before a comparison ("Nie ma innego wyjścia niż usunąć
  profil", "keine andere Wahl, als ...") recommends X (a double negative);
- **a heading's polarity**: a short line ending in ":" whose own predicate is negated ("Bitte probieren
  Sie Folgendes nicht aus:") negates its list, unless it is a condition or negates a reversing verb.

A shape this layer cannot place leaves the reading as it was: uncertain where the reader was unsure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from assay_runner.text.reversers import reversed_frame

__all__ = [
    "BECAUSE",
    "BETTER",
    "addressee_report",
    "contrast_cost",
    "counter_advice",
    "heading_negates",
    "no_other_than",
    "past_question",
    "reply_polarity",
    "why_question",
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
_COPULAS = _set("es está sería è sarebbe é seria jest byłoby is")
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
    if counter_advice(text, language):
        return "reject"
    stripped = text.strip()
    if stripped.endswith("?"):
        return None
    clauses = [c for c in re.split(r"[,;:]", stripped.rstrip(".!")) if c.strip()]
    if not clauses:
        return None
    words = _words(stripped)
    if not words or len(words) > _REPLY_WORDS or words[0] in _SUBORDINATORS:
        return None
    # The clause that speaks: the last one ("In your case, it is ..."), or the first when it opens with
    # its subject ("That would not change anything, sadly").
    for clause in (clauses[0], clauses[-1]):
        own = _words(clause)
        if own and _opens_a_reply(own, language):
            break
    else:
        return None
    if any(_negator(word, language) for word in own) and not reversed_frame(clause, language):
        return "no"
    if BETTER.search(clause.casefold()):
        return "yes"
    return None


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
_COST = re.compile(
    r"\b(?:would|could|\w+(?:rait|raient|ría|rían|rebbe|rebbero|riam)|würde|würden|zou|zouden|"
    r"\w+(?:łoby|łby|łaby|łyby|liby))\b|"
    r"\b(?:lose|loses|lost|perd\w*|verlier\w*|verloren|pierd\w*|perder\w*|kwijt|stra\w+|erase|erases|wipe|"
    r"wipes)\b"
)


def contrast_cost(folded: str) -> bool:
    """ "A colleague suggested deleting the profile, but that would erase your settings": a contrast whose
    clause says what doing it would cost (a conditional or a loss) and does not call it a fix."""
    contrast = _CONTRAST.search(folded)
    if contrast is None:
        return False
    rest = folded[contrast.end() :]
    return _COST.search(rest) is not None and BETTER.search(rest) is None


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
    own = _words(phrase)
    endings = _PAST.get(language, ())
    for word in matched:
        if word in own or not word.endswith(endings) or len(word) <= _STEM + 1:
            continue
        verb = next((w for w in own if w[:_STEM] == word[:_STEM] or w[:_STEM] in word), None)
        if verb is not None and not verb.endswith(endings):
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
    words = _words(head)[:_VOICE_REACH]
    for i, word in enumerate(words[:2]):
        if word not in _ADDRESSEE:
            continue
        if any(_REPORTS.match(w) for w in words[i + 1 : i + 3] if w not in _ADDRESSEE):
            return True
        return i == 1 and word in _INVERTED and _REPORTS.match(words[0]) is not None
    return False


# Polite subjects that may follow their verb in a statement ("Pisze Pan, że", "Dice usted que"); a German
# or Dutch verb before "Sie"/"je" is an imperative ("Melden Sie sich ab", "Meld je af").
_INVERTED = _set("pan pani państwo usted ustedes lei você vocês")


# ----------------------------------------------------------------------------------- double negation

_OTHER = _set(
    """other else autre autres andere anderen anderer anderes otra otro otras otros altra altro altre altri
    outra outro outras outros ander innego inna inne innej innych"""
)
_THAN = _set("than but que qu' als che senão senao dan niż niz oprócz poza except")


def no_other_than(head: str, language: str) -> bool:
    """ "There is no other way than to delete the profile", "Nie ma innego wyjścia niż usunąć profil",
    "keine andere Wahl, als ...": a negated "other" before a comparison that introduces the match."""
    words = _words(head)
    than = max((i for i, w in enumerate(words) if w in _THAN), default=None)
    if than is None:
        return False
    other = max((i for i in range(max(0, than - _OTHER_REACH), than) if words[i] in _OTHER), default=None)
    if other is None:
        return False
    return any(_negator(w, language) for w in words[max(0, other - _OTHER_REACH) : other])


_OTHER_REACH = 4  # "no other way than", "nie ma innego wyjścia niż": the words stand close together


# ---------------------------------------------------------------------------------------------- headings

_HEADING_WORDS = 10
_RESTART = _set(
    """but so then however mais donc alors aber also dann daher deshalb pero entonces así ma quindi allora
    mas então portanto maar dus daarom ale więc zatem"""
)


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
