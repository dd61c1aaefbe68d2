"""A reply's polarity: what a short sentence after a question or a report says of it (no, yes, reject),
counter-advice in the next sentence, and a contrast that names a cost ("..., but that would erase ...")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from assay_runner.text.reversers import reversed_frame
from assay_runner.text.stance.disowning import disowns, doubts, intensified
from assay_runner.text.stance.words import (
    _SUBORDINATORS,
    BETTER,
    _bare,
    _calls_it_wrong,
    _negator,
    _set,
    _words,
)

Polarity = Literal["yes", "no", "reject"] | None


# ------------------------------------------------------------------------------------ a reply's polarity

# What a reply that speaks of the sentence before it opens with: an anaphoric subject, or (in the pro-drop
# languages) its verb or copula.
_ANAPHORS = _set(
    """it that this doing so c' cela ça ce ceci das dies dieses es eso esto ello lo ciò questo quello
    isso isto aquilo dat dit het to tego"""
)
_COPULAS = _set("es está sería fue era è sarebbe fu stato stata é seria foi jest byłoby był była było is")
_REPLY_WORDS = 14  # a reply that speaks of the sentence before it is short


@lru_cache(maxsize=4096)
def reply_polarity(text: str, language: str) -> Polarity:
    """What a short statement after a question or a report says of it, by its structure: "no" when it
    negates its predicate, "yes" when it calls it a fix, "reject" when it advises something else
    instead (`counter_advice`). None when its shape says neither."""
    words = _words(text)
    if not _INSTEAD_WORDS.isdisjoint(words) and counter_advice(text, language):
        return "reject"
    if disowns(text, language):
        return "reject"  # "Das übernehmen wir nicht", "C'est beaucoup trop souvent" (`stance.disowning`)
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
    if negated and intensified(own):
        return None  # "no podemos recomendarlo lo suficiente": the negation does not refuse it
    if negated and doubts(own):
        return "yes"  # "No dudamos de que tenga razón", "We don't doubt she's right"
    if negated:
        return "no"
    if BETTER.search(clause.casefold()):
        return "yes"
    return None


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
    r"\b(?:but|mais|aber|doch|pero|ma|mas|maar|ale|however|cependant|jedoch|sin embargo|però)\b"
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
# What is left unprotected: "but that leaves your photos unprotected", "ma le foto resterebbero senza
# protezione", "aber dann sind Ihre Fotos ungeschützt", "ale wtedy zdjęcia nie będą chronione".
_UNPROTECTED = re.compile(
    r"\b(?:unprotected|no longer protected|ungeschützt\w*|nicht mehr geschützt|onbeschermd|"
    r"niet meer beschermd|sans protection|ne (?:\w+ ){0,2}plus protégé\w*|sin protección|"
    r"senza protezione|sem proteção|bez ochrony|nie będą chronione|niechronione)\b"
)
# What a contrast's clause opens with when it speaks of doing what was said: "but that would ...",
# "mais cela ...", "ma così ...", "aber dann/dabei ...", "ale wtedy ...".
_ITS_RESULT = _ANAPHORS | _set("so così dabei dann daarbij dan wtedy então entonces alors ainsi")
# ... or with the customer's own things ("mais vos photos ne seraient plus ...", "pero sus fotos quedarían")
_ITS_RESULT |= _set(
    "your vos votre tes ton ta sus su tus tu sue suoi sua suo suas seus seu uw je ihre ihr deine"
)
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
    if _LOSS.search(rest) or _UNPROTECTED.search(rest):
        return True
    head = _words(rest)[:_RESULT_REACH]
    return bool(head) and not _ITS_RESULT.isdisjoint(head) and _CONDITIONAL.search(rest) is not None
