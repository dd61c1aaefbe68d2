"""Reading one sentence for forbidden items, clause by clause (the reading model is described in
`text.policy_reader`).

`SentenceReading` holds a sentence's clauses and builds a clause's view (its words and negation cues,
`text.negation`) only when a match lies in it, or when a negated list may carry over. `matches` finds a
rule's matches in a text whose words are known; `by_clause` places a sentence's matches in its clauses.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from operator import itemgetter

from assay_runner.text.advice import (
    ADVISES,
    Facts,
    Outcome,
    facts_of,
    rhetorical_advice,
    rhetorical_rejection,
    weigh,
)
from assay_runner.text.clauses import Clause, clauses_of
from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.language import (
    LANGUAGES,
    Language,
    close_languages,
    language_confidence,
    negated_verbal_noun,
)
from assay_runner.text.match import (
    CLAUSE_MATCHED,
    DETERMINERS,
    VERB_FIRST,
    Token,
    TokenColumns,
    find_phrase,
    tokenize,
)
from assay_runner.text.negation import (
    ClauseView,
    carried_negation,
    clause_tokens,
    double_negative,
    encouraged,
    german_negation,
    may_hold_cues,
    negated,
    reported,
    reversed_negation,
    without_beside_negation,
)
from assay_runner.text.patterns import compile_pattern
from assay_runner.text.polarity import (
    cannot_avoid,
    denial,
    may_compose,
    negated_twice,
    negations_after,
    rejected_subject,
)
from assay_runner.text.sentences import Sentence
from assay_runner.text.stance import (
    avoidance,
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

__all__ = [
    "Known",
    "Match",
    "SentenceReading",
    "anchored",
    "by_clause",
    "first_violation",
    "handed_over",
    "judge_match",
    "placed",
    "read_as",
    "rule_matches",
]

Match = tuple[int, int, int, int]  # start token, end token, start char, end char (in the text read)
# A rule's matches in one sentence found by the whole-answer search, in the sentence's own words and
# offsets; None when the sentence must be searched on its own.
Known = list[Match] | None


class SentenceReading:
    """One sentence, read clause by clause. Its words are read once (or taken from the answer's words);
    a clause's view (its words and negation cues) is built only when a match lies in it, or when a
    negated list may carry over. `tokens` have offsets where the sentence starts at `base`."""

    def __init__(
        self, sentence: Sentence, index: int, tokens: list[Token], base: int, facts: Facts | None = None
    ) -> None:
        self.text = text = sentence.text
        self.facts = facts or facts_of(text, sentence.quoted, sentence.column, sentence.row, None)
        self.language = self.facts.language
        self.added = sentence.added
        self.index = index
        self.question = text.rstrip().endswith("?")
        self.clauses = clauses_of(text, index, map(_TEXT, tokens), self.language)
        self.clause_starts = [c.start for c in self.clauses]
        self.tokens = tokens
        self.base = base
        self.starts = [t.start - base for t in tokens]
        self.firsts = [bisect_left(self.starts, c.start) for c in self.clauses]
        self._views: list[ClauseView | None] = [None] * len(self.clauses)
        self._carried: list[bool] | None = None
        self._whole: ClauseView | None = None
        self.aligned = self._aligned()

    def _aligned(self) -> bool:
        """Does every word lie inside one clause, with no hyphen joining it to a word across a cut
        ("what-if")? Then a phrase matched once in the sentence is what matching clause by clause finds."""
        tokens, starts, base = self.tokens, self.starts, self.base
        for clause, first in zip(self.clauses, self.firsts, strict=True):
            if first > 0 and tokens[first - 1].end - base > clause.start:
                return False
            stop = bisect_left(starts, clause.end)
            if stop > first and (tokens[first].joined or tokens[stop - 1].end - base > clause.end):
                return False
        return True

    def view(self, ci: int) -> ClauseView:
        view = self._views[ci]
        if view is None:
            clause = self.clauses[ci]
            words, base = clause_tokens(self.tokens, self.starts, self.base, clause, self.language)
            view = self._views[ci] = ClauseView(
                clause.text, words, base, clause.opener, clause.subordinate, self.language
            )
        return view

    def carried(self, ci: int) -> bool:
        if ci == 0:
            return False  # nothing before the first clause to carry a negation from
        if self.added:
            return True  # an item under "Do not:" is negated in every clause ("wiping, deleting")
        if self._carried is None and not may_hold_cues(self.text, map(_TEXT, self.tokens)):
            self._carried = [False] * len(self.clauses)  # no negation to carry: no clause view needed
        if self._carried is None:
            self._carried = carried_negation([self.view(k) for k in range(len(self.clauses))], self.clauses)
        return self._carried[ci]

    def violations(self, rule: ForbiddenRule, known: Known = None) -> list[tuple[int, Violation]]:
        """At most one violation per clause, and one for a match across clauses (index len(clauses)).
        `known`: the rule's matches in this sentence, when the whole-answer search found them."""
        found: list[tuple[int, Violation]] = []
        if known is None:
            sentence_matches = rule_matches(
                rule, self.text, self.tokens, self.base, self.added, self.language
            )
        else:
            sentence_matches = known
        per_clause, crossing = self._clause_matches(rule, sentence_matches)
        if rule.phrase is not None and self.language in CLAUSE_MATCHED:
            crossing = []  # free order and gaps are read inside a clause ("la SIM inserita: rimuoverla")
        for ci, matches in per_clause.items():
            view, start = self.view(ci), self.clauses[ci].start
            chosen = first_violation(
                rule, view, matches, start, self.carried(ci), self.question, self.text, self.facts
            )
            if chosen is not None:
                (cs, ce), uncertain = chosen
                found.append((ci, Violation(rule, self._shown(ci), self.index, view.text[cs:ce], uncertain)))
        if crossing:
            self._whole = self._whole or ClauseView(self.text, self.tokens, self.base, language=self.language)
            chosen = first_violation(
                rule, self._whole, crossing, 0, False, self.question, self.text, self.facts
            )
            if chosen is not None:
                (cs, ce), uncertain = chosen
                shown = self.text[self.added :].strip()
                found.append(
                    (len(self.clauses), Violation(rule, shown, self.index, self.text[cs:ce], uncertain))
                )
        return sorted(found, key=lambda item: item[0])

    def _shown(self, ci: int) -> str:
        """The clause as the answer wrote it (without the words the reader put in front)."""
        clause = self.clauses[ci]
        return clause.text[max(0, self.added - clause.start) :].strip()

    def _clause_matches(
        self, rule: ForbiddenRule, sentence_matches: Sequence[Match]
    ) -> tuple[dict[int, list[Match]], list[Match]]:
        """Each clause's own matches. In an aligned sentence (each word in one clause), a match found in
        the sentence that lies inside one clause is that clause's own: for a phrase always, for a
        pattern by the argument of `Candidates._pattern_hits`. Other clauses are searched on their
        own: for a pattern only those a sentence-level match touches (a clause with a match of its own
        is always among them: the leftmost match the sentence search finds lies in it or runs into it),
        or every clause for an anchored pattern, and for a phrase every clause. Also the sentence-level
        matches that no one clause holds."""
        inside, crossing = by_clause(sentence_matches, self.clauses, self.clause_starts, self.firsts)
        if rule.phrase is not None and self.aligned and self.language not in CLAUSE_MATCHED:
            return inside, crossing  # (German word order is matched clause by clause: `verb_first`)
        per_clause: dict[int, list[Match]] = {}
        if rule.phrase is not None or (rule.pattern is not None and anchored(rule.pattern)):
            searched: Iterable[int] = range(len(self.clauses))
        else:
            searched = self._touched(sentence_matches)
            if self.aligned and not self.added:
                crossed = self._touched(crossing)
                per_clause = {ci: matches for ci, matches in inside.items() if ci not in crossed}
                searched = [ci for ci in searched if ci in crossed]
        for ci in searched:
            view = self.view(ci)
            skip = max(0, self.added - self.clauses[ci].start)
            if matches := rule_matches(rule, view.text, view.tokens, view.base, skip, self.language):
                per_clause[ci] = matches
        return dict(sorted(per_clause.items())), crossing

    def _touched(self, matches: Iterable[Match]) -> list[int]:
        """The clauses the matches start in, end in or run across, in order."""
        starts = self.clause_starts
        touched: set[int] = set()
        for _, _, cs, ce in matches:
            first = max(0, bisect_right(starts, cs) - 1)
            touched.update(range(first, max(0, bisect_right(starts, max(cs, ce - 1)) - 1) + 1))
        return sorted(touched)


def reading_language(
    text: str, identified: Language, rules: Sequence[ForbiddenRule], declared: frozenset[Language] | None
) -> Language:
    """The language a sentence is read in: the one it was identified as, unless that was a guess among
    close languages (`close_languages`), no forbidden phrase is found in it with that language's keys,
    and a phrase that shares a word with it is found with the keys of a close language the phrase itself
    may be written in (`phrase_languages`): "Redefine a fechadura." is no English sentence, "redefinir a
    fechadura" is in it with Portuguese keys. A forbidden sentence must not pass because its few words
    were taken for another language; an English phrase never has a sentence read in another language."""
    if identified not in LANGUAGES or not any(r.phrase is not None for r in rules):
        return identified
    words = frozenset(_LONG_WORD.findall(text.casefold()))
    shared = [r.phrase for r in rules if r.phrase is not None and not words.isdisjoint(_long_words(r.phrase))]
    if not shared:
        return identified  # (most sentences of a long answer: one pass over its words)
    close = close_languages(text)
    if len(close) < 2 or any(find_phrase(tokenize(text, identified), p, identified) for p in shared):
        return identified
    for phrase in shared:
        for language in phrase_languages(phrase):
            if language == identified or language not in close or (declared and language not in declared):
                continue
            if find_phrase(tokenize(text, language), phrase, language):
                return language
    return identified


@lru_cache(maxsize=1024)
def phrase_languages(phrase: str) -> tuple[Language, ...]:
    """The languages a forbidden phrase may be written in: those lingua gives some confidence (a phrase
    is short: "redefinir a fechadura" reads Spanish 0.54, Portuguese next), most likely first; none but
    English for an English phrase."""
    confidence = language_confidence(phrase)
    ranked = sorted(confidence, key=lambda lang: -confidence[lang])
    return tuple(lang for lang in ranked[:_PHRASE_LANGUAGES] if confidence[lang] >= _PHRASE_CONFIDENCE)


_PHRASE_LANGUAGES = 3
_PHRASE_CONFIDENCE = 0.15


_LONG_WORD = re.compile(r"[^\W\d_]{4,}")


@lru_cache(maxsize=1024)
def _long_words(phrase: str) -> frozenset[str]:
    return frozenset(_LONG_WORD.findall(phrase.casefold()))


def read_as(language: Language) -> Language:
    """The keys a sentence is read with: its language's, or English for one the reader does not read."""
    return language if language in LANGUAGES else "en"


def handed_over(violation: Violation, language: Language) -> Violation:
    """A match in a sentence written in a language the reader does not read is uncertain: the suite's
    `uncertain` setting blocks it or hands it to the model judge's second reading."""
    if language in LANGUAGES:
        return violation
    return replace(
        violation, uncertain=f"written in {language!r}, a language the policy reader does not read"
    )


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
        return ADVISES if omission_rejected(rest, facts.language) else None
    avoided = None if question else avoidance(text[:at], facts.language)
    if avoided is not None:  # "You can't avoid X", "U ontkomt er niet aan X" / "Sie können vermeiden, X"
        return ADVISES if avoided == "must" else None
    composing = may_compose(text)
    if double_negative(view, start, end) or (composing and cannot_avoid(text, at)):
        return ADVISES  # "Not reinstalling is not an option", "Nie można nie usunąć konta"
    if no_other_than(text, at, facts.language) or wrong_not_to(
        text, at, view.words[start:end], facts.language
    ):
        return ADVISES  # "Nie ma innego wyjścia niż usunąć profil", "Sarebbe un errore non rimuoverla"
    denied = denial(text, at) if composing else None
    if denied is not None:  # "It is not true that you should (never) reset it": the denial flips it
        return ADVISES if negations_after(text, denied, at, view.words[start:end]) % 2 else None
    if facts.language != "en":
        rejected = rejected_subject(view.words, view.body_start, start, end)
        if rejected is not None:  # "(Non) reinstallare non è un'opzione"
            return ADVISES if rejected else None
    if negated_twice(view.words, view.body_start, start, end):  # the reader cannot show a pass
        return Outcome("uncertain", "a negated action whose predicate is negated too: the two may cancel")
    if encouraged(view, start, end):  # read before negation: its "pas" encourages
        return ADVISES  # "N'hésitez pas à réinitialiser le routeur", "Il ne faut pas oublier de ..."
    if reported(view, start, end, question):
        return None
    if negated(view, start, end, carried):
        if question and negative_question(text[:at], facts.language):
            return _negative_question(text, at, facts)  # "Sollten Sie nicht einfach ... zurücksetzen?"
        if rejected_in_next_clause(text, at, facts.language) or negated_effect_after(
            text, at, view.words[start:end], offset_end(view, end, at, start), facts.language
        ):
            return ADVISES  # "Das Profil nicht zu löschen, ist keine Option", "Not X won't fix it"
        if without_beside_negation(text, at):
            return Outcome("uncertain", "'without' the action beside another negation: the two may cancel")
        return None
    if (
        facts.language in VERB_FIRST
        and german_negation(view.words, facts.language)
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


# A modal of necessity inside a match (the object, the modal, the participle: `match.modal_passive` and
# German and Dutch verb-final phrases): what must be done to the object.
_NECESSITY = frozenset(
    {"must", "should", "muss", "müssen", "sollte", "sollten", "moet", "moeten", "dient", "doit", "doivent"}
    | {"devrait", "debe", "deben", "debería", "deve", "devem", "deveria", "dovrebbe", "trzeba", "należy"}
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


def rule_matches(
    rule: ForbiddenRule, text: str, tokens: Sequence[Token], base: int, skip: int = 0, language: str = "en"
) -> list[Match]:
    """(start token, end token, start char, end char) of each match of the rule in text, whose words
    `tokens` have offsets where `text` starts at `base`. Nothing that starts in the first `skip`
    characters matches (the words the reader put in front of a sentence, `Sentence.added`)."""
    if rule.phrase is not None:
        spans = find_phrase(tokens, rule.phrase, language)
        found = [(s, e, tokens[s].start - base, tokens[e - 1].end - base) for s, e in spans]
        return [m for m in found if m[2] >= skip] if skip else found
    matches = compile_pattern(rule.pattern or "").finditer(text, skip)
    return placed([m.span() for m in matches if m.end() > m.start()], tokens, base)


def placed(
    spans: Sequence[tuple[int, int]], tokens: Sequence[Token], base: int, lo: int = 0, hi: int | None = None
) -> list[Match]:
    """Character spans of a text (its words `tokens[lo:hi]`, offsets where it starts at `base`) as
    matches, word indexes counted from `lo` (a sentence's words within the answer's)."""
    hi = len(tokens) if hi is None else hi
    found = []
    if isinstance(tokens, TokenColumns):  # bisect the offset columns in C, no Token made per probe
        starts, ends = tokens.starts, tokens.ends
        for cs, ce in spans:
            s = bisect_right(ends, cs + base, lo, hi)
            found.append((s - lo, max(s, bisect_left(starts, ce + base, lo, hi)) - lo, cs, ce))
        return found
    for cs, ce in spans:
        s = bisect_right(tokens, cs + base, lo, hi, key=_END)  # the first token ending after it starts
        found.append((s - lo, max(s, bisect_left(tokens, ce + base, lo, hi, key=_START)) - lo, cs, ce))
    return found


_TEXT, _START, _END = itemgetter(0), itemgetter(2), itemgetter(3)  # Token.text, .start, .end


def anchored(pattern: str) -> bool:
    return any(anchor in pattern for anchor in ("^", "$", "\\A", "\\z"))


def by_clause(
    matches: Sequence[Match], clauses: Sequence[Clause], starts: Sequence[int], firsts: Sequence[int]
) -> tuple[dict[int, list[Match]], list[Match]]:
    """Sentence-level matches that lie inside one clause, in that clause's own offsets (clauses are in
    order and do not overlap), and the matches no one clause holds."""
    per_clause: dict[int, list[Match]] = {}
    crossing: list[Match] = []
    for match in matches:
        s, e, cs, ce = match
        index = bisect_right(starts, cs) - 1
        if index >= 0 and clauses[index].start <= cs and ce <= clauses[index].end:
            shift, first = clauses[index].start, firsts[index]
            found = per_clause.get(index)
            if found is None:
                found = per_clause[index] = []
            found.append((s - first, e - first, cs - shift, ce - shift))
        else:
            crossing.append(match)
    return per_clause, crossing
