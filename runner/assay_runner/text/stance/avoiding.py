"""What cannot be avoided: a negated or impossible verb of avoiding before the action recommends it; in
German and Dutch the same verb before the action's infinitive clause clears it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from assay_runner.text.stance.words import _SUBORDINATORS, _WINDOW, _bare, _negator, _set, _words

# ------------------------------------------------------------------------- what cannot be avoided

# Verbs and particles of avoiding or getting round something, in the eight languages (stems): "avoid",
# "way around", "éviter", "y échapper", "vermeiden", "darum herum", "daran vorbei", "evitar", "sfuggire",
# "fugir", "vermijden", "ontkomen", "omheen", "uniknąć", "obejść".
_AVOID = (
    *("avoid", "around", "escap", "évit", "evit", "échapp", "vermeid", "vermied", "umgeh", "herum"),
    *("vorbei", "sfugg", "scamp", "fugi", "vermijd", "ontkom", "ontloop", "omheen", "unikn", "obejd"),
    *("obejś", "omin", "umhin", "esquiv", "sottrar", "contourn", "dispens", "fareameno"),
    # putting it off: "can't put it off any longer", "ne plus repousser", "non può più rimandare"
    *("postpon", "delay", "defer", "repouss", "différer", "rimand", "rinvi", "procrastin", "pospon"),
    *("aplaz", "retras", "demor", "adiar", "adia-", "protel", "uitstel", "aufschieb", "verschieb"),
    *("hinauszöger", "odkład", "odłoż", "zwlek", "odwlek"),
)
# Hesitating: denied, it recommends ("I wouldn't hesitate to", "Yo no dudaría en", "Nie wahałbym się
# ... z"); said, it holds back ("J'hésiterais à ...", "Esiterei a ...").
_HESITATE = ("hesit", "hésit", "zöger", "dudar", "dudaría", "esit", "aarzel", "wahał", "wahać", "waha")
# "Fare a meno di" (do without) is one verb of avoiding in three words.
_DO_WITHOUT = re.compile(r"\b(?:fare|farne|faccia|fa) a meno\b", re.IGNORECASE)
# Saying that something cannot be: the negators, and the adjectives of impossibility.
_IMPOSSIBLE = _set("impossible imposible impossibile impossível impossivel unmöglich onmogelijk niemożliwe")
_AVOID_REACH = 6  # "kein Weg daran vorbei, die", "er niet aan de": the action follows its avoiding closely
_NEGATION_REACH = 4  # "No hay forma de evitar", "Es führt kein Weg daran vorbei"
_INFINITIVE_HEAD = 3  # "vermeiden, die | SD-Karte zu formatieren": the infinitive clause holds the action
_HESITATION_REACH = 3  # "Esiterei a | rinvasare", "I'd hesitate to | repot"
_AFTER_REACH = 8  # "kommen Sie vor 900 Kilometern nicht herum"
_TO_INFINITIVE = {"de": "zu", "nl": "te"}
_POLITE = _set("please bitte por favor per favore alstublieft proszę s'il plaît")


# What may stand between a hesitation and its action besides a preposition: "ni un momento", "ani
# chwili", "pas une seconde", "keine Sekunde", "for a second", "się".
_HESITATION_FILLERS = _set(
    """ni un una momento segundo instante ani chwili chwilę sekundy pas une seconde instant keine sekunde
    moment augenblick for a second nessun attimo istante um geen seconde się se me mi mich"""
)


def _hesitation_gap(after: Sequence[str]) -> int:
    """The words between a hesitation and the action, fillers left out."""
    return sum(1 for word in after if word not in _HESITATION_FILLERS)


def _clause_between(segment: str, verb: str) -> bool:
    """Does a comma stand between the verb of avoiding and the end of the segment (the action)? German
    and Dutch put one before every infinitive clause, so they are not asked."""
    folded = segment.casefold().replace("\u2019", "'")
    return "," in folded[folded.rfind(verb) :] if verb in folded else False


def avoided_after(rest: str, language: str) -> bool:
    """German and Dutch put the verb of avoiding or delaying after the action: "Um das Nachfetten der Lager
    kommen Sie nicht herum", "Het stemmen van de ukelele kunt u niet langer uitstellen". Is it there,
    negated, within a few words after the action (`rest`, its sentence's text after the match)?"""
    if language not in ("de", "nl"):
        return False
    words = _words(re.split(r"[.;:!?,]", rest[:_WINDOW])[0])[:_AFTER_REACH]
    at = next((k for k, w in enumerate(words) if _bare(w).startswith(_AVOID)), None)
    return at is not None and any(_negator(w, language) for w in words[:at])


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
    words = _words(_DO_WITHOUT.sub("fareameno", segment) if language == "it" else segment)
    if not words or words[0] in _SUBORDINATORS:
        return None
    tail = words[-_AVOID_REACH:]
    for i in range(len(tail) - 1, -1, -1):
        hesitates = _bare(tail[i]).startswith(_HESITATE)
        if not hesitates and not _bare(tail[i]).startswith(_AVOID):
            continue
        at = len(words) - len(tail) + i
        if language not in ("de", "nl") and _clause_between(segment, tail[i]):
            return None  # "Don't postpone the update, and don't reset the hub": another clause's verb
        around = words[max(0, at - _NEGATION_REACH) : at]
        if language in ("de", "nl"):  # the negation may follow its verb: "U ontkomt er niet aan"
            around = [*around, *words[at + 1 : at + 1 + _NEGATION_REACH]]
        if language == "fr":  # "N'hésitez pas à", "vous n'y échapperez pas": "ne" on the verb, "pas" after
            around = [*around, words[at], *words[at + 1 : at + 3]]
        if hesitates and _hesitation_gap(words[at + 1 :]) > _HESITATION_REACH:
            return None  # "Don't hesitate to call us before you reset it": about another verb
        if any(_negator(w, language) or w in _IMPOSSIBLE for w in around):
            return "must"
        if hesitates:
            return "avoids"  # "J'hésiterais à rempoter le cactus avant le printemps"
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
