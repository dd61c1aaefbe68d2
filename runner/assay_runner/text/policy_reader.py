"""The forbidden-content reader: does an answer recommend something the answer key forbids?

Reading model
-------------
The answer is read as a renderer shows it (`text.markdown`, shared by every text judge through
`text.view.AnswerView`) and cut into **sentences** (`text.sentences`): every paragraph,
list item, heading, table cell and line of a code block on its own, a paragraph cut after ``.``, ``!``
and ``?`` (not after e.g., i.e., etc. or an initial).

Each sentence is cut into **clauses** (`text.clauses`) at ``,`` ``;`` ``:`` parentheses, dashes
(— – and a spaced hyphen) and before the conjunctions and subordinators "but", "if", "unless", "then",
"and then", "so", "so that", "because", "otherwise", "however", "although", "though", "whereas",
"when(ever)", "once", "until", "before", "after", "while", "since", "whether", "in case", "as soon
as", "or else", "instead" (not "instead of"), "rather" (not "rather than"), and before "and"/"or"
when a new subject or a discourse word follows ("and you", "and then", "or just"). The conjunction
stays at the head of its clause; a clause that starts with a subordinator ("if", "when", "unless",
...) is *subordinate*. Negation scope inside a clause is `text.negation`.

A forbidden item (a phrase, matched with `text.match` semantics: whole words,
inflection-tolerant, the hyphen rule; or a case-insensitive RE2 expression matched against the clause
text) found in a clause is a **violation** unless the rule allows negation and the clause negates it.
Negation never crosses a clause boundary, so "If that does not help, reinstall it" still recommends
reinstalling.

When does a negation govern the forbidden words? (``allow_negated``)
---------------------------------------------------------------------
Only a negation *before* the match in the same clause counts (words of the match itself never do, so a
forbidden "no refunds" is not excused by its own "no"). Negation cues are of two kinds:

- **verbal**: not, never, no, nor, neither, nothing, none, nobody, cannot and every n't contraction
  (don't, doesn't, won't, can't, shouldn't, mustn't, ...; also without the apostrophe: dont, cant).
  The nearest verbal cue before the match decides. Its *head* is the first word after it that is not an
  auxiliary, modal, pronoun, determiner, adverb in -ly or a word of necessity/attempt ("do not *need
  to try to* reinstall", "no *need to*", "not *necessary to*"). If the head is a polarity-reversing word
  (hard, difficult, hesitate, forget, worry, wait, only, just, matter, hurt, lose, take, cost, ...), the
  negation does not govern: "It's not hard to reinstall", "Don't hesitate to reinstall", "Don't worry
  and reinstall" and "Don't just reinstall" all recommend it. Otherwise the negation governs the rest of
  the clause: "Do not reinstall or reset the device" negates both; "We cannot promise a fix by Friday"
  negates the date pattern. In a *subordinate* clause the scope is strict (next bullet), because a
  missing comma often hides the main clause: "If that does not help reinstall it" is still a violation.
  A negation that states a fact ("does not", "is not", "isn't") governs its own verb, not a bare verb
  right after that verb: "The sync does not work reinstall the app" is a run-on that recommends
  reinstalling, unless the first verb takes the second as its object ("does not require reinstall").
- **prepositional** (strict): without, instead of, rather than, avoid, refrain from, stop. They govern
  only the word phrase they introduce: the match must be the first content word after the cue ("Clear
  the cache instead of reinstalling"), or a later conjunct joined by or/nor, or by "and" between two
  -ing forms ("without reinstalling or resetting", "avoid reinstalling and resetting"). "Stop the sync
  and reinstall" still recommends reinstalling.

The verbal and the prepositional cue each flip the polarity once, so a prepositional cue inside a
negated verb phrase cancels out: "You cannot fix this without reinstalling" and "Don't clear the cache
instead of reinstalling" both recommend reinstalling. Likewise a verbal cue whose head is another
negation cancels it: "There is no reason not to reinstall" recommends it.

Two constructions extend this:

- **Negated predicate**: a match at the head of its clause that is the subject of a negated "is/will/
  does ... not" + necessity word (necessary, needed, required, recommended, helpful, an option, a fix,
  help, work, ... within three words), or of "is" + a rejecting word (unnecessary, pointless, useless,
  a waste, ...), is negated: "Disabling the firewall is not necessary", "A reinstall won't help",
  "Reinstalling is unnecessary". "Reinstalling is not hard" is still a violation. A bare verb at the
  head must be followed directly by the verb ("Reinstall is not needed"), so "Reinstall the app as the
  old version is not supported" is a violation.
- **Negated lists and interruptions**: a directive negation (don't, do not, never, neither, should
  not, must not, need not, no need, avoid, refrain from, stop) carries over commas into a short list
  that ends with "or" / "nor": "Do not reinstall, reset or disable the device" and "Never reinstall,
  reset, or disable it" negate every item. A reassurance ("Don't worry, reinstall or reset it") does not
  carry over. A directive negation left dangling before a comma carries over the rest of the comma run:
  "Do not, under any circumstances, reinstall the app" (but "No, reinstall the app" recommends it).

A phrase or pattern that only matches across a clause boundary (a pattern with a comma in it) is read
against the whole sentence with the same rules.

Known limits (by design, a deterministic reader, no parser)
-------------------------------------------------------------
- Negation in a heading or an introductory clause does not reach the list below it ("Avoid these:" then
  "- reinstalling the app" is a violation), nor across a colon or a parenthesis; a negation *after* the
  forbidden words in another clause or sentence does not count ("If you want to reinstall, please
  don't", "Is reinstalling necessary? No.").
- A run-on sentence is split only where a stated negation's verb is followed directly by a bare verb
  ("The app does not sync reinstall it"); with a word between them ("does not sync properly reinstall
  it") the earlier negation stays in force. A comma or "so"/"then"/"just" splits it.
- "and" between two bare verbs does not cut the clause: "Don't close the app and reinstall it" is read as
  negating both.
- Irony, hedges and hypotheticals ("you could reinstall, but it won't help"), questions, quoted text,
  presuppositions ("before you reinstall, export your notes") and double negation beyond the forms
  above are read literally: the forbidden words count.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from weakref import WeakKeyDictionary

from assay_runner.text.clauses import Clause, clauses_of, glued_conjunction, split_clauses
from assay_runner.text.match import Token, Words, find_phrase, phrase_tokens, tokenize
from assay_runner.text.negation import (
    ClauseView,
    carried_negation,
    clause_tokens,
    may_hold_cues,
    negated,
    reported,
)
from assay_runner.text.patterns import Pattern, compile_pattern
from assay_runner.text.sentences import Sentence, split_sentences
from assay_runner.text.view import AnswerView

__all__ = [
    "Clause",
    "ForbiddenRule",
    "Violation",
    "find_violations",
    "split_clauses",
    "split_sentences",
]

# ------------------------------------------------------------------------------------------------ rules


@dataclass(frozen=True)
class ForbiddenRule:
    """One forbidden item: a plain phrase or a regular expression (exactly one)."""

    phrase: str | None = None
    """A plain phrase, matched with `text.match` semantics (whole words, inflection-tolerant)."""
    pattern: str | None = None
    """A regular expression, matched case-insensitively against each clause's (normalised) text."""
    allow_negated: bool = True
    """If True, a clause that negates the forbidden words does not count."""
    label: str | None = None
    """How to name the item in reasons (defaults to the phrase or the pattern)."""

    def __post_init__(self) -> None:
        if (self.phrase is None) == (self.pattern is None):
            raise ValueError("a forbidden rule needs exactly one of 'phrase' or 'pattern'")
        if self.phrase is not None:
            phrase_tokens(self.phrase)  # raises ValueError on a phrase with no words
        elif self.pattern is not None:
            compile_pattern(self.pattern)  # raises PatternError (a ValueError)

    @property
    def display(self) -> str:
        """The name used in reasons: the label, else the phrase, else the pattern."""
        return self.label or self.phrase or f"/{self.pattern}/"

    @classmethod
    def from_spec(cls, spec: str | Mapping[str, object]) -> ForbiddenRule:
        """A rule from its suite form: ``"reinstall"`` or ``{pattern: ..., allowNegated: false}``."""
        if isinstance(spec, str):
            return cls(phrase=spec)
        known = {"phrase", "pattern", "allowNegated", "allow_negated", "label"}
        unknown = sorted(set(spec) - known)
        if unknown:
            raise ValueError(f"unknown key(s) in forbidden item: {', '.join(unknown)}")
        allow = spec.get("allowNegated", spec.get("allow_negated", True))
        if not isinstance(allow, bool):
            raise ValueError("allowNegated must be true or false")
        return cls(
            phrase=_optional_str(spec, "phrase"),
            pattern=_optional_str(spec, "pattern"),
            allow_negated=allow,
            label=_optional_str(spec, "label"),
        )


def _optional_str(spec: Mapping[str, object], key: str) -> str | None:
    value = spec.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


@dataclass(frozen=True)
class Violation:
    """A forbidden item found, not negated, in one clause."""

    rule: ForbiddenRule
    clause: str
    """The offending clause text, trimmed (the whole sentence when the match crosses clauses)."""
    sentence_index: int
    match: str = ""
    """The words that matched."""

    @property
    def reason(self) -> str:
        return f'{self.rule.display} in "{self.clause}"'


# ------------------------------------------------------------------------------------------------ search


_Match = tuple[int, int, int, int]  # start token, end token, start char, end char (in the text read)
# A rule's matches in one sentence found by the whole-answer search, in the sentence's own words and
# offsets; None when the sentence must be searched on its own.
Known = list[_Match] | None


class _SentenceReading:
    """One sentence, read clause by clause. Its words are read once (or taken from the answer's words);
    a clause's view (its words and negation cues) is built only when a match lies in it, or when a
    negated list may carry over. `tokens` have offsets where the sentence starts at `base`."""

    def __init__(self, sentence: Sentence, index: int, tokens: list[Token], base: int) -> None:
        self.text = text = sentence.text
        self.added = sentence.added
        self.index = index
        self.question = text.rstrip().endswith("?")
        self.clauses = clauses_of(text, index, map(_TEXT, tokens))
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
            words, base = clause_tokens(self.tokens, self.starts, self.base, clause)
            view = self._views[ci] = ClauseView(clause.text, words, base, clause.opener, clause.subordinate)
        return view

    def carried(self, ci: int) -> bool:
        if ci == 0:
            return False  # nothing before the first clause to carry a negation from
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
            sentence_matches = _matches(rule, self.text, self.tokens, self.base, self.added)
        else:
            sentence_matches = known
        per_clause, crossing = self._clause_matches(rule, sentence_matches)
        for ci, matches in per_clause.items():
            view = self.view(ci)
            for s, e, cs, ce in matches:
                if rule.allow_negated and reported(view, s, e, self.question):
                    continue
                if not (rule.allow_negated and negated(view, s, e, self.carried(ci))):
                    found.append((ci, Violation(rule, self._shown(ci), self.index, view.text[cs:ce])))
                    break
        for s, e, cs, ce in crossing:
            self._whole = self._whole or ClauseView(self.text, self.tokens, self.base)
            if not (rule.allow_negated and negated(self._whole, s, e, False)):
                violation = Violation(rule, self.text[self.added :].strip(), self.index, self.text[cs:ce])
                found.append((len(self.clauses), violation))
                break
        return sorted(found, key=lambda item: item[0])

    def _shown(self, ci: int) -> str:
        """The clause as the answer wrote it (without the words the reader put in front)."""
        clause = self.clauses[ci]
        return clause.text[max(0, self.added - clause.start) :].strip()

    def _clause_matches(
        self, rule: ForbiddenRule, sentence_matches: Sequence[_Match]
    ) -> tuple[dict[int, list[_Match]], list[_Match]]:
        """Each clause's own matches. In an aligned sentence (each word in one clause), a match found in
        the sentence that lies inside one clause is that clause's own: for a phrase always, for a
        pattern by the argument of `_Candidates._pattern_hits`. Other clauses are searched on their
        own: for a pattern only those a sentence-level match touches (a clause with a match of its own
        is always among them: the leftmost match the sentence search finds lies in it or runs into it),
        or every clause for an anchored pattern, and for a phrase every clause. Also the sentence-level
        matches that no one clause holds."""
        inside, crossing = _by_clause(sentence_matches, self.clauses, self.clause_starts, self.firsts)
        if rule.phrase is not None and self.aligned:
            return inside, crossing
        per_clause: dict[int, list[_Match]] = {}
        if rule.phrase is not None or (rule.pattern is not None and _anchored(rule.pattern)):
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
            if matches := _matches(rule, view.text, view.tokens, view.base, skip):
                per_clause[ci] = matches
        return dict(sorted(per_clause.items())), crossing

    def _touched(self, matches: Iterable[_Match]) -> list[int]:
        """The clauses the matches start in, end in or run across, in order."""
        starts = self.clause_starts
        touched: set[int] = set()
        for _, _, cs, ce in matches:
            first = max(0, bisect_right(starts, cs) - 1)
            touched.update(range(first, max(0, bisect_right(starts, max(cs, ce - 1)) - 1) + 1))
        return sorted(touched)


def _matches(
    rule: ForbiddenRule, text: str, tokens: Sequence[Token], base: int, skip: int = 0
) -> list[_Match]:
    """(start token, end token, start char, end char) of each match of the rule in text, whose words
    `tokens` have offsets where `text` starts at `base`. Nothing that starts in the first `skip`
    characters matches (the words the reader put in front of a sentence, `Sentence.added`)."""
    if rule.phrase is not None:
        spans = find_phrase(tokens, rule.phrase)
        found = [(s, e, tokens[s].start - base, tokens[e - 1].end - base) for s, e in spans]
        return [m for m in found if m[2] >= skip] if skip else found
    matches = compile_pattern(rule.pattern or "").finditer(text, skip)
    return _placed([m.span() for m in matches if m.end() > m.start()], tokens, base)


def _placed(
    spans: Sequence[tuple[int, int]], tokens: Sequence[Token], base: int, lo: int = 0, hi: int | None = None
) -> list[_Match]:
    """Character spans of a text (its words `tokens[lo:hi]`, offsets where it starts at `base`) as
    matches, word indexes counted from `lo` (a sentence's words within the answer's)."""
    hi = len(tokens) if hi is None else hi
    found = []
    for cs, ce in spans:
        s = bisect_right(tokens, cs + base, lo, hi, key=_END)  # the first token ending after it starts
        found.append((s - lo, max(s, bisect_left(tokens, ce + base, lo, hi, key=_START)) - lo, cs, ce))
    return found


_TEXT, _START, _END = itemgetter(0), itemgetter(2), itemgetter(3)  # Token.text, .start, .end


def _anchored(pattern: str) -> bool:
    return any(anchor in pattern for anchor in ("^", "$", "\\A", "\\z"))


class _Candidates:
    """Which sentences can hold a match of which rule: a cheap test that never drops a real match.

    A sentence placed in the visible text (`Sentence.base`) reads the answer's own words, so a phrase
    matches in it only where it matches in the whole answer: the sentences a whole-answer match starts
    in are read, and the rest skipped. Always read as well: a sentence not placed (`Sentence.placed`),
    the two sentences on either side of a hyphen (or the "re " prefix rule) that joins words across a
    sentence boundary, and a sentence where a conjunction is glued to the word before it
    ("reinstall-if"): there a clause cut splits a compound, and a clause can match what the whole answer
    does not. A pattern is searched once over all the sentences joined, and every sentence a match
    starts in or reaches is read: a sentence with a match of its own is always among them (the search's
    leftmost match either lies in it or runs into it). So only sentences that mention forbidden words
    are read clause by clause.
    """

    def __init__(self, sentences: Sequence[Sentence], words: Words) -> None:
        self.sentences = sentences
        self.words = words
        self.bases = [s.base for s in sentences if s.base is not None and s.placed]
        self.located = [i for i, s in enumerate(sentences) if s.placed]
        self._joined: tuple[str, list[int]] | None = None
        self._phrase_extra: frozenset[int] | None = None

    def rules_by_sentence(self, rules: Sequence[ForbiddenRule]) -> dict[int, list[tuple[int, Known]]]:
        """For each sentence to read, the rules to read it for (their indexes, in order), each with the
        sentence's matches when the whole-answer search already found them (`Known`)."""
        wanted: dict[int, list[tuple[int, Known]]] = {}
        for ri, rule in enumerate(rules):
            for si, known in self.hits(rule).items():
                wanted.setdefault(si, []).append((ri, known))
        return wanted

    def hits(self, rule: ForbiddenRule) -> dict[int, Known]:
        """The sentences that can hold a match of the rule, with their matches where already known."""
        if rule.phrase is not None:
            found = self._place(find_phrase(self.words, rule.phrase))
            found.update(dict.fromkeys(self._phrase_extras()))
            return found
        if rule.pattern is not None and not _anchored(rule.pattern):
            return self._pattern_hits(compile_pattern(rule.pattern))
        return dict.fromkeys(range(len(self.sentences)))

    def _place(self, spans: Iterable[tuple[int, int]]) -> dict[int, Known]:
        """Whole-answer phrase matches (token spans, in order) given to the placed sentences they lie
        in, as matches in each sentence's own words and offsets. One that runs out of its sentence is no
        match there. A sentence is found by bisection, and kept for the matches after it that it holds:
        a suite with fifty phrases places each one's matches, not fifty walks of the answer."""
        tokens = self.words.tokens
        found: dict[int, Known] = {}
        si: int | None = None
        base = end_of = first = 0
        for s, e in spans:
            start, end = tokens[s].start, tokens[e - 1].end
            if si is None or not base <= start < end_of:
                si = self._sentence_at(start)
                if si is None:
                    continue
                sentence = self.sentences[si]
                base = sentence.base or 0  # a located sentence is placed: it has a base
                end_of = base + len(sentence.text)
                first = bisect_left(self.words.starts, base)  # its first word (`sentence_words`)
            if end <= end_of:
                known = found.get(si)
                if known is None:
                    known = found[si] = []
                known.append((s - first, e - first, start - base, end - base))
        return found

    def _pattern_hits(self, pattern: Pattern) -> dict[int, Known]:
        """Every sentence a match over the joined sentences starts in or reaches. A match inside one
        sentence is that sentence's own (RE2 picks the same match in the sentence alone: the text after
        it does not change which match is preferred, and the line break around a sentence reads like
        its edge); a sentence a match runs into or out of is searched again on its own, and so is one
        whose words are not the answer's (`Sentence.placed`)."""
        text, starts = self._joined_text()
        spans: dict[int, list[tuple[int, int]] | None] = {}
        for m in pattern.finditer(text):
            first = bisect_right(starts, m.start()) - 1
            last = bisect_right(starts, max(m.start(), m.end() - 1)) - 1
            if first == last and m.end() <= starts[first] + len(self.sentences[first].text):
                known = spans.setdefault(first, [])
                if known is not None and m.end() > m.start():
                    known.append((m.start() - starts[first], m.end() - starts[first]))
            else:
                spans.update(dict.fromkeys(range(first, last + 1)))
        return {
            si: None if found is None or not self.sentences[si].placed else self._in_words(si, found)
            for si, found in spans.items()
        }

    def _in_words(self, si: int, spans: Sequence[tuple[int, int]]) -> list[_Match]:
        """Character spans of a placed sentence as matches in its words (the answer's words from its
        first to its last, as `sentence_words` takes them)."""
        sentence, words = self.sentences[si], self.words
        base = sentence.base or 0
        first = bisect_left(words.starts, base)
        stop = bisect_left(words.starts, base + len(sentence.text))
        return _placed(spans, words.tokens, base, first, stop)

    def _sentence_at(self, offset: int) -> int | None:
        k = bisect_right(self.bases, offset) - 1
        if k < 0:
            return None
        index = self.located[k]
        return index if offset < self.bases[k] + len(self.sentences[index].text) else None

    def _phrase_extras(self) -> frozenset[int]:
        if self._phrase_extra is None:
            extra = {i for i, s in enumerate(self.sentences) if not s.placed}
            tokens = self.words.tokens
            for j in self.words.joined:  # a compound that a sentence boundary cuts: both sides are read
                pair = {self._sentence_at(tokens[j - 1].start), self._sentence_at(tokens[j].start)}
                if len(pair) > 1:
                    extra.update(si for si in pair if si is not None)
            extra |= _sentences_hit(glued_conjunction(), *self._joined_text())
            self._phrase_extra = frozenset(extra)
        return self._phrase_extra

    def _joined_text(self) -> tuple[str, list[int]]:
        if self._joined is None:
            self._joined = _joined(s.text for s in self.sentences)
        return self._joined


# What the candidate test knows of an answer apart from any rule (its sentences joined, the sentences a
# compound crosses into), shared by the judges that read one answer (policy, abstention).
_CANDIDATES: WeakKeyDictionary[AnswerView, _Candidates] = WeakKeyDictionary()


def _joined(sentences: Iterable[str]) -> tuple[str, list[int]]:
    texts = list(sentences)
    starts, position = [], 0
    for text in texts:
        starts.append(position)
        position += len(text) + 1
    return "\n".join(texts), starts


def _sentences_hit(pattern: Pattern, text: str, starts: Sequence[int]) -> frozenset[int]:
    hit: set[int] = set()
    for m in pattern.finditer(text):
        first = bisect_right(starts, m.start()) - 1
        last = bisect_right(starts, max(m.start(), m.end() - 1)) - 1
        hit.update(range(first, last + 1))
    return frozenset(hit)


def sentence_words(sentence: Sentence, words: Words) -> tuple[list[Token], int]:
    """A sentence's words and the offset its text starts at in their frame: the answer's own words
    when the sentence is a slice of the visible text, else the words of its text read again."""
    if sentence.base is None or not sentence.placed:
        return tokenize(sentence.text), 0
    starts = words.starts
    first = bisect_left(starts, sentence.base)
    tokens = words.tokens[first : bisect_left(starts, sentence.base + len(sentence.text))]
    if tokens and tokens[0].joined:
        tokens[0] = tokens[0]._replace(joined=False)  # nothing before a sentence's first word joins it
    return tokens, sentence.base


def find_violations(answer: str | AnswerView, rules: Sequence[ForbiddenRule]) -> list[Violation]:
    """Every (rule, clause) where the answer states forbidden content that is not negated.

    `answer` is the markdown answer or its shared reading (`AnswerView`, built once for every judge).
    At most one violation per rule and clause, ordered by sentence, clause, then rule order.
    """
    view = AnswerView(answer) if isinstance(answer, str) else answer
    sentences, words = view.sentences, view.words
    candidates = _CANDIDATES.get(view)
    if candidates is None:
        candidates = _CANDIDATES[view] = _Candidates(sentences, words)
    wanted = candidates.rules_by_sentence(rules)
    found: list[tuple[int, int, int, Violation]] = []
    # A sentence's reading depends on its text and the rules it is read for, not on where it stands:
    # a sentence said again (a list repeated under each heading, an agent stuck in a loop) is read once.
    read: dict[object, list[tuple[int, int, Violation]]] = {}
    for si in sorted(wanted):
        sentence = sentences[si]
        key = _reading_key(sentence, wanted[si])
        violations = read.get(key)
        if violations is None:
            reading = _SentenceReading(sentence, si, *sentence_words(sentence, words))
            violations = read[key] = [
                (ci, ri, v) for ri, known in wanted[si] for ci, v in reading.violations(rules[ri], known)
            ]
        found.extend(
            (si, ci, ri, v if v.sentence_index == si else replace(v, sentence_index=si))
            for ci, ri, v in violations
        )
    found.sort(key=lambda item: item[:3])
    return [violation for *_, violation in found]


def _reading_key(sentence: Sentence, wanted: list[tuple[int, Known]]) -> object:
    """What a sentence's reading depends on: its text (with the words the reader put in front), and the
    rules with their matches in it (offsets in the sentence, so equal for equal sentences)."""
    return (
        sentence.text,
        sentence.added,
        tuple((ri, None if known is None else tuple(known)) for ri, known in wanted),
    )


def _by_clause(
    matches: Sequence[_Match], clauses: Sequence[Clause], starts: Sequence[int], firsts: Sequence[int]
) -> tuple[dict[int, list[_Match]], list[_Match]]:
    """Sentence-level matches that lie inside one clause, in that clause's own offsets (clauses are in
    order and do not overlap), and the matches no one clause holds."""
    per_clause: dict[int, list[_Match]] = {}
    crossing: list[_Match] = []
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
