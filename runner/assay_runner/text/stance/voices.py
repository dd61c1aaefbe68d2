"""Whose voice a clause is in: a third party's report of advice, the answer's own refusal to advise, and
the customer's own report ("You mentioned that ...")."""

from __future__ import annotations

import re
from functools import lru_cache, partial

from assay_runner.text.head_words import Before, CuePrefix, head_of
from assay_runner.text.stance.disowning import intensified
from assay_runner.text.stance.words import _SPEAKS_AGAIN, _negator, _set
from assay_runner.text.tokens import tokenize

# ------------------------------------------------------------------------------ a third party's voice

# Verbs that report advice, as infinitives (their inflection keys are compared, so "raadde", "polecił",
# "aconsejó", "sugeriu" are found by "raden", "polecić", "aconsejar", "sugerir"), with the irregular
# forms the stemmer does not join ("dijo", "disse", "zei"). What someone wrote is reported as what they
# said ("Un recensore ha scritto che ...", "Recenzent napisał, że ...").
_REPORTING_VERBS = {
    "en": "say tell suggest recommend advise claim propose write",
    "fr": "dire dit conseiller recommander suggérer proposer affirmer prétendre écrire écrit",
    "de": "sagen raten empfehlen vorschlagen meinen behaupten schreiben schrieb",
    "es": "decir dice dijo dicen dijeron aconsejar recomendar sugerir proponer propuso afirmar escribir "
    "escribió",
    "it": "dire dice dicono detto disse consigliare raccomandare suggerire proporre proposto affermare "
    "scrivere scritto scrisse",
    "pt": "dizer diz dizem disse disseram aconselhar recomendar sugerir propor propôs afirmar escrever "
    "escreveu",
    "nl": "zeggen zei zeiden gezegd raden raadde aanraden adviseren suggereren voorstellen beweren schrijven "
    "schreef",
    "pl": "mówić powiedzieć polecić polecać doradzić doradzać radzić kazać zalecić zalecać sugerować "
    "zaproponować proponować twierdzić pisać napisać",
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
    return _first_report_end(before, language) is not None


def reports_before(before: Before, language: str) -> bool:
    """`reports(before.text, language)`, from where the clause's first reporting verb ends: a word of the
    clause's words joined by spaces is the same word in any text that ends at a space of it (no word
    holds a space), so the text before a match holds one exactly when the clause's first ends in it."""
    return before.ends_with_first(("reports", language), partial(_first_report_end, language=language))


def _first_report_end(text: str, language: str) -> int | None:
    """Where the first verb of `text` that reports advice (`reports`) ends."""
    keys = _reporting_keys(language)
    first = _FIRST_PERSON.get(language, ())
    for token in tokenize(text, language):
        word = token.text.casefold()
        if token.stem not in keys or word.endswith(first):
            continue
        own = _SINGULAR_FIRST.get(language)
        if own is not None and word.endswith("o") and not word.endswith(own):
            continue  # "recomiendo", "consiglio", "recomendo"
        return token.end
    return None


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
            if any(_negator(w, language) for w in near) and not intensified(near):
                return True  # not "We can't recommend it highly enough"
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


def addressee_report(text: str, at: int) -> bool:
    """Does the sentence open with the person addressed reporting ("You mentioned that the help page says
    ...", "Sie schreiben, dass ...", "Pisze Pan, że ...")? What follows is in the customer's voice. The
    pronoun is the subject: it opens the sentence (after at most one word: "So you said"), or follows
    its verb where the language puts a polite subject there ("Pisze Pan", "Dice usted"). The head is the
    sentence `text` before offset `at`, read from the sentence's index (`text.head_words`)."""
    head = head_of(text, at)
    if _NEW_CLAUSE_BEFORE.before(text, at) or head.any_before(len(head), _speaks_again):
        return False  # "You mentioned the sync fails; reset the password then": the answer speaks again
    words = head.first(_VOICE_REACH)
    for i, word in enumerate(words[:2]):
        if word not in _ADDRESSEE:
            continue
        if any(_REPORTS.match(w) for w in words[i + 1 : i + 3] if w not in _ADDRESSEE):
            return True
        return i == 1 and word in _INVERTED and _REPORTS.match(words[0]) is not None
    return False


_NEW_CLAUSE = re.compile(r"[;:\u2014\u2013]|\s-\s")
_NEW_CLAUSE_BEFORE = CuePrefix(_NEW_CLAUSE, 3, folds=False)  # 3: the widest cut (" - ")


def _speaks_again(word: str) -> bool:
    return word in _SPEAKS_AGAIN


# Polite subjects that may follow their verb in a statement ("Pisze Pan, że", "Dice usted que"); a German
# or Dutch verb before "Sie"/"je" is an imperative ("Melden Sie sich ab", "Meld je af").
_INVERTED = _set("pan pani państwo usted ustedes lei você vocês")
