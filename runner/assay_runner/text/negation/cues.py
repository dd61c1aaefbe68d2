"""Negation cues in a clause's words, in every language read: verbal ("not", "never", "ne ... pas") and
prepositional ("without", "instead of", "avoid"), and French "ne ... que" (only), which negates nothing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from assay_runner.text.match import stem
from assay_runner.text.negation.vocabulary import (
    _ADVISE_AGAINST,
    _ADVISING,
    _DESCRIPTIVE_BEFORE_NOT,
    _FORBIDDING,
    _NT_ALL,
    _NT_DIRECTIVE,
)


class _Cue(NamedTuple):
    start: int
    end: int
    strict: bool
    """Prepositional (without, instead of, avoid...): governs only the phrase it introduces."""
    directive: bool
    """Tells the reader not to do something (don't, never, avoid): may carry over a list."""


# Every word that can be (or start) a negation cue: the others are skipped without a look at neighbours.
# French, Spanish and German cues: "ne ... pas", "sans", "au lieu de", "évitez de"; "nunca", "sin", "en
# lugar de", "evite"; "nicht", "nie", "kein", "ohne", "statt" (German "nicht" after the verb is read
# clause-wide: `german_negation`).
# Italian "non", "mai", "senza", "invece di", "evita"; Portuguese "não", "nunca", "sem", "em vez de",
# "evite"; Dutch "niet", "nooit", "geen", "zonder", "in plaats van", "vermijd" (clause-wide, as German);
# Polish "nie", "nigdy", "bez", "zamiast", "unikaj".
_FOREIGN_VERBAL = (
    frozenset({"ne", "n'", "jamais", "inutile", "nunca", "jamás", "jamas", "nie", "niemals"})
    | frozenset({"kein", "keine", "keinen", "keinem", "keiner", "keinesfalls", "nicht"})
    | frozenset({"non", "mai", "não", "nao", "niet", "nooit", "geen", "nigdy", "żadnym", "zadnym"})
    | frozenset({"nessun", "nessuna", "nessuno", "nemmeno", "neanche", "nem", "nenhum", "nenhuma"})
    | frozenset({"niets", "żaden", "żadna", "żadne", "ani"})
    | frozenset({"ni", "né", "weder"})  # neither ... nor: "Ni supprimer ... ni ...", "Weder ... noch ..."
    | frozenset({"nadie", "niemand", "ninguém", "ninguem", "nikt"})  # nobody
)


_FOREIGN_PREPOSITIONAL = frozenset(
    {"sans", "sin", "ohne", "statt", "anstatt", "senza", "sem", "zonder", "bez", "zamiast"}
)


_FOREIGN_AVOID = frozenset(
    {"évitez", "évite", "éviter", "evite", "evita", "evitar", "vermeiden", "evitate", "evitare", "eviti"}
    | {"evitem", "vermijd", "vermijden", "unikaj", "unikać", "unikajcie", "unikac"}
)


# "Unnecessary to", in every language: it governs only the action it introduces ("Es innecesario
# desactivar ...", "Het is onnodig om ... uit te schakelen"), not a noun it describes.
_NEEDLESS = frozenset(
    {"unnecessary", "needless", "pointless", "useless", "innecesario", "desnecessário", "desnecessario"}
    | {"onnodig", "nutteloos", "zinloos", "unnötig", "sinnlos", "überflüssig", "inútil", "inutil"}
    | {"superflu", "superflue", "superfluo", "zbędne", "niepotrzebne", "bezcelowe", "zbyteczne"}
)


# Two-word and three-word prepositional cues: "instead of" in French, Spanish, Italian, Portuguese, Dutch.
_FOREIGN_INSTEAD = frozenset(
    {("au", "lieu", "de"), ("en", "lugar", "de"), ("em", "vez", "de"), ("in", "plaats", "van")}
    | {("ao", "invés", "de")}
)


_INTERJECTIONS = frozenset({"no", "non", "não", "nao", "nee", "nein"})  # "No, ..." answers, not a ban


_GERMAN_NEGATION = frozenset({"nicht", "nie", "niemals", "keinesfalls"})


# German and Dutch "without", "instead of" take a phrase that ends with its verb: they govern the clause.
_VERB_FINAL = frozenset({"ohne", "statt", "anstatt", "zonder", "plaats"})


_DUTCH_NEGATION = frozenset({"niet", "nooit", "geen", "geenszins"})


_CUE_WORDS = (
    _FOREIGN_VERBAL
    | _FOREIGN_PREPOSITIONAL
    | _FOREIGN_AVOID
    | _NEEDLESS
    | frozenset({"lieu", "lugar", "plutôt", "invece", "vez", "plaats", "invés"})
    | frozenset({"instead", "rather", "refrain", "without", "avoid", "avoiding", "stop", "stopping"})
    | frozenset({"against", "impossible", "unable", "not", "never", "neither", "no"})
    | frozenset({"nor", "nothing", "none", "nobody", "af", "ab", "noch", "pas"})
    | _FORBIDDING
    | _NT_ALL
)


def may_hold_cues(text: str, words: Iterable[str]) -> bool:
    """Can `text` (whose words are `words`) hold a negation cue? A cheap test that most clauses fail:
    without an apostrophe in the text no word ends in "n't"."""
    return "'" in text or "\u2019" in text or not _CUE_WORDS.isdisjoint(words)


def find_cues(words: Sequence[str]) -> list[_Cue]:
    cues: list[_Cue] = []
    count = len(words)
    for i in [i for i, w in enumerate(words) if w in _CUE_WORDS or w.endswith("n't")]:
        w = words[i]
        prev = words[i - 1] if i else ""
        nxt = words[i + 1] if i + 1 < count else ""
        # The second word of a two-word cue ("of", "than", "from") is never a cue word itself.
        if w in _NE and _restrictive(words, i):
            continue  # "Vous n'avez qu'à supprimer ...": French "ne ... que" is "only", no negation
        if (w, nxt) in {("instead", "of"), ("rather", "than"), ("refrain", "from"), ("plutôt", "que")}:
            cues.append(_Cue(i, i + 2, strict=True, directive=w == "refrain"))
        elif (prev, w, nxt) in _FOREIGN_INSTEAD or (w, nxt) == ("invece", "di"):
            cues.append(_Cue(i, i + 2, strict=True, directive=False))
        elif w in _FOREIGN_PREPOSITIONAL:
            cues.append(_Cue(i, i + 1, strict=True, directive=False))
        elif w in _FOREIGN_AVOID:
            cues.append(_Cue(i, i + 1, strict=True, directive=True))
        elif w in _NEEDLESS:
            cues.append(_Cue(i, i + 1, strict=True, directive=False))
        elif w in _FOREIGN_VERBAL:
            cues.append(_Cue(i, i + 1, strict=False, directive=True))
        elif w == "noch" and ("weder" in words[:i] or words.count("noch") > 1):
            # "Weder ... noch ...", Dutch "Noch ... noch ...": not German "noch" (still, yet)
            cues.append(_Cue(i, i + 1, strict=False, directive=True))
        elif w in {"without", "avoid", "avoiding", "stop", "stopping"}:
            cues.append(_Cue(i, i + 1, strict=True, directive=w in {"avoid", "stop"}))
        elif (
            w in _FORBIDDING
            or (w == "against" and stem(prev) in _ADVISING)
            or (w in {"af", "ab"} and not _ADVISE_AGAINST.isdisjoint(words[max(0, i - 3) : i]))
        ):
            cues.append(_Cue(i, i + 1, strict=True, directive=True))  # "policy forbids", "advise against"
        elif w == "pas" and nxt in _PAS_ALONE and not any(_french_ne(v) for v in words[max(0, i - 4) : i]):
            # spoken French drops the "ne": "Pas la peine de recoller la semelle", "Pas besoin de ..."
            cues.append(_Cue(i, i + 1, strict=False, directive=True))
        elif w in {"impossible", "unable"}:
            cues.append(_Cue(i, i + 1, strict=False, directive=False))
        elif w == "not" and prev != "or":  # "whether or not" negates nothing
            cues.append(_Cue(i, i + 1, strict=False, directive=prev not in _DESCRIPTIVE_BEFORE_NOT))
        elif w in {"never", "neither"}:
            cues.append(_Cue(i, i + 1, strict=False, directive=True))
        elif w == "no":
            cues.append(_Cue(i, i + 1, strict=False, directive=nxt == "need"))
        elif w in {"nor", "nothing", "none", "nobody"} or w in _NT_ALL or w.endswith("n't"):
            cues.append(_Cue(i, i + 1, strict=False, directive=w in _NT_DIRECTIVE))
    return cues


_NE = frozenset({"ne", "n'"})
# What "pas" without its "ne" opens in spoken French: "Pas la peine de", "Pas besoin de" (not "Pas question
# de ... sans ...", whose "sans" it would negate).
_PAS_ALONE = frozenset({"la", "besoin", "nécessaire"})


def _french_ne(word: str) -> bool:
    return word in _NE or word.startswith("n'")


_NE_PARTNERS = frozenset(
    {"pas", "jamais", "plus", "rien", "aucun", "aucune", "personne", "guère", "point", "ni"}
)


_RESTRICTIVE_REACH = 4  # "n'avez | qu'à", "ne vous reste | que", "ne faut | que"


def _restrictive(words: Sequence[str], i: int) -> bool:
    """Is the French "ne" at `i` the first half of "ne ... que" (only), with no "pas", "jamais", ... of
    its own before the "que"?"""
    for w in words[i + 1 : i + 1 + _RESTRICTIVE_REACH]:
        if w in _NE_PARTNERS:
            return False
        if w in {"que", "qu'"}:
            return True
    return False
