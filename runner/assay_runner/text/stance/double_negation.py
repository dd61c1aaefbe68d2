"""Double negatives that recommend the action: "no other way than", "wrong not to", a negated infinitive
subject before a negated option (German, Dutch), "not doing it won't fix it", and a negated verbal noun
whose predicate rejects the omission (Polish)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.head_words import head_of
from assay_runner.text.match import DETERMINERS
from assay_runner.text.stance.words import (
    _WINDOW,
    _bare,
    _calls_it_wrong,
    _negator,
    _negator_of,
    _set,
    _words,
)

# ----------------------------------------------------------------------------------- double negation

_OTHER = _set(
    """other else autre autres andere anderen anderer anderes otra otro otras otros altra altro altre altri
    outra outro outras outros ander anders innego inna inne innej innych
    otherwise differently autrement altrimenti diversamente inaczej"""
)
# Verbs of remaining, by stem: rester, restare, restar, quedar, bleiben, resten, pozostać, zostać.
_REMAINING = ("rest", "qued", "bleib", "pozost", "zosta")
_THAN = _set("than but que qu' als che senão senao dan niż niz oprócz poza except")


def no_other_than(text: str, at: int, language: str) -> bool:
    """ "There is no other way than to delete the profile", "Nie ma innego wyjścia niż usunąć profil",
    "Er zit niets anders op dan ...", "There is no alternative to ...": a negated "other" before a
    comparison that introduces the match at offset `at` of the sentence `text`. Every word it reads lies
    within the last `_OTHER_WORDS` before the match."""
    written = head_of(text, at).last(_OTHER_WORDS)
    words = [_bare(w) for w in written]
    if len(words) >= 2 and words[-1] in _TO and words[-2].startswith("alternativ"):
        return any(_negator(w, language) for w in words[-5:-2])
    # "que", "qu'à" ("Il ne vous reste plus qu'à ..."): the comparison may carry its preposition
    than = max((i for i, w in enumerate(written) if words[i] in _THAN or w.startswith("qu'")), default=None)
    if than is None or len(words) - than - 1 > _AFTER_THAN:
        return False  # "no other option than calling support before you reset it": not the action
    near = range(max(0, than - _OTHER_REACH), than)
    other = max((i for i in near if _other(words[i], language)), default=None)
    if other is None:
        return False
    # The negation as written: "n'avez" is a negation that its bare "avez" is not.
    return any(_negator(w, language) for w in written[max(0, other - _OTHER_REACH) : other])


def _other(word: str, language: str) -> bool:
    """ "other", or a verb of remaining ("Il ne vous reste que", "Non le resta che", "No le queda más
    remedio que", "Ihnen bleibt nichts übrig als"): negated before "than", what is left is the action."""
    return word in _OTHER or word.startswith(_REMAINING) or (language == "es" and word == "más")


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
    *("werk", "napraw", "rozwiąż", "rozwiąz", "pomo", "dział", "gelöst", "behob", "opgelost", "geholfen"),
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
