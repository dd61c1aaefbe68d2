"""Advice judged worse or out of date, or to be ignored, by a clause after it ("..., which only makes
things worse", "; ce conseil est dépassé", "; please ignore that")."""

from __future__ import annotations

import re

from assay_runner.text.stance.words import _WINDOW, _bare, _negator, _set, _words

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
