"""What befalls whoever does it: the action inside a generic relative subject ("Wer das Parkett quer zur
Faser abschleift, hinterlässt tiefe Rattermarken", "wie de vriezer met een föhn ontdooit, ziet de wanden
kromtrekken", "Quien crea un enlace público deja la carpeta a la vista") is a warning, not advice, when a
warning opens the sentence or the main clause says what it risks, loses or cannot undo, and no word of
gain is in it ("Wer die Lager jedes Jahr nachfettet, verlängert ihre Lebensdauer" still advises). The
same warning over a negated action ("Wer den Tank nicht leert, riskiert einen Wasserschaden") says what
befalls whoever leaves it undone: a double negative that advises it."""

from __future__ import annotations

import re

from assay_runner.text.stance.consequences import helps, warned
from assay_runner.text.stance.outcomes import _LEADS_TO, _RISK, _gains
from assay_runner.text.stance.words import BETTER, _calls_it_wrong, _negator, _words

__all__ = ["befalls_whoever"]


def befalls_whoever(text: str, at: int, language: str) -> bool:
    """Is the match at offset `at` of the sentence `text` inside a generic relative subject whose main
    clause warns?"""
    if text.rstrip().endswith("?"):
        return False  # "Wie heeft de vriezer ontdooid?": a question, not a generic subject
    head = text[max(0, at - _REACH) : at]
    opener = None
    for found in _OPENER.finditer(head):
        opener = found  # the last one before the action
    if opener is None or _CUT.search(head, opener.end()):
        return False  # no opener, or a comma between it and the action: the action is in the main clause
    rest = text[at : at + _REACH]
    main = _main_clause(rest, language)
    words = _words(main)
    if not words or BETTER.search(main.casefold()) or helps(main) or _gains(words, language):
        return False
    label = text[: at - len(head) + opener.start()]  # what stands before the pronoun: "Achtung:"
    return warned(label + ":") or _warns(words, main, language)


def _main_clause(rest: str, language: str) -> str:
    """The main clause after the relative one: after its comma (German and Dutch always write one), up to
    the end of the sentence's first clause after it."""
    comma = rest.find(",")
    if language in ("de", "nl") and comma < 0:
        return ""
    after = rest[comma + 1 :] if comma >= 0 else rest
    return re.split(r"[;.!?:]", after, maxsplit=1)[0]


def _warns(words: list[str], main: str, language: str) -> bool:
    """Does the main clause say what doing it risks, loses, leads to or cannot undo?"""
    if any(w in _RISK or w.startswith(_LOSS) for w in words) or _LEADS_TO.search(main.casefold()):
        return True
    return _calls_it_wrong(words) or any(_negator(w, language) for w in words)


_REACH = 200  # characters either side of the action: a generic subject is one clause
_CUT = re.compile(r"[,;:]")
# "wer", "wie", "quien", "quem", "chi", "qui", "kto", "whoever", "anyone who": a generic relative pronoun
# that opens the sentence (after a warning's label, a line break or a sentence's end).
_OPENER = re.compile(
    r"(?:^|[.:!]\s+|\*\*\s*)(?:wer|wie|quien(?:es)?|el que|quem|chi|qui|celui qui|ceux qui|quiconque|kto|"
    r"ktokolwiek|whoever|anyone who|those who|people who|someone who)\s",
    re.IGNORECASE,
)
# Losing or risking, by stem: "verliert", "loses", "perd", "pierde", "perde", "verliest", "traci", risk.
_LOSS = (
    *("verlier", "lose", "loses", "lost", "perd", "pierd", "verlies", "traci", "straci", "risic", "risk"),
    *("rischi", "riesgo", "arriesg", "risco", "arrisc", "ryzyk", "riskier", "beschädig", "damag", "abîm"),
)
