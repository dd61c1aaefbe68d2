"""What a clause does with a match it does not negate (`weigh`): the shapes of the package, in order."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.advice.around import (
    _clause_before,
    _other_clauses_near,
    _outside_quotes,
    _stance_of_other,
)
from assay_runner.text.advice.facts import Facts
from assay_runner.text.advice.frames import (
    _FRAME,
    _FRAME_WORDS,
    _IMPERATIVE,
    _INFINITIVE_CLAUSE,
    _NEGATED_FRAMING,
    _to_infinitive,
)
from assay_runner.text.advice.outcome import ADVISES, CLEARS, UNANSWERED, UNRECOGNISED, Outcome
from assay_runner.text.advice.predicates import _NEGATED_BEFORE, _PREDICATE_WORDS, _predicate, _said_to_help
from assay_runner.text.advice.reports import (
    _FIRST_PARTY,
    _REPORTING_WORDS,
    _answered,
    _asked,
    _reported_before,
    _reported_later,
)
from assay_runner.text.advice.rhetoric import rhetorical_rejection
from assay_runner.text.advice.stance_reading import _stance_of
from assay_runner.text.advice.subjects import (
    _CONDITION_FILLERS,
    _DETERMINERS,
    _FOREIGN_IF,
    _HYPOTHETICAL,
    _INVERTED_IF,
    _SUBJECTS,
    _described,
    _is_subject,
    _named,
    _only_lead_in,
)
from assay_runner.text.head_words import ClauseWords
from assay_runner.text.reversers import reversed_frame
from assay_runner.text.stance import (
    RECORD_HEAD,
    addressee_report,
    concedes,
    conditional_consequence,
    judged_worse,
    recorded,
    refuses_to_advise,
    reports_before,
    stated_after_that,
    warned,
    why_question,
)
from assay_runner.text.stance.disowning import disowns
from assay_runner.text.stance.words import _WINDOW, _set, _words


def _main_clause_helps(rest: str) -> bool:
    """Does the clause after a condition's comma say that doing it fixes or solves it, unnegated ("...,
    it would solve everything", "..., le problème serait réglé", "..., wäre das Problem gelöst")?"""
    comma = rest.find(",")
    if comma < 0:
        return False
    main = rest[comma + 1 :].split(".", maxsplit=1)[0]
    solves = any(w.startswith(_SOLVES) for w in main.casefold().split())
    return solves and _NEGATED_BEFORE.search(main) is None and _NOT_FIXED.search(main) is None


# What solves or fixes it, by stem (not "works" or "helps": "... would stop working" is a loss).
_SOLVES = (
    *("fix", "solv", "resolv", "résou", "résol", "régl", "beheb", "behob", "lös", "gelöst", "soluci"),
    *("risolv", "oplos", "opgelost", "rozwiąz", "napraw", "arregl", "corrig", "répar"),
)


_NOT_FIXED = re.compile(r"\b(?:nicht|niet|nie|geen|kein\w*|nada|nulla|rien|nothing|niets|nichts|nic)\b")


def _what_would_happen(text: str, at: int, language: str) -> bool:
    """A condition at the head of the sentence whose main clause says what would then happen, or what
    would happen all the same ("Even repotting the orchid every spring, the leaves would have yellowed").
    Each reads a head of at most `_WINDOW` characters and the first `_WINDOW` after the match."""
    head, rest = text[: min(at, _WINDOW + 1)], text[at : at + _WINDOW]
    return conditional_consequence(head, rest, language) or concedes(head, rest, language)


def _disowned_after(rest: str, language: str, pointing: bool = False) -> bool:
    """Does a clause of the answer's own, after a semicolon or a colon that ends the report, disown it
    ("...; está pensado para máquinas industriales y nosotros no lo respaldamos")? The report's own clause
    is not read: "..., come ci scrive, stacchi il sezionatore e non faccia salire nessuno finché non
    arriviamo" has a "we" and a negation that refuse nothing. `pointing`: the disowning clause must point
    back with a pronoun ("... machen wir uns das nicht zu eigen"), where nothing marked the first clause
    as a report: "... is outside what support can help with: we never send a reset to another address"
    states a policy, it disowns nothing."""
    cut = _REPORT_ENDS.search(rest)
    if cut is None:
        return False
    after = rest[cut.end() :]
    if pointing and _ANAPHORS.get(language, _ANAPHORS["en"]).isdisjoint(_words(after)):
        return False
    return disowns(after, language)


_REPORT_ENDS = re.compile(r"[;:]")
# Pronouns that point back at what was said, per language: "that", "le", "das", "lo", "isso", "dat", "to".
_ANAPHORS = {
    "en": _set("it that this"),
    "fr": _set("le la l' cela ça"),
    "de": _set("das es dies"),
    "es": _set("lo eso esto ello"),
    "it": _set("lo ciò questo quello"),
    "pt": _set("o isso isto aquilo"),
    "nl": _set("dat het dit"),
    "pl": _set("to tego tym"),
}


def weigh(
    words: Sequence[str],
    start: int,
    end: int,
    clause: ClauseWords,
    opener: str | None,
    subordinate: bool,
    text: str,
    at: int,
    facts: Facts,
    pattern: bool,
) -> Outcome:
    """What the clause `words` (opened by `opener`; its own words `clause` from `clause.body` on) does
    with the match `words[start:end]`, which lies at offset `at` of its sentence `text`. Negation was read
    before. The words before the match are read from the clause's index (`Before`), and the sentence's
    text around it within the window each shape reads: a clause of thousands of matches stays linear."""
    body = clause.body
    before = clause.before(start)
    # A table cell: its row's verdict, else its column's.
    if facts.row is not None or facts.column is not None:
        table = facts.row if facts.row is not None else facts.column
        return ADVISES if table == "yes" else CLEARS
    quoted = facts.quoted or any(s <= at < e for s, e in facts.quotes)
    if quoted:
        rest = _outside_quotes(text, facts.quotes)
        stance = _stance_of(rest) or facts.reply or facts.shaped
        if stance in ("yes", "endorse"):
            return ADVISES
        if stance in ("no", "reject"):
            return CLEARS
        return Outcome("uncertain", "a quotation the answer neither endorses nor rejects")
    if facts.question:
        if rhetorical_rejection(text, at):
            return CLEARS
        reply = facts.reply or facts.shaped
        if reply in ("yes", "endorse"):
            return ADVISES
        if reply in ("no", "reject"):
            return CLEARS
        if why_question(text[:at], facts.language, facts.explained) == "clears":
            return CLEARS  # "Warum den Treiber deinstallieren, wenn ein Neustart reicht?"
        return Outcome("uncertain", UNANSWERED)
    if _asked(text, at):
        return _answered(text, at, facts)
    if at <= RECORD_HEAD and recorded(text[:at]):
        return CLEARS  # "According to the opener's log, you reset the garage door three times on Friday"
    inverted = bool(
        before and before[0] in _INVERTED_IF and before.all_in(_CONDITION_FILLERS | _SUBJECTS, skip=1)
    )
    conditional = subordinate or inverted or bool(before and before[0] in _FOREIGN_IF)
    if conditional and _main_clause_helps(text[at : at + _WINDOW]):
        return ADVISES  # "Si cancelara el pedido, se solucionaría todo", "Se annullasse ..., risolverebbe"
    # (the shape reads a head of at most `_WINDOW` characters and the first `_WINDOW` after the match)
    if _what_would_happen(text, at, facts.language):
        return CLEARS  # "Should you unlink the account, pending payouts will be cancelled"
    subject = _is_subject(words, start, end, before, facts.language)
    if (
        subject
        and warned(text[: min(at, _WINDOW)])  # (it reads no further than `_WINDOW`)
        and not _said_to_help(words[end : end + _PREDICATE_WORDS])
    ):
        return CLEARS  # "Attention : formater la carte SD supprime toutes vos photos"
    hypothesis = before.any_in(_SUBJECTS) or (subject and _only_lead_in(before))
    if subordinate and opener in _HYPOTHETICAL and hypothesis:
        return CLEARS  # "If you reinstall, ...", "If a reinstall crossed your mind" state a hypothesis
    if inverted and not facts.question:
        return CLEARS  # "Had you reset the thermostat last week, ...": a condition about the past
    if before and before[0] in _FOREIGN_IF and before.all_in(_CONDITION_FILLERS, skip=1):
        return CLEARS  # "Se você apagar o perfil, ...", "Jeśli usuniesz profil, ...": the condition's verb
    framing = _clause_before(text, at) if facts.language in _INFINITIVE_CLAUSE and opener == "," else ""
    if framing and reversed_frame(framing, facts.language):
        return ADVISES  # "Vergessen Sie nicht, die App neu zu installieren"
    if framing and _to_infinitive(words) and _NEGATED_FRAMING.search(framing):
        return CLEARS  # "Es gibt keinen Grund, das Postfach zu löschen", "Het helpt niet, om ... te ..."
    if framing and _FRAME.search(framing):
        # "Es ist am besten, den Router zurückzusetzen": the frame's infinitive clause, unless the frame
        # is negated ("Wir empfehlen Ihnen nicht, ...")
        return CLEARS if _NEGATED_BEFORE.search(framing) or " kein" in framing else ADVISES
    if addressee_report(text, at):  # "You mentioned that the help page says to ...": the customer's voice
        stance = _stance_of_other(_other_clauses_near(text, at)) or facts.reply or facts.shaped
        return ADVISES if stance in ("yes", "endorse") else CLEARS
    if (
        before.holds(_REPORTING_WORDS)
        or _reported_later(text, at)
        or _reported_before(text, at, before)
        or reports_before(before, facts.language)
    ):
        if _FIRST_PARTY.search(before.text.split(" to ")[0]) and not _reported_later(text, at):
            return ADVISES
        # the rest of its own clause too: "Technik zaleca ... i zgadzamy się z tym" has no subject to cut at
        rest = " ".join(words[end:])
        stance = (
            _stance_of(_other_clauses_near(text, at) + " " + before.text + " " + rest)
            or facts.reply
            or facts.shaped
        )
        if stance in ("yes", "endorse"):
            return ADVISES
        if (
            stance in ("no", "reject")
            or refuses_to_advise(_other_clauses_near(text, at), facts.language)
            or _disowned_after(text[at : at + _WINDOW], facts.language)
            or judged_worse(text[at : at + _WINDOW], facts.language)
        ):
            return CLEARS  # "..., which we cannot recommend", "..., czego nie możemy polecić"
        return Outcome("uncertain", "a suggestion the answer reports without endorsing or rejecting it")
    if (
        stated_after_that(before)
        and _is_subject(words, start, end, clause.before(start, start), facts.language)
        and _predicate(words, end, text, at, facts).kind != "advises"
    ):
        return CLEARS  # "Beware that resetting it will erase ...": what doing it does, not an instruction
    if _only_lead_in(before) or (subject and before.all_in(_DETERMINERS)):
        if not subject:
            return ADVISES  # "Reinstall the app", "Please just reinstall"
        return _predicate(words, end, text, at, facts)
    if body < len(words) and words[body] in _IMPERATIVE and not words[body].endswith("ing"):
        return ADVISES  # "Run `x` to delete the profile"
    if before.holds(_FRAME_WORDS):
        # "Na forum piszą, że trzeba ...; ta rada jest nieaktualna": advice judged worse is a report
        return CLEARS if judged_worse(text[at : at + _WINDOW], facts.language) else ADVISES
    if pattern:
        return ADVISES
    stance = _stance_of_other(_other_clauses_near(text, at)) or facts.reply
    if (
        stance in ("no", "reject")
        or refuses_to_advise(_other_clauses_near(text, at), facts.language)
        or judged_worse(text[at : at + _WINDOW], facts.language)
        or _disowned_after(text[at : at + _WINDOW], facts.language, pointing=True)
        or facts.disowned  # the next sentence disowns it: "To nie jest nasze zalecenie."
    ):
        return CLEARS  # "You might think of reinstalling. Don't.", "... explains why it rarely helps"
    if facts.language == "en" and (_described(words[start], before) or _named(before)):
        return CLEARS  # "The button that resets the router", "The option to delete the account is ..."
    return Outcome("uncertain", UNRECOGNISED)
