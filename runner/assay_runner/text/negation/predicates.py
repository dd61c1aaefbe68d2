"""A match as the subject of a predicate that rejects it ("Reinstalling is not necessary", "is
unnecessary"), and a negated subject that a negated predicate flips back (a double negative)."""

from __future__ import annotations

from assay_runner.text.match import stem
from assay_runner.text.negation.clause_view import _NOT_NEVER, ClauseView
from assay_runner.text.negation.vocabulary import (
    _MAX_ADVERBS,
    _NT_ALL,
    _PREDICATES,
    _REJECTING,
    _REVERSERS,
    _is_adverb,
    _is_verb_group,
    _transparent,
)


def _predicate_negated(view: ClauseView, start: int, end: int) -> bool:
    """ "Disabling the firewall is not necessary" / "is unnecessary": the match is the subject of a
    predicate that rejects it."""
    words = view.words
    # Only transparent words before the match: a clause with thousands of matches asks once.
    if start >= len(words) or (start > view.subject_start and not _negated_subject(view, start)):
        return False
    nominal = words[start].endswith("ing") or (
        start > 0 and words[start - 1] in {"a", "an", "the", "to", "any"}
    )
    reach = min(len(words), end + (5 if nominal else 1))  # the verb follows the subject closely
    verb = next((k for k in range(end, reach) if _is_verb_group(words[k])), None)
    if verb is None:
        return False
    after = verb + 1
    while after < min(len(words), verb + 1 + _MAX_ADVERBS) and (
        _is_adverb(words[after]) or words[after] in _BE
    ):
        after += 1  # "will definitely not", "is really not", "would be no"
    negated = words[verb] in _NT_ALL or words[verb].endswith("n't")
    # "is not", "is never", and "is no": "Not wiping it would be no mistake" is not a double negative
    if not negated and after < len(words) and words[after] in {"not", "never", "neither", "no"}:
        negated, after = True, after + 1
    for later in words[after : after + 3]:
        key = stem(later)
        if key in (_PREDICATES if negated else _REJECTING):
            return True
        if key in _REVERSERS:
            return False
    return False


def double_negative(view: ClauseView, start: int, end: int) -> bool:
    """ "Not reinstalling is not an option", "Not wiping it would be a mistake": both negations cancel,
    and the clause says the action must be done."""
    return _negated_subject(view, start) and _predicate_negated(view, start, end)


_BE = frozenset({"be", "been"})


def _negated_subject(view: ClauseView, start: int) -> bool:
    """ "Not reinstalling is not an option": a subject negated by a "not"/"never" that opens its clause,
    with only transparent words around it. Its predicate's own negation (or rejection) flips it back:
    a double negative recommends the action."""
    first = view.first_opaque
    return (
        first < start <= first + 2
        and view.words[first] in _NOT_NEVER
        and all(_transparent(w) for w in view.words[first + 1 : start])
    )


def _not_only_rejected(view: ClauseView, end: int) -> bool:
    """ "Not only is a reinstall unnecessary, ...": the rejecting word follows the subject (in a clause
    that opens with "not only", `ClauseView.not_only`)."""
    return any(stem(word) in _REJECTING for word in view.words[end : end + 4])
