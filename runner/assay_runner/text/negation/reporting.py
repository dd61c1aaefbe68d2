"""A past-tense match after a reporting subject tells what happened; it does not advise it."""

from __future__ import annotations

from assay_runner.text.negation.clause_view import ClauseView
from assay_runner.text.negation.vocabulary import _wordset
from assay_runner.text.tokens import looks_past

# "Already" before a match reports what was done: "you already reinstalled", "hai già reinstallato".
# Subjects whose past-tense verb reports what happened rather than advising it.
_REPORTERS = _wordset("you they i we he she customer user users customers already")


def reported(view: ClauseView, start: int, end: int, question: bool) -> bool:
    """A past-tense match after a reporting subject ("you reinstalled", "the customer already
    reinstalled", "have you reinstalled?") tells what happened; it does not advise it."""
    words = view.words
    already = view.positions("already")
    if already and already[0] < start:
        return True  # "Você já reinstalou", "Je hebt de app al opnieuw geïnstalleerd"
    if not looks_past(words[start]):  # not "Could you bleed the brakes?"
        return False
    before = [w for w in words[max(0, start - 3) : start] if w not in {"have", "has", "had", "just"}]
    return bool(before) and (before[-1] in _REPORTERS or (question and before[-1] in {"it", "that"}))
