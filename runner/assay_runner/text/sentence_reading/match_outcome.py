"""What one match in a clause comes to (`judge_match`): nothing (negated, reported, cleared), a plain
violation or an uncertain one; and a clause's first violation (`first_violation`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from assay_runner.text.advice import ADVISES, Facts, Outcome, rhetorical_advice, rhetorical_rejection, weigh
from assay_runner.text.forbidden import ForbiddenRule
from assay_runner.text.language import negated_verbal_noun
from assay_runner.text.match import DETERMINERS, VERB_FIRST
from assay_runner.text.negation import (
    ClauseView,
    contrasted_after,
    double_negative,
    encouraged,
    german_negation,
    negated,
    reported,
    reversed_negation,
    without_beside_negation,
)
from assay_runner.text.negation.inside import negated_inside
from assay_runner.text.polarity import (
    cannot_avoid,
    denial,
    may_compose,
    negated_twice,
    negations_after,
    rejected_subject,
)
from assay_runner.text.sentence_reading.placing import Match
from assay_runner.text.stance import (
    avoidance,
    avoided_after,
    excessive,
    negated_effect_after,
    negative_question,
    no_other_than,
    omission_rejected,
    past_question,
    rejected_in_next_clause,
    what_if,
    why_question,
    wrong_not_to,
)
from assay_runner.text.stance.cannot_not import cannot_not, unless_needed
from assay_runner.text.stance.counterfactual import counterfactual_need
from assay_runner.text.stance.generic_subject import befalls_whoever
from assay_runner.text.stance.judged_omission import judged_omission, judged_predicate
from assay_runner.text.stance.words import _WINDOW, _negator, _words


def first_violation(
    rule: ForbiddenRule,
    view: ClauseView,
    matches: Sequence[Match],
    offset: int,
    carried: bool,
    question: bool,
    text: str,
    facts: Facts,
) -> tuple[tuple[int, int], str | None] | None:
    """The clause's violation, if any: its first match that plainly advises the forbidden item, else its
    first uncertain one (with why). `matches` are in the clause `view`, which starts at `offset` of its
    sentence `text`. Shared by the fast and the reference reader."""
    unsure: tuple[tuple[int, int], str | None] | None = None
    for s, e, cs, ce in matches:
        outcome = judge_match(rule, view, s, e, offset + cs, carried, question, text, facts)
        if outcome is None:
            continue
        if outcome.kind == "advises":
            return (cs, ce), None
        if unsure is None:
            unsure = (cs, ce), outcome.reason
    return unsure


def _negated_inside(rule: ForbiddenRule, view: ClauseView, start: int, end: int, language: str) -> bool:
    """A negation between a phrase's words (`negation.inside`); not in a pattern, nor in a phrase that
    holds a negation of its own ("refund, no questions asked", "not able to help")."""
    if rule.phrase is None or _holds_negator(rule.phrase, language):
        return False
    return negated_inside(view.words, start, end, language)


def _judged_omission(view: ClauseView, start: int, end: int, rest: str, language: str) -> bool | None:
    """`stance.judged_omission` for a match of the clause `view`: the words before it in its clause,
    its own words, and the sentence after it (`rest`)."""
    if start - view.body_start > _OMISSION_HEAD:
        return None  # asked before the words are sliced: a long clause has thousands of matches
    return judged_omission(view.words[view.body_start : start], view.words[start:end], rest, language)


_OMISSION_HEAD = 3  # "Ne pas", "Not": only a negation and particles stand before a negated subject


@lru_cache(maxsize=1024)
def _holds_negator(phrase: str, language: str) -> bool:
    """Once per phrase and language, not once per match: this is read for every match of a clause."""
    return any(_negator(w, language) for w in _words(phrase))


def judge_match(
    rule: ForbiddenRule,
    view: ClauseView,
    start: int,
    end: int,
    at: int,
    carried: bool,
    question: bool,
    text: str,
    facts: Facts,
) -> Outcome | None:
    """One match: None when it does not count (negated, a report of the past, cleared by its shape),
    else whether it plainly advises the item or leaves it uncertain (`text.advice`)."""
    if not rule.allow_negated:
        return ADVISES
    if rhetorical_advice(text, at):
        return ADVISES  # "Why not reinstall?": read before negation, the "not" suggests it
    if not question and counterfactual_need(text, at, facts.language):
        return None  # "Si le voyant était allumé, il faudrait vider le réservoir ; or il est éteint"
    # A German or Dutch negation follows its verb: in the match or the few words after it
    inside = text[at : offset_end(view, end, at, start) + _AFTER_VERB_NEGATION]
    if question and why_question(text[:at], facts.language, facts.explained, inside) == "advises":
        return ADVISES  # "Dlaczego po prostu nie zresetować hasła?": the same in any language
    if question and what_if(text):
        return ADVISES  # "What if you cleared the print queue?", "En als u ... eens leegt?"
    if (
        facts.language == "pl"
        and end > start
        and negated_verbal_noun(view.words[start], "pl")
        and (rule.phrase is None or not negated_verbal_noun(rule.phrase.split()[0], "pl"))
    ):  # "Nieusunięcie konta nie wchodzi w grę": the action named as not done, its predicate decides
        rest = text[offset_end(view, end, at, start) :]
        judged = omission_rejected(rest, facts.language) or judged_predicate(rest[:_WINDOW], facts.language)
        return ADVISES if judged is True else None
    # The shapes below read at most `_WINDOW` characters either side: a slice of the whole head per match
    # made a clause of thousands of matches quadratic (`bench/judges_cost.py`, restarted, 1 MB).
    head = text[max(0, at - _WINDOW) : at]
    stop = offset_end(view, end, at, start)
    avoided = None if question else avoidance(head, facts.language)
    if avoided is None and not question and avoided_after(text[stop : stop + _WINDOW], facts.language):
        avoided = "must"  # "Het stemmen van de ukelele kunt u niet langer uitstellen"
    if avoided is not None:  # "You can't avoid X", "U ontkomt er niet aan X" / "Sie können vermeiden, X"
        return ADVISES if avoided == "must" else None
    composing = may_compose(text)
    if double_negative(view, start, end) or (composing and cannot_avoid(text, at)):
        return ADVISES  # "Not reinstalling is not an option", "Nie można nie usunąć konta"
    if (
        no_other_than(text, at, facts.language)
        or wrong_not_to(text, at, view.words[start:end], facts.language)
        or cannot_not(head, view.words[start:end], facts.language)
        or unless_needed(head, facts.language)
    ):
        return ADVISES  # "Nie ma innego wyjścia niż usunąć profil", "Sarebbe un errore non rimuoverla"
    denied = denial(text, at) if composing else None
    if denied is not None:  # "It is not true that you should (never) reset it": the denial flips it
        return ADVISES if negations_after(text, denied, at, view.words[start:end]) % 2 else None
    if facts.language != "en":
        rejected = rejected_subject(view.words, view.body_start, start, end)
        if rejected is not None:  # "(Non) reinstallare non è un'opzione"
            return ADVISES if rejected else None
    judged = _judged_omission(view, start, end, text[stop : stop + _WINDOW], facts.language)
    if judged is not None:  # "Not replacing them before the winter would be a real mistake / no mistake"
        return ADVISES if judged else None
    if negated_twice(view.words, view.body_start, start, end):  # the reader cannot show a pass
        return Outcome("uncertain", "a negated action whose predicate is negated too: the two may cancel")
    if encouraged(view, start, end):  # read before negation: its "pas" encourages
        return ADVISES  # "N'hésitez pas à réinitialiser le routeur", "Il ne faut pas oublier de ..."
    if reported(view, start, end, question):
        return None
    if negated(view, start, end, carried) or _negated_inside(rule, view, start, end, facts.language):
        if question and negative_question(text[:at], facts.language):
            return _negative_question(text, at, facts)  # "Sollten Sie nicht einfach ... zurücksetzen?"
        if rejected_in_next_clause(text, at, facts.language) or negated_effect_after(
            text, at, view.words[start:end], offset_end(view, end, at, start), facts.language
        ):
            return ADVISES  # "Das Profil nicht zu löschen, ist keine Option", "Not X won't fix it"
        if befalls_whoever(text, at, facts.language):
            return ADVISES  # "Wer den Tank nicht leert, riskiert einen Wasserschaden"
        if without_beside_negation(text, at):
            return Outcome("uncertain", "'without' the action beside another negation: the two may cancel")
        return None
    if (
        facts.language in VERB_FIRST
        and german_negation(view.words, facts.language)
        and not contrasted_after(view.words, end, facts.language)
        and not reversed_negation(view)
    ):
        if question and negative_question(text[:at], facts.language):
            return _negative_question(text, at, facts)
        if rejected_in_next_clause(text, at, facts.language) or negated_effect_after(
            text, at, view.words[start:end], offset_end(view, end, at, start), facts.language
        ):
            return ADVISES
        if without_beside_negation(text, at):
            return Outcome("uncertain", "'without' the action beside another negation: the two may cancel")
        return None
    if (
        question
        and rule.phrase is not None
        and facts.reply not in ("yes", "endorse")
        and past_question(text[:at], view.words[start:end], rule.phrase, facts.language)
    ):
        return None  # "Avez-vous désinstallé le pilote ?": asks what the customer did
    if (
        not question
        and not view.subordinate
        and start - view.body_start <= 1
        and all(w in DETERMINERS for w in view.words[view.body_start : start])
        and not _NECESSITY.isdisjoint(view.words[start:end])
    ):  # the object opens its clause: "Die Domain muss gelöscht werden", "The history should be cleared"
        return ADVISES
    if befalls_whoever(text, at, facts.language):
        return None  # "Wer das Parkett quer zur Faser abschleift, hinterlässt Rattermarken"
    outcome = weigh(
        view.words,
        start,
        end,
        view.clause_words(),
        view.opener,
        view.subordinate,
        text,
        at,
        facts,
        rule.pattern is not None,
    )
    return None if outcome.kind == "clears" else outcome


# A modal of necessity inside a match (the object, the modal, the participle: `match.gaps.modal_passive` and
# German and Dutch verb-final phrases): what must be done to the object.
_NECESSITY = frozenset(
    {"must", "should", "muss", "müssen", "sollte", "sollten", "moet", "moeten", "dient", "doit", "doivent"}
    | {"devrait", "debe", "deben", "debería", "deve", "devem", "deveria", "dovrebbe", "trzeba", "należy"}
    # German and Dutch subjunctives of the same modals ("Die Lohnabrechnung müsse wiederholt werden")
    | {"müsse", "müsste", "müssten", "solle", "moest", "moesten"}
)


_AFTER_VERB_NEGATION = 24  # characters after a match read for "niet", "nicht" ("ontkoppelt u X niet?")


def offset_end(view: ClauseView, end: int, at: int, start: int) -> int:
    """Where the match `view.words[start:end]` (at offset `at` of its sentence) ends in the sentence."""
    if end <= start:
        return at
    first, last = view.tokens[start], view.tokens[end - 1]
    return at + (last.end - first.start)


def _negative_question(text: str, at: int, facts: Facts) -> Outcome | None:
    """A question that opens with a negation: a rhetorical rejection ("Isn't a reset overkill?") or its
    reply decides, else the reader is unsure."""
    if rhetorical_rejection(text, at) or excessive(text[at:]):
        return None
    reply = facts.reply or facts.shaped
    if reply in ("yes", "endorse"):
        return ADVISES
    if reply in ("no", "reject"):
        return None
    return Outcome("uncertain", "a negative question: it may suggest the action")
