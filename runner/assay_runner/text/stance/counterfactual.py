"""A need said of a case that is not the customer's: a condition contrary to fact, then what would be
needed in it, impersonally ("Si le voyant « Plein » était allumé, il faudrait vider le réservoir ; or il
est éteint", "Si su motosierra fuera de gasolina, habría que ajustar el carburador", "Gdyby lampka się
świeciła, trzeba by było opróżnić zbiornik"). The past or subjunctive of the condition says it does not
hold, so the action is not advised. "If I were you, I would ..." and "Wäre es mein Topf, ich ließe ..."
put the answer in the customer's place and do advise: a condition in the first person is not read."""

from __future__ import annotations

import re

from assay_runner.text.stance.outcomes import _speaks_for_itself
from assay_runner.text.stance.words import _set, _words
from assay_runner.text.tokens import looks_past

__all__ = ["counterfactual_need"]


def counterfactual_need(text: str, at: int, language: str) -> bool:
    """Is the match at offset `at` of the sentence `text` what an impersonal conditional need says right
    before it, in the main clause of a condition contrary to fact?"""
    head = text[max(0, at - _REACH) : at]
    need = _NEED.get(language)
    if need is None:
        return False
    condition = _CONDITION.get(language)
    if condition is None:
        return False
    said = need.search(head)
    if said is None:
        return False
    found = None
    for match in condition.finditer(head, 0, said.start()):
        found = match  # the last condition before the need
    if found is None:
        return False
    clause = head[found.start() : said.start()]
    if _speaks_for_itself(_words(clause), language):
        return False  # "If I were you", "Wäre es mein Topf": the answer in the customer's place advises
    return _past(_words(clause.rstrip(" ,;")), language)


_REACH = 200  # characters before the action: the condition and its main clause are one sentence
# An impersonal need in the conditional, right before the action.
_NEED = {
    "en": re.compile(r"\b(?:you(?:'d| would) (?:need|have) to|it would be time to|would need to)\s+$", re.I),
    "fr": re.compile(r"\b(?:il faudrait|il serait temps de|il conviendrait de)\s+$", re.I),
    "es": re.compile(r"\b(?:habría que|haría falta|sería hora de|tendría que)\s+$", re.I),
    "it": re.compile(r"\b(?:bisognerebbe|occorrerebbe|sarebbe ora di|si dovrebbe)\s+$", re.I),
    "pt": re.compile(
        r"\b(?:seria altura de|seria preciso|seria necessário|teria de|teria que|haveria que)\s+$", re.I
    ),
    "de": re.compile(r"\b(?:müsste|müssten|sollte)\s+(?:\w+\s+){0,3}$", re.I),
    "nl": re.compile(r"\bzou\s+(?:\w+\s+){0,3}$", re.I),
    "pl": re.compile(r"\b(?:trzeba by (?:było)?|należałoby|musiałby Pan|musiałaby Pani)\s+$", re.I),
}
# What opens the condition.
_CONDITION = {
    "en": re.compile(r"\bif\b|^(?:were|had)\b", re.I),  # "If I were you": its "were" opens nothing
    "fr": re.compile(r"\bs(?:i\b|')", re.I),
    "es": re.compile(r"\bsi\b", re.I),
    "it": re.compile(r"\bse\b", re.I),
    "pt": re.compile(r"\bse\b", re.I),
    "de": re.compile(r"(?:^|\b)(?:wenn|falls|würde|wäre|hätte)\b", re.I),
    "nl": re.compile(r"\b(?:als|indien|mocht)\b", re.I),
    "pl": re.compile(r"\bgdyby", re.I),
}
# The condition's verb in a past or subjunctive that says the condition does not hold, per language: its
# irregular forms, and the endings of the regular ones (not words that merely end so: "jamais", "para",
# "esse").
_IRREGULAR = _set(
    """were was had did était étais avait avais fuera fuese tuviera estuviera hubiera fosse fossero avesse
    fosse tivesse estivesse houvesse fossem wäre wären würde würden hätte hätten könnte sollte was waren
    had hadden zou zouden kon konden mocht moest"""
)
_ENDINGS = {
    "fr": ("ait", "aient"),
    "es": ("ara", "iera", "aras", "ieras", "aran", "ieran", "ase", "iese", "asen", "iesen"),
    "it": ("asse", "esse", "isse", "assero", "essero", "issero"),
    "pt": ("asse", "esse", "isse", "assem", "essem", "issem"),
    "de": ("te", "ten"),
    "nl": ("te", "de", "ten", "den"),
}
_NOT_PAST = _set(
    """para cara clara rara vara interesse esse nesse desse classe passe stesse adesso spesso presse
    seite karte flasche platte kette rechte linke beide grote oude nieuwe rode goede brede"""
)


def _past(words: list[str], language: str) -> bool:
    """Is a verb of the condition in a past or a subjunctive? German and Dutch put it last in the clause
    (or first, "Würde die Anzeige leuchten")."""
    if language == "pl":
        return True  # "gdyby" is the condition's mood itself
    candidates = words[:1] + words[-1:] if language in ("de", "nl") else words
    endings = _ENDINGS.get(language, ())
    for word in candidates:
        if word in _IRREGULAR:
            return True
        if language == "en" and looks_past(word) and len(word) > _SHORTEST:  # not "red", "bed"
            return True
        if endings and word.endswith(endings) and word not in _NOT_PAST and len(word) > _SHORTEST:
            return True
    return False


_SHORTEST = 4  # letters: "vara", "rote" are no verbs
