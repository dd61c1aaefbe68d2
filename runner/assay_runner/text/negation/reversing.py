"""Negations that encourage: a negated verb that reverses what follows ("Don't hesitate to", "N'hésitez pas
à", "Zögern Sie nicht")."""

from __future__ import annotations

from assay_runner.text.match import stem
from assay_runner.text.negation.clause_view import ClauseView
from assay_runner.text.negation.cues import _DUTCH_NEGATION, _FOREIGN_VERBAL, _GERMAN_NEGATION
from assay_runner.text.negation.vocabulary import _REVERSERS
from assay_runner.text.reversers import reverses

_AFTER_THE_VERB = frozenset({"de", "nl"})  # a negation follows the verb it negates
_PUT = frozenset({"put", "putting"})
_SEPARABLE_PARTICLES = frozenset({"los", "vast", "weg", "aus", "ab", "uit", "af", "terug", "zurück"})


def _after_reversing(view: ClauseView, at: int) -> bool:
    """Does a verb that the negation at `at` reverses stand right before it ("Zögern Sie | nicht") or,
    verb-final, right after it ("kann | nicht schaden", "kan | geen kwaad")?"""
    around = [*range(max(0, at - 2), at), *range(at + 1, min(len(view.words), at + 2))]
    return any(_reversing(view, k) for k in around)


def encouraged(view: ClauseView, start: int, end: int) -> bool:
    """Does a negated reversing verb stand right before the match, in a language other than English
    ("N'hésitez pas à | réinitialiser", "Nie wahaj się | zresetować", "Aarzel niet om | de router ...")?
    Such a clause advises the match as "Don't hesitate to" does."""
    if view.language == "en":
        return False
    words = view.words
    for k in range(max(0, start - _ENCOURAGING_REACH), start):
        if _reversing(view, k):  # "oublier | de réinstaller", "wahaj się | zresetować"
            near = words[max(0, k - _ENCOURAGING_REACH) : k + 3]
            # German and Dutch negate the reversing verb after it ("Vergeet niet"): skip that one
            # and French closes its "ne" after it ("N'hésitez pas à")
            own = k + 3 if view.language in _AFTER_THE_VERB else k + 1
            if words[k + 1 : k + 2] in (["pas"], ["jamais"], ["plus"]):
                own = k + 2
            if not _ENCOURAGING_NEGATIONS.isdisjoint(words[own:end]):
                return False  # "Non dimenticare di non reinstallare": the action itself is negated
            if not _ENCOURAGING_NEGATIONS.isdisjoint(near):  # "Il ne faut surtout pas oublier de ..."
                return True
    return False


_ENCOURAGING_REACH = 4  # "N'hésitez pas à" / "No dude en": the verb's complement follows closely


_ENCOURAGING_NEGATIONS = _FOREIGN_VERBAL | {"pas", "no", "not", "never"}


def reversed_negation(view: ClauseView) -> bool:
    """A German or Dutch clause whose every negation follows a verb it reverses ("Aarzel niet om de router
    te resetten", "Zögern Sie nicht ..."): the negation encourages the rest, it does not negate it."""
    words = view.words
    negations = [i for i, w in enumerate(words) if w in _GERMAN_NEGATION or w in _DUTCH_NEGATION]
    return bool(negations) and all(_after_reversing(view, i) for i in negations)


def _reversing(view: ClauseView, index: int) -> bool:
    """Is the word at `index` one whose negation encourages what follows ("hesitate", "hésitez")?"""
    if view.language in _AFTER_THE_VERB and view.words[index] in _SEPARABLE_PARTICLES:
        return False  # "Koppel de kabel niet los": Dutch "los" is a verb's particle, not English "lose"
    if stem(view.words[index]) in _REVERSERS:
        return True
    if view.words[index] in _PUT and view.words[index + 1 : index + 2] == ["off"]:
        return True  # "Don't put off reinstalling": a delay, negated, urges the action
    return view.language != "en" and reverses(view.tokens[index].stem, view.language)
