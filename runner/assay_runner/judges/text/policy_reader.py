"""The forbidden-content reader: does an answer recommend something the answer key forbids?

Reading model
-------------
The answer (markdown) is normalised (`textmatch.normalize`) and cut into **sentences**: every paragraph,
list item (``-``, ``*``, ``+``, ``1.``, ``1)``), heading, table cell and line of a code block is read on
its own, and a paragraph is cut after ``.``, ``!`` and ``?`` (not after e.g., i.e., etc. or an initial).
A list item's continuation lines belong to the item; a soft-wrapped paragraph is one text.

Each sentence is cut into **clauses** at ``,`` ``;`` ``:`` parentheses, dashes (— – and a spaced
hyphen) and before the conjunctions and subordinators "but", "if", "unless", "then", "and then",
"so", "so that", "because", "otherwise", "however", "although", "though", "whereas", "when(ever)",
"once", "until", "before", "after", "while", "since", "whether", "in case", "as soon as", "or else",
"instead" (not "instead of"), "rather" (not "rather than"), and before "and"/"or" when a new subject or
a discourse word follows ("and you", "and then", "or just"). The conjunction stays at the head of its
clause; a clause that starts with a subordinator ("if", "when", "unless", ...) is *subordinate*.

A forbidden item (a phrase, matched with `textmatch` semantics: whole words, inflection-tolerant, the
hyphen rule; or a case-insensitive regular expression matched against the clause text) found in a
clause is a **violation** unless the rule allows negation and the clause negates it. Negation never
crosses a clause boundary, so "If that does not help, reinstall it" still recommends reinstalling.

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
- Run-on sentences without a comma or conjunction keep an earlier descriptive negation in force ("The app
  does not sync reinstall it" is read as negated); a comma or "so"/"then" fixes it.
- "and" between two bare verbs does not cut the clause: "Don't close the app and reinstall it" is read as
  negating both.
- Irony, hedges and hypotheticals ("you could reinstall, but it won't help"), questions, quoted text,
  presuppositions ("before you reinstall, export your notes") and double negation beyond the forms
  above are read literally: the forbidden words count.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from assay_runner.judges.text.markdown import normalize
from assay_runner.judges.text.match import Token, Unit, find_phrase, phrase_tokens, stem, tokenize
from assay_runner.judges.text.patterns import Pattern, compile_pattern

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
    """A plain phrase, matched with `textmatch` semantics (whole words, inflection-tolerant)."""
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


@dataclass(slots=True)  # not frozen: a frozen dataclass is slow to build, and a long answer has many
class Clause:
    """A clause of the normalised answer."""

    text: str
    """The clause text, trimmed."""
    sentence_index: int
    """0-based index of its sentence among `split_sentences(answer)`."""
    index: int
    """0-based position within its sentence."""
    opener: str | None
    """What opened it: a punctuation mark (",", ";", ":", "(", "—", ...), a lower-case conjunction ("if",
    "and then"), or None for the first clause of a sentence."""
    start: int
    end: int
    """Offsets of `text` in its sentence."""

    @property
    def subordinate(self) -> bool:
        """Opened by a subordinator (if, when, unless, because, ...): a condition, not the main advice."""
        return self.opener in _SUBORDINATORS


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


# --------------------------------------------------------------------------------------------- sentences

_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)]|[A-Za-z][.)](?=\s))\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_RULE_LINE = re.compile(r"^\s*(?:[-*_=]\s*){3,}$")
_TABLE_SEP = re.compile(r"^\s*\|?(?:\s*:?-+:?\s*\|)+\s*(?::?-+:?\s*)?$")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?=\s|$)")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "etc", "vs", "approx", "incl", "mr", "mrs", "ms", "dr", "st", "cf", "al"}
)
_HAS_WORD = re.compile(r"[^\W_]")
_ABBREVIATION_LOOKBACK = 16
# A line ending in ":" that tells the reader not to do what follows: its list items are negated.
_NEGATING_INTRO = re.compile(
    r"\b(?:do\s+not|don't|dont|never|avoid|refrain|not\s+to\s+do|must\s+not|should\s+not|shouldn't)\b",
    re.IGNORECASE,
)


def split_sentences(text: str) -> list[str]:
    """The sentences of a markdown answer, normalised, in reading order (see the module docstring)."""
    return sentences_of_plain(normalize(text))


def sentences_of_plain(plain: str) -> list[str]:
    """The sentences of an answer already normalised (`AnswerView.sentences`)."""
    sentences: list[str] = []
    for block in _blocks(plain):
        sentences.extend(_split_block(block))
    return [s for s in sentences if _HAS_WORD.search(s)]


def _blocks(text: str) -> list[str]:
    """Paragraphs, list items, headings and table cells, with soft-wrapped lines joined."""
    blocks: list[str] = []
    current: list[str] = []
    state = {"item": False, "intro": False}

    def flush() -> None:
        if current:
            block = " ".join(current)
            if state["item"] and state["intro"]:
                block = "Do not " + block  # an item under "Do not:" / "Avoid the following:"
            elif not state["item"]:
                state["intro"] = block.rstrip().endswith(":") and bool(_NEGATING_INTRO.search(block))
            blocks.append(block)
            current.clear()
        state["item"] = False

    for raw in text.split("\n"):
        line = _QUOTE.sub("", raw)
        if not line.strip() or _RULE_LINE.match(line) or _TABLE_SEP.match(line):
            flush()
        elif line.lstrip().startswith("|"):
            flush()
            blocks.extend(cell.strip() for cell in line.strip().strip("|").split("|"))
        elif heading := _HEADING.match(line):
            flush()
            current.append(line[heading.end() :].strip().rstrip("#").strip())
            flush()
        elif bullet := _BULLET.match(line):
            flush()
            state["item"] = True
            current.append(line[bullet.end() :].strip())
        else:
            current.append(line.strip())
    flush()
    return blocks


def _split_block(block: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(block):
        if m.group() == "." and _is_abbreviation(block, m.start()):
            continue
        sentences.append(block[start : m.end()].strip())
        start = m.end()
    sentences.append(block[start:].strip())
    return [s for s in sentences if s]


def _is_abbreviation(block: str, end: int) -> bool:
    # Only the few characters before the period matter: looking further made the split quadratic.
    m = _WORD_BEFORE.search(block, max(0, end - _ABBREVIATION_LOOKBACK), end)
    if not m:
        return False
    word = m.group(1).casefold()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


# ----------------------------------------------------------------------------------------------- clauses

# A comma or colon between two digits (1,000 / 10:30) is not a boundary; a spaced hyphen is a dash.
_PUNCT_SPLIT = re.compile(
    r"(?<!\d)[,:]|[,:](?!\d)|[;()\[\]{}|\u2014\u2013\u2026]|(?<=\s)-{1,2}(?=\s)|-{2,}|\.{3}"
)
_PRONOUN_OR_DISCOURSE = r"(?:you|we|i|it|they|he|she|this|that|then|just|simply|also|instead|afterwards)"
_WORD_SPLIT = re.compile(
    r"\b(?:and\s+then|or\s+else|so\s+that|in\s+case|as\s+soon\s+as|but|if|unless|then|so|because|"
    r"otherwise|although|though|however|whereas|whenever|when|once|until|till|before|after|while|since|"
    r"whether|instead(?!\s+of\b)|rather(?!\s+than\b)|(?:and|or)(?=\s+" + _PRONOUN_OR_DISCOURSE + r"\b))\b",
    re.IGNORECASE,
)
_SUBORDINATORS = frozenset(
    {
        "if",
        "unless",
        "when",
        "whenever",
        "once",
        "until",
        "till",
        "before",
        "after",
        "while",
        "since",
        "because",
        "although",
        "though",
        "whereas",
        "whether",
        "in case",
        "as soon as",
        "so that",
    }
)
_TRIM_CHARS = " \t\n\x0b\x0c\"'.!?"


def split_clauses(text: str) -> list[Clause]:
    """Every clause of a markdown answer, sentence by sentence (see the module docstring)."""
    clauses: list[Clause] = []
    for index, sentence in enumerate(split_sentences(text)):
        clauses.extend(_clauses_of(sentence, index))
    return clauses


def _clauses_of(sentence: str, sentence_index: int) -> list[Clause]:
    cuts = [(m.start(), m.end(), _punct_name(m.group())) for m in _PUNCT_SPLIT.finditer(sentence)]
    cuts += [
        (m.start(), m.start(), " ".join(m.group().casefold().split())) for m in _WORD_SPLIT.finditer(sentence)
    ]
    cuts.sort()
    clauses: list[Clause] = []
    position, opener = 0, None
    for cut_start, cut_end, name in [*cuts, (len(sentence), len(sentence), "")]:
        clause = _make_clause(
            sentence, position, cut_start, opener=opener, sentence_index=sentence_index, index=len(clauses)
        )
        if clause is not None:
            clauses.append(clause)
            opener = name
        elif opener is None or name[:1].isalpha() or not opener[:1].isalpha():
            opener = name  # nothing between two cuts: a conjunction outranks the punctuation before it
        position = max(position, cut_end)
    return clauses


def _punct_name(mark: str) -> str:
    return "\u2014" if mark.strip() and set(mark.strip()) <= set("-\u2013\u2014") else mark.strip()


def _make_clause(
    sentence: str, start: int, end: int, *, opener: str | None, sentence_index: int, index: int
) -> Clause | None:
    if end <= start or not _HAS_WORD.search(sentence, start, end):
        return None
    piece = sentence[start:end]
    lead = len(piece) - len(piece.lstrip(_TRIM_CHARS))
    text = piece.strip(_TRIM_CHARS)
    return Clause(text, sentence_index, index, opener or None, start + lead, start + lead + len(text))


# ---------------------------------------------------------------------------------------------- negation


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _stemset(words: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words.split())


_NT_DIRECTIVE = frozenset(
    {"don't", "dont", "shouldn't", "shouldnt", "mustn't", "mustnt", "needn't", "neednt"}
)
_NT_BARE = frozenset(
    {"cannot", "cant", "wont", "isnt", "arent", "wasnt", "werent", "doesnt", "didnt", "hasnt", "havent"}
    | {"hadnt", "couldnt", "wouldnt", "aint"}
)
_NT_ALL = _NT_BARE | _NT_DIRECTIVE
# "not" after these describes a state ("it is not", "will not help"); after do/should/must it directs.
_DESCRIPTIVE_BEFORE_NOT = frozenset(
    {"is", "are", "was", "were", "be", "been", "am", "does", "did", "has", "have", "had", "will", "would"}
    | {"could", "can", "may", "might", "it's", "that's", "there's", "here's", "what's", "i'm", "you're"}
    | {"we're", "they're", "he's", "she's"}
)
_COPULA_AUX = frozenset(
    {"is", "are", "was", "were", "be", "will", "would", "should", "does", "do", "did", "can", "could"}
    | {"may", "might", "must"}
)
# Words the negation passes through to reach its head: auxiliaries, modals, pronouns, determiners,
# necessity and attempt ("do not need to try to reinstall", "no need to", "not necessary to").
_TRANSPARENT = _wordset(
    """
    do does did doing done will would shall should can could may might must ought
    have has had having be been being is are was were am get gets got
    need needs needed needing necessary necessarily required require requires recommended recommend
    advisable advised advise wise safe reason point benefit worth good idea use anything
    a an the any your this that these those my our their its some
    it you we i they them yourself yourselves one anyone anybody someone
    to in for of at all ever even actually really yet again still now first please
    try tries tried trying attempt attempts attempted attempting bother go going want wants wish plan
    able allowed supposed expected meant ahead
    """
)
_NOT_ADVERBS = frozenset(
    {"apply", "reply", "supply", "rely", "comply", "family", "only", "early", "fly", "ally"}
)
# A negation whose head is one of these does not negate what follows: it encourages it.
_REVERSERS = _stemset(
    """
    hard difficult complicated tricky hesitate forget forgot fail worry worries panic fret wait delay
    afraid only just merely matter doubt problem big much long sure hurt harm lose lost break broke
    damage affect mind wrong beat bad take takes took cost short
    """
)
# Predicates that, negated, reject the subject: "reinstalling is not necessary / won't help".
_PREDICATES = _stemset(
    """
    necessary needed required recommended advised advisable helpful useful warranted option solution
    fix answer supported allowed permitted safe wise idea work solve resolve help worth appropriate way
    guaranteed possible
    """
)
# Predicates that reject their subject without a "not": "reinstalling is unnecessary".
_REJECTING = _stemset(
    """
    unnecessary pointless useless unhelpful futile discouraged prohibited forbidden unsupported waste
    mistake risky dangerous harmful unwise inadvisable bad
    """
)
_COORDINATORS = frozenset({"or", "nor", "and"})
_MAX_CHAIN = 8  # negations stacked on one another ("not not not ...") are read no further back than this
_RESTARTS = _wordset("just simply please so then")
_FORBIDDING = _wordset(
    "forbid forbids forbade forbidding prohibit prohibits prohibited ban bans disallow disallows"
)
_ADVISING = _stemset("recommend advise caution warn argue decide")
# Subjects whose past-tense verb reports what happened rather than advising it.
_REPORTERS = _wordset("you they i we he she customer user users customers already")


class _Cue(NamedTuple):
    start: int
    end: int
    strict: bool
    """Prepositional (without, instead of, avoid...): governs only the phrase it introduces."""
    directive: bool
    """Tells the reader not to do something (don't, never, avoid): may carry over a list."""


class _View:
    """A clause (or a whole sentence) ready for matching: tokens, negation cues."""

    def __init__(
        self, text: str, tokens: list[Token], opener: str | None = None, subordinate: bool = False
    ) -> None:
        self.text = text
        self.tokens = tokens
        self.opener = opener
        self.subordinate = subordinate
        self.words = words = [t.text for t in tokens]
        self.cues = _find_cues(words)
        # Cues by kind with their ends, so each match finds the cues before it by bisection: a clause
        # with thousands of negated matches stays linear.
        self.verbal = [c for c in self.cues if not c.strict]
        self.verbal_ends = [c.end for c in self.verbal]
        self.prepositional = [c for c in self.cues if c.strict]
        self.prepositional_ends = [c.end for c in self.prepositional]
        opener_words = opener.split() if opener and opener[:1].isalpha() else []
        self.body_start = len(opener_words) if words[: len(opener_words)] == opener_words else 0


def _clause_tokens(sentence: Sequence[Token], starts: Sequence[int], clause: Clause) -> list[Token]:
    """The words of one clause, taken from its sentence's words (offsets made the clause's own) rather
    than read again: `tokenize(clause.text)` exactly, which a word crossing the cut falls back to."""
    first, stop = bisect_left(starts, clause.start), bisect_left(starts, clause.end)
    inside = sentence[first:stop]
    crossing = (inside and inside[-1].end > clause.end) or (first and sentence[first - 1].end > clause.start)
    if crossing:
        return tokenize(clause.text)
    shift = clause.start
    # The first word of a clause is never joined to a word before it: that word is in another clause.
    return [
        Token(t.text, t.stem, t.start - shift, t.end - shift, t.joined and k > 0)
        for k, t in enumerate(inside)
    ]


def _find_cues(words: Sequence[str]) -> list[_Cue]:
    cues: list[_Cue] = []
    i = 0
    while i < len(words):
        w = words[i]
        prev = words[i - 1] if i else ""
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if (w, nxt) in {("instead", "of"), ("rather", "than"), ("refrain", "from")}:
            cues.append(_Cue(i, i + 2, strict=True, directive=w == "refrain"))
            i += 2
            continue
        if w in {"without", "avoid", "avoiding", "stop", "stopping"}:
            cues.append(_Cue(i, i + 1, strict=True, directive=w in {"avoid", "stop"}))
        elif w in _FORBIDDING or (w == "against" and stem(prev) in _ADVISING):
            cues.append(_Cue(i, i + 1, strict=True, directive=True))  # "policy forbids", "advise against"
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
        i += 1
    return cues


def _transparent(word: str) -> bool:
    return word in _TRANSPARENT or _is_adverb(word)


def _head(view: _View, cue: _Cue, stop: int | None = None) -> int | None:
    """The first word after the cue that is not transparent (before `stop`), if any."""
    end = len(view.words) if stop is None else stop
    return next((i for i in range(cue.end, end) if not _transparent(view.words[i])), None)


def _governs(view: _View, cue: _Cue, start: int, *, strict: bool) -> bool:
    head = _head(view, cue, start)
    if head is None:
        return True  # only transparent words between the cue and the match: the match is its head
    if not strict:
        if not cue.directive and any(w in _RESTARTS for w in view.words[head + 1 : start]):
            return False  # a run-on: "It won't open just reinstall it" starts new advice at "just"
        return stem(view.words[head]) not in _REVERSERS
    return _coordinated(view, cue, start)


def _coordinated(view: _View, cue: _Cue, start: int) -> bool:
    """Strict scope reaching a later conjunct: "without reinstalling or resetting"."""
    words = view.words
    joins = [i for i in range(cue.end, start) if words[i] in _COORDINATORS]
    if not joins:
        return False
    last = joins[-1]
    if any(not _transparent(words[i]) for i in range(last + 1, start)):
        return False
    head = _head(view, cue, last)
    if head is None or stem(words[head]) in _REVERSERS:
        return False
    if words[last] == "and":  # "and" only joins -ing forms here; else it starts new advice
        return words[head].endswith("ing") and start < len(words) and words[start].endswith("ing")
    return True


def _double_negations(view: _View, index: int) -> int:
    """How many earlier cues have the verbal cue `index` as their head ("no reason not to", "can't not")."""
    count, current = 0, view.verbal[index]
    for earlier in reversed(view.verbal[max(0, index - _MAX_CHAIN) : index]):
        fresh = view.words[current.start - 1] in {"do", "does", "did", "please"} if current.start else True
        if (
            fresh
            or view.words[current.start] not in {"not", "never"}
            or _head(view, earlier) != current.start
        ):
            break
        count, current = count + 1, earlier
    return count


def _predicate_negated(view: _View, start: int, end: int) -> bool:
    """ "Disabling the firewall is not necessary" / "is unnecessary": the match is the subject of a
    predicate that rejects it."""
    words = view.words
    # Index by index, not a slice: a slice up to every match made long clauses quadratic.
    if start >= len(words) or any(not _transparent(words[i]) for i in range(view.body_start, start)):
        return False
    nominal = words[start].endswith("ing") or (
        start > 0 and words[start - 1] in {"a", "an", "the", "to", "any"}
    )
    verb = next((k for k in range(end, len(words)) if _is_verb_group(words[k])), None)
    if verb is None or verb - end > (4 if nominal else 0):
        return False
    after = verb + 1
    while after < len(words) and _is_adverb(words[after]):
        after += 1  # "will definitely not", "is really not"
    negated = words[verb] in _NT_ALL or words[verb].endswith("n't")
    if not negated and after < len(words) and words[after] in {"not", "never", "neither"}:
        negated, after = True, after + 1
    for later in words[after : after + 3]:
        key = stem(later)
        if key in (_PREDICATES if negated else _REJECTING):
            return True
        if key in _REVERSERS:
            return False
    return False


def _is_adverb(word: str) -> bool:
    return word in {"really", "ever", "even", "actually", "still"} or (
        len(word) > 4 and word.endswith("ly") and word not in _NOT_ADVERBS
    )


def _is_verb_group(word: str) -> bool:
    return word in _COPULA_AUX or word in _NT_ALL or word.endswith("n't")


def _negated(view: _View, start: int, end: int, carried: bool) -> bool:
    verbal_count = bisect_right(view.verbal_ends, start)
    prepositional_count = bisect_right(view.prepositional_ends, start)
    flips = 0
    if verbal_count:
        index = verbal_count - 1
        nearest = view.verbal[index]
        if _governs(view, nearest, start, strict=view.subordinate):
            flips += 1 + (_double_negations(view, index) or _why_not(view, index))
    elif carried:
        flips += 1
    if prepositional_count and _governs(
        view, view.prepositional[prepositional_count - 1], start, strict=True
    ):
        flips += 1
    if _predicate_negated(view, start, end) or _not_only_rejected(view, start, end):
        flips += 1
    return flips % 2 == 1


def _why_not(view: _View, index: int) -> int:
    """ "I don't see why you shouldn't reinstall": a negation before "why"/"reason" cancels the one after."""
    if index == 0:
        return 0
    between = view.words[view.verbal[index - 1].end : view.verbal[index].start]
    return 1 if any(word in {"why", "reason"} for word in between) else 0


def _not_only_rejected(view: _View, start: int, end: int) -> bool:
    """ "Not only is a reinstall unnecessary, ...": the rejecting word follows the subject."""
    words = view.words
    if words[view.body_start : view.body_start + 2] != ["not", "only"]:
        return False
    return any(stem(word) in _REJECTING for word in words[end : end + 4])


def _reported(view: _View, start: int, end: int, question: bool) -> bool:
    """A past-tense match after a reporting subject ("you reinstalled", "the customer already
    reinstalled", "have you reinstalled?") tells what happened; it does not advise it."""
    words = view.words
    if not words[start].endswith("ed"):
        return False
    before = [w for w in words[max(0, start - 3) : start] if w not in {"have", "has", "had", "just"}]
    return bool(before) and (before[-1] in _REPORTERS or (question and before[-1] in {"it", "that"}))


def _carried_negation(views: Sequence[_View], clauses: Sequence[Clause]) -> list[bool]:
    """Which clauses continue a directive negation across commas: a negated list ("Do not reinstall,
    reset(,) or disable it") or an interrupted one ("Do not, under any circumstances, reinstall it")."""
    carried = [False] * len(views)
    for k, view in enumerate(views):
        directive = [c for c in view.cues if c.directive]
        if view.subordinate or not directive:
            continue
        head = _head(view, directive[-1])
        dangling = head is None and view.words[directive[-1].start] != "no"  # "No, reinstall it" is not
        if not dangling and (head is None or stem(view.words[head]) in _REVERSERS):
            continue
        run: list[int] = []
        for j in range(k + 1, len(views)):
            item = views[j]
            own = [c for c in item.cues if not (c.start == 0 and item.words[0] == "nor")]
            if clauses[j].opener != "," or item.subordinate or own:
                break
            run.append(j)
            if dangling:
                carried[j] = True
            elif any(w in {"or", "nor"} for w in item.words[:4]):
                for r in run:
                    carried[r] = True
                break
            elif len(item.words) > 4:
                break
    return carried


# ------------------------------------------------------------------------------------------------ search


_Match = tuple[int, int, int, int]  # start token, end token, start char, end char


class _SentenceReading:
    """One sentence, read clause by clause. The sentence is tokenised once; a clause's view (its words
    and negation cues) is built only when a match lies in it, or when a negated list may carry over."""

    def __init__(self, sentence: str, index: int) -> None:
        self.text = sentence
        self.index = index
        self.question = sentence.rstrip().endswith("?")
        self.clauses = _clauses_of(sentence, index)
        self.clause_starts = [c.start for c in self.clauses]
        self.tokens = tokenize(sentence)
        self.starts = [t.start for t in self.tokens]
        self.firsts = [bisect_left(self.starts, c.start) for c in self.clauses]
        self._views: list[_View | None] = [None] * len(self.clauses)
        self._carried: list[bool] | None = None
        self._whole: _View | None = None
        self.aligned = self._aligned()

    def _aligned(self) -> bool:
        """Does every word lie inside one clause, with no hyphen joining it to a word across a cut
        ("what-if")? Then a phrase matched once in the sentence is what matching clause by clause finds."""
        tokens, starts = self.tokens, self.starts
        for clause, first in zip(self.clauses, self.firsts, strict=True):
            if first > 0 and tokens[first - 1].end > clause.start:
                return False
            stop = bisect_left(starts, clause.end)
            if stop > first and (tokens[first].joined or tokens[stop - 1].end > clause.end):
                return False
        return True

    def view(self, ci: int) -> _View:
        view = self._views[ci]
        if view is None:
            clause = self.clauses[ci]
            words = _clause_tokens(self.tokens, self.starts, clause)
            view = self._views[ci] = _View(clause.text, words, clause.opener, clause.subordinate)
        return view

    def carried(self, ci: int) -> bool:
        if ci == 0:
            return False  # nothing before the first clause to carry a negation from
        if self._carried is None:
            self._carried = _carried_negation([self.view(k) for k in range(len(self.clauses))], self.clauses)
        return self._carried[ci]

    def violations(self, rule: ForbiddenRule) -> list[tuple[int, Violation]]:
        """At most one violation per clause, and one for a match across clauses (index len(clauses))."""
        found: list[tuple[int, Violation]] = []
        sentence_matches = _matches(rule, self.text, self.tokens)
        for ci, matches in self._clause_matches(rule, sentence_matches).items():
            view = self.view(ci)
            for s, e, cs, ce in matches:
                if rule.allow_negated and _reported(view, s, e, self.question):
                    continue
                if not (rule.allow_negated and _negated(view, s, e, self.carried(ci))):
                    found.append((ci, Violation(rule, self.clauses[ci].text, self.index, view.text[cs:ce])))
                    break
        for s, e, cs, ce in sentence_matches:
            if _inside(self.clauses, self.clause_starts, cs, ce):
                continue
            self._whole = self._whole or _View(self.text, self.tokens)
            if not (rule.allow_negated and _negated(self._whole, s, e, False)):
                violation = Violation(rule, self.text.strip(), self.index, self.text[cs:ce])
                found.append((len(self.clauses), violation))
                break
        return sorted(found, key=lambda item: item[0])

    def _clause_matches(
        self, rule: ForbiddenRule, sentence_matches: Sequence[_Match]
    ) -> dict[int, list[_Match]]:
        """Each clause's own matches. A phrase in an aligned sentence: the sentence's matches, placed.
        A pattern: tried on the clauses a sentence-level match touches (a clause with a match of its own
        is always among them: the leftmost match the sentence search finds lies in it or runs into it),
        or on every clause for an anchored pattern."""
        if rule.phrase is not None and self.aligned:
            return _by_clause(sentence_matches, self.clauses, self.clause_starts, self.firsts)
        if rule.phrase is not None or (rule.pattern is not None and _anchored(rule.pattern)):
            touched: Iterable[int] = range(len(self.clauses))
        else:
            touched = sorted(
                {
                    ci
                    for _, _, cs, ce in sentence_matches
                    for ci in range(
                        max(0, bisect_right(self.clause_starts, cs) - 1),
                        max(0, bisect_right(self.clause_starts, max(cs, ce - 1)) - 1) + 1,
                    )
                }
            )
        per_clause = {}
        for ci in touched:
            view = self.view(ci)
            if matches := _matches(rule, view.text, view.tokens):
                per_clause[ci] = matches
        return per_clause


def _matches(rule: ForbiddenRule, text: str, tokens: Sequence[Token]) -> list[_Match]:
    """(start token, end token, start char, end char) of each match of the rule in text."""
    if rule.phrase is not None:
        return [(s, e, tokens[s].start, tokens[e - 1].end) for s, e in find_phrase(tokens, rule.phrase)]
    found = []
    ends = [t.end for t in tokens]
    starts = [t.start for t in tokens]
    for m in compile_pattern(rule.pattern or "").finditer(text):
        if m.end() == m.start():
            continue
        s = bisect_right(ends, m.start())  # the first token ending after the match starts
        e = bisect_left(starts, m.end())  # the first token starting at or after the match's end
        found.append((s, max(s, e), m.start(), m.end()))
    return found


def _anchored(pattern: str) -> bool:
    return any(anchor in pattern for anchor in ("^", "$", "\\A", "\\z"))


class _Candidates:
    """Which sentences can hold a match of a rule: a cheap test that never drops a real match.

    A phrase matches in a sentence only where it matches in the whole answer, so a sentence without the
    first word of any whole-answer match is skipped, unless a conjunction is glued to the word before
    it ("reinstall-if"): there a clause cut splits a compound, and a clause can match what the whole
    answer does not. A pattern is searched once over all the sentences joined, and every sentence a
    match starts in or reaches is kept: a sentence with a match of its own is always among them (the
    search's leftmost match either lies in it or runs into it). This keeps the reader linear in
    practice: only sentences that mention forbidden words are read clause by clause.
    """

    def __init__(
        self,
        rules: Sequence[ForbiddenRule],
        sentences: Sequence[str],
        tokens: Sequence[Token] | None,
        units: Callable[[], Sequence[Unit]] | None,
    ) -> None:
        self.first_words: list[frozenset[str] | None] = []
        self.pattern_hits: list[frozenset[int] | None] = []
        joined: tuple[str, list[int]] | None = None
        for rule in rules:
            words = hits = None
            if rule.phrase is not None and tokens is not None:
                spans = find_phrase(tokens, rule.phrase, units)
                words = frozenset(tokens[s].text for s, _ in spans)
            elif rule.pattern is not None and not _anchored(rule.pattern):
                joined = joined or _joined(sentences)
                hits = _sentences_hit(compile_pattern(rule.pattern), *joined)
            self.first_words.append(words)
            self.pattern_hits.append(hits)
        self.split_compounds: frozenset[int] = frozenset()
        if any(words is not None for words in self.first_words):
            joined = joined or _joined(sentences)
            self.split_compounds = _sentences_hit(_glued_conjunction(), *joined)

    def possible(self, index: int, sentence_index: int, folded: str) -> bool:
        words, hits = self.first_words[index], self.pattern_hits[index]
        if words is not None:
            return sentence_index in self.split_compounds or any(word in folded for word in words)
        if hits is not None:
            return sentence_index in hits
        return True


@lru_cache(maxsize=1)
def _glued_conjunction() -> Pattern:
    """A clause-cutting word joined to the word before it by a hyphen, an apostrophe or the "re " prefix
    rule (`match.tokenize`): the only places where a clause cut falls inside a compound or a word."""
    words = [
        "and",
        "or",
        "so",
        "in",
        "as",
        "but",
        "if",
        "unless",
        "then",
        "because",
        "otherwise",
        "although",
        "though",
        "however",
        "whereas",
        "whenever",
        "when",
        "once",
        "until",
        "till",
        "before",
        "after",
        "while",
        "since",
        "whether",
        "instead",
        "rather",
    ]
    return compile_pattern(r"(?:[-_'\x{2010}\x{2011}\x{2019}]|\bre\s)(?:" + "|".join(words) + r")\b")


def _joined(sentences: Sequence[str]) -> tuple[str, list[int]]:
    starts, position = [], 0
    for sentence in sentences:
        starts.append(position)
        position += len(sentence) + 1
    return "\n".join(sentences), starts


def _sentences_hit(pattern: Pattern, text: str, starts: Sequence[int]) -> frozenset[int]:
    hit: set[int] = set()
    for m in pattern.finditer(text):
        first = bisect_right(starts, m.start()) - 1
        last = bisect_right(starts, max(m.start(), m.end() - 1)) - 1
        hit.update(range(first, last + 1))
    return frozenset(hit)


def find_violations(
    text: str,
    rules: Sequence[ForbiddenRule],
    sentences: Sequence[str] | None = None,
    tokens: Sequence[Token] | None = None,
    units: Callable[[], Sequence[Unit]] | None = None,
) -> list[Violation]:
    """Every (rule, clause) where the answer states forbidden content that is not negated.

    At most one violation per rule and clause, ordered by sentence, clause, then rule order. `sentences`
    and `tokens` (and `units`), when given, are the answer's sentences and the words of its visible text
    (`AnswerView`); without `tokens` every sentence is read.
    """
    if sentences is None:
        plain = normalize(text)
        sentences, tokens = sentences_of_plain(plain), tokenize(plain)
    candidates = _Candidates(rules, sentences, tokens, units)
    found: list[tuple[int, int, int, Violation]] = []
    for si, sentence in enumerate(sentences):
        folded = sentence.casefold().replace("\u2019", "'")
        wanted = [ri for ri in range(len(rules)) if candidates.possible(ri, si, folded)]
        if wanted:
            reading = _SentenceReading(sentence, si)
            for ri in wanted:
                found.extend((si, ci, ri, violation) for ci, violation in reading.violations(rules[ri]))
    found.sort(key=lambda item: item[:3])
    return [violation for *_, violation in found]


def _by_clause(
    matches: Sequence[_Match], clauses: Sequence[Clause], starts: Sequence[int], firsts: Sequence[int]
) -> dict[int, list[_Match]]:
    """Sentence-level matches that lie inside one clause, in that clause's own offsets."""
    per_clause: dict[int, list[_Match]] = {}
    for s, e, cs, ce in matches:
        index = bisect_right(starts, cs) - 1
        if index >= 0 and clauses[index].start <= cs and ce <= clauses[index].end:
            shift, first = clauses[index].start, firsts[index]
            per_clause.setdefault(index, []).append((s - first, e - first, cs - shift, ce - shift))
    return per_clause


def _inside(clauses: Sequence[Clause], starts: Sequence[int], start: int, end: int) -> bool:
    """Does one clause hold [start, end)? Clauses are in order and do not overlap."""
    index = bisect_right(starts, start) - 1
    return index >= 0 and clauses[index].start <= start and end <= clauses[index].end
