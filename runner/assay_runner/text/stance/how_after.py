"""A line that opens with a negation and ends by saying how to do it ("**No workshop needed - you can do
this yourself:**", "Geen kapper nodig, zo los je het zelf op:", "### Nada de subir ao telhado: o que fazer
quando o alarme disparar"): its negation is of a visit, a tool or a worry, and the list after it is the
instructions (`sentences.negating_intro`)."""

from __future__ import annotations

import re

from assay_runner.text.stance.setting_aside import _LINE_CHARACTERS, _last_clause
from assay_runner.text.stance.words import NEGATORS, _negator, _words

__all__ = ["shows_how"]


def shows_how(text: str) -> bool:
    """Does this introducing line end, after a cut from what it negates, in a clause that says how to do
    what follows, with no negation of its own? A line with no cut ("Don't do this yourself:") does not."""
    line = text.strip().strip("*#_ ").rstrip(":*_ ")
    if len(line) > _LINE_CHARACTERS:
        return False
    last = _last_of_line(line)
    if last is None or _HOW.search(last.casefold()) is None:
        return False
    return not any(_negator(word, language) for word in _words(last) for language in NEGATORS)


def _last_of_line(line: str) -> str | None:
    """The clause after the line's last cut (a sentence end, a colon, a dash or a comma), or None when the
    line has no cut: then the negation and the "how" are one clause."""
    _sentence, clause = _last_clause(line)
    if clause != line:
        return clause
    cut = _COLON.split(line)
    return cut[-1] if len(cut) > 1 else None


_COLON = re.compile(r":\s+")
# Saying how, or that the customer can do it, in the eight languages ("así que", "assim que" and "così
# che" say "so that", not how).
_HOW = re.compile(
    r"\b(?:here'?s how|here is how|how to|do this|you can do|yourself|voici comment|comme ceci|"
    r"comme ça|faites ceci|vous-même|que faire|so geht'?s|so gehen sie vor|selbst|selber|was zu tun|"
    r"así(?! que| pues)|hazlo|haga esto|usted mismo|tú mismo|qué hacer|così(?! che)|da solo|da sola|"
    r"da sé|cosa fare|assim(?! que| sendo)|faça isto|o que fazer|você mesmo|sozinho|sozinha|zo doet u|"
    r"zo doe je|zo los je|zelf|wat te doen|wystarczy|zrób tak|co robić|samodzielnie)\b"
)
