"""Does a negation cue govern the match (`negated`): the cue's head, a run-on that starts new advice, a
later conjunct under a prepositional cue, and the predicate the match is the subject of."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from assay_runner.text.match import stem
from assay_runner.text.negation.clause_view import ClauseView, _any_between, _head
from assay_runner.text.negation.cues import _VERB_FINAL, _Cue
from assay_runner.text.negation.predicates import _negated_subject, _not_only_rejected, _predicate_negated
from assay_runner.text.negation.reversing import _AFTER_THE_VERB, _after_reversing, _reversing
from assay_runner.text.negation.vocabulary import _STATE_AUX, _STATE_NEGATIONS, _TAKES_A_VERB


def _governs(view: ClauseView, cue: _Cue, start: int, *, strict: bool) -> bool:
    head = _head(view, cue, start)
    if not strict and view.language in _AFTER_THE_VERB and _after_reversing(view, cue.start):
        return False  # "Aarzel niet om de router te resetten": the negation follows the verb it reverses
    if head is None:
        return True  # only transparent words between the cue and the match: the match is its head
    if not strict:
        if not cue.directive and _any_between(view.positions("restart"), head, start):
            return False  # a run-on: "It won't open just reinstall it" starts new advice at "just"
        if _describes_then_directs(view, cue, head, start):
            return False
        if view.words[head] == "way" and view.words[head + 1 : head + 2] == ["around"]:
            return False  # "There is no way around reinstalling"
        return not _reversing(view, head)
    if view.words[cue.end - 1] in _VERB_FINAL:
        return True  # "ohne das Gerät zurückzusetzen": the verb ends the phrase the cue introduces
    return _coordinated(view, cue, start)


def _describes_then_directs(view: ClauseView, cue: _Cue, head: int, start: int) -> bool:
    """A run-on without a comma: "The sync does not work reinstall the app", "It is not responding
    disable the firewall". A negation that describes a state ("does not", "is not", "isn't") governs its
    verb; a bare verb right after that verb is new advice, unless the first verb takes it as an object
    ("does not require reinstalling", "does not help reinstall")."""
    words = view.words
    word, before = words[cue.start], words[cue.start - 1] if cue.start else ""
    stating = (word == "not" and before in _STATE_AUX) or word in _STATE_NEGATIONS
    if not stating or head != cue.end or start != head + 1:
        return False
    return not (words[start].endswith(("ing", "ed", "s")) or stem(words[head]) in _TAKES_A_VERB)


def _coordinated(view: ClauseView, cue: _Cue, start: int) -> bool:
    """Strict scope reaching a later conjunct: "without reinstalling or resetting"."""
    words = view.words
    coordinators = view.positions("coordinator")
    k = bisect_left(coordinators, start) - 1
    if k < 0 or coordinators[k] < cue.end:
        return False
    last = coordinators[k]  # the last "or"/"nor"/"and" between the cue and the match
    if view.opaque_from(last + 1) < start:
        return False
    head = _head(view, cue, last)
    if head is None or _reversing(view, head):
        return False
    if words[last] == "and":  # "and" only joins -ing forms here; else it starts new advice
        return words[head].endswith("ing") and start < len(words) and words[start].endswith("ing")
    return True


def negated(view: ClauseView, start: int, end: int, carried: bool) -> bool:
    flips = 0
    verbal_count = bisect_right(view.verbal_ends, start)
    if verbal_count:
        index = verbal_count - 1
        if _governs(view, view.verbal[index], start, strict=view.subordinate):
            flips += 1 + view.cancelled(index)
    elif carried:
        flips += 1
    if view.prepositional:
        prepositional_count = bisect_right(view.prepositional_ends, start)
        if prepositional_count and _governs(
            view, view.prepositional[prepositional_count - 1], start, strict=True
        ):
            flips += 1
    # A match after the clause's first opaque word is no predicate's subject ("_predicate_negated").
    if (
        (start <= view.subject_start or _negated_subject(view, start))
        and _predicate_negated(view, start, end)
    ) or (view.not_only and _not_only_rejected(view, end)):
        flips += 1
    return flips % 2 == 1
