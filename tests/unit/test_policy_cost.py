"""The policy reader's work grows linearly with the answer, on the shapes that once made it quadratic.

Work is counted, not timed (`tests.unit.work_count`): the lines the reader executes, and the characters
its regular expressions are handed (a search of a sentence's whole head for every match runs in C, where
no line is counted). Four times the answer must cost about four times both; a reader that rescans a
clause for every match costs sixteen times.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from itertools import pairwise
from re import _constants, _parser  # type: ignore[attr-defined]  # the parser's width of a pattern
from types import ModuleType
from typing import Any

import pytest

from assay_runner.text import (
    clauses,
    head_words,
    key_objects,
    key_pronouns,
    key_words,
    polarity,
    policy_reader,
    sentences,
)
from assay_runner.text.advice import (
    around,
    cues,
    facts,
    frames,
    outcome,
    predicates,
    reports,
    rhetoric,
    stance_cues,
    stance_reading,
    subjects,
    weighing,
)
from assay_runner.text.negation import (
    carried,
    clause_view,
    clause_wide,
    reporting,
    reversing,
    scope,
    vocabulary,
)
from assay_runner.text.negation import cues as negation_cues
from assay_runner.text.negation import predicates as negation_predicates
from assay_runner.text.policy_reader import ForbiddenRule, find_violations
from assay_runner.text.sentence_reading import languages, match_outcome, placing, reading
from assay_runner.text.stance import (
    avoiding,
    consequences,
    double_negation,
    headings,
    judgements,
    questions,
    replies,
    voices,
    words,
)
from tests.unit.work_count import CharactersScanned, lines_run

ADVICE = (cues, outcome, stance_cues, stance_reading, facts, rhetoric, frames, subjects, reports, predicates)
ADVICE += (around, weighing)
STANCE = (words, replies, questions, voices, double_negation, headings, avoiding, consequences, judgements)
NEGATION = (
    vocabulary,
    negation_cues,
    clause_view,
    reversing,
    clause_wide,
    negation_predicates,
    scope,
    carried,
    reporting,
)
CLAUSE_READER = (*NEGATION, clauses, sentences, policy_reader)
SENTENCE_READING = (placing, languages, match_outcome, reading)
READER = (
    *CLAUSE_READER,
    *SENTENCE_READING,
    key_objects,
    key_words,
    key_pronouns,
    *ADVICE,
    polarity,
    head_words,
    *STANCE,
)
RULES = [
    ForbiddenRule(phrase="reinstall"),
    ForbiddenRule(pattern=r"\bby friday\b"),
    ForbiddenRule(phrase="uninstall the printer driver"),  # its object is read on its own (`key_objects`)
]

SHAPES: dict[str, Callable[[int], str]] = {
    # one clause, thousands of matches, each asking about the words between the negation and itself
    "a run-on restarted after a negation": lambda n: "It won't open " + "reinstall " * n,
    "matches far from their negation": lambda n: "Do not " + "the " * n + "reinstall " * n,
    "a long list under without": lambda n: "Clear it without " + "reinstalling or " * n,
    "why-not with a long gap": lambda n: "I don't see why " + "x " * n + "you shouldn't " + "reinstall " * n,
    "a negated verb far before the matches": lambda n: "Don't " + "x " * n + "not reinstall " * n,
    "many short sentences": lambda n: "Do not reinstall it, we can't promise it by Friday. " * n,
    "one long comma list": lambda n: "Do not reinstall, " + "reset, " * n + "or reinstall it.",
    # issue 42: each match's head read whole by the structural shapes (0.9 s at 16 KB, 14 s at 64 KB)
    "a negated list said again and again": lambda n: "do not reinstall or " * n,
    "why-not far before a negated list": lambda n: "Why not " + "do not reinstall or " * n,
    "a mistake not to, again and again": lambda n: "It would be a mistake not to reinstall or " * n,
    # issue 42, round eight: a phrase's object advised without its verb, in many clauses and in one
    "an object advised again and again": lambda n: "You should remove the printer driver, " * n,
    "an object many times in one clause": lambda n: "Remove " + "the printer driver " * n,
    "an object far after its head": lambda n: "Remove " + "x " * n + "the printer driver " * n,
    # issue 42, round nine: a phrase's words in one clause out of order (`key_words`)
    "words out of order again and again": lambda n: "The printer driver x x uninstall. " * n,
    "words out of order far apart": lambda n: "The printer driver " + "x " * n + "uninstall",
    "an object many times before its verb": lambda n: "The printer driver " * n + "uninstall",
    # issue 42, session eight: a phrase's verb with a pronoun for its object named before (`key_pronouns`)
    "a pronoun's verb again and again": lambda n: "The printer driver is old. Uninstall it. " * n,
    "a pronoun's verb in many clauses": lambda n: "The printer driver is old, " + "if so uninstall it, " * n,
    "a pronoun's verb cleared again and again": lambda n: "The printer driver: if you uninstall it, x. " * n,
}


def read(text: str, modules: tuple[ModuleType, ...] = READER) -> int:
    return lines_run(lambda: find_violations(text, RULES), modules)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_clause_reader_alone_does_about_four_times_the_work_on_every_shape(shape: str) -> None:
    """What this test held before the structural modules were counted: the clause reader itself stays
    linear on every shape."""
    small, large = (read(SHAPES[shape](n), CLAUSE_READER) for n in (300, 1200))
    assert large / small < 5.0, f"{shape}: {small} -> {large} lines, a ratio of {large / small:.1f}"


@pytest.mark.parametrize("shape", list(SHAPES))
def test_four_times_the_answer_is_about_four_times_the_work(shape: str) -> None:
    small, large = (read(SHAPES[shape](n)) for n in (300, 1200))
    assert large / small < 5.0, f"{shape}: {small} -> {large} lines, a ratio of {large / small:.1f}"


@pytest.mark.parametrize("shape", list(SHAPES))
def test_four_times_the_answer_hands_its_patterns_about_four_times_the_text(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned = CharactersScanned.patching(monkeypatch, READER)

    def characters(n: int) -> int:
        before = scanned.count
        find_violations(SHAPES[shape](n), RULES)
        return scanned.count - before

    small, large = characters(300), characters(1200)
    assert scanned.patterns > 20  # the shapes' own patterns are counted, not only the sentence splitter's
    assert large / small < 5.0, f"{shape}: {small} -> {large} characters, a ratio of {large / small:.1f}"


@pytest.mark.parametrize(
    "cue",
    [rhetoric._RHETORICAL_BEFORE, reports._ACCORDING_BEFORE, voices._NEW_CLAUSE_BEFORE],
    ids=["rhetorical", "according", "new-clause"],
)
def test_a_cue_is_no_wider_than_the_window_it_is_looked_for_in(cue: head_words.CuePrefix) -> None:
    """`text.head_words.CuePrefix` is exact only if no match of its pattern is wider than its window."""
    widest = _parser.parse(cue.pattern.pattern, cue.pattern.flags).getwidth()[1]
    assert widest <= cue.width


@pytest.mark.parametrize("cue", [frames._FRAME_WORDS, reports._REPORTING_WORDS], ids=["frame", "reporting"])
def test_a_cue_spans_no_more_words_than_the_window_it_is_looked_for_in(cue: head_words.CueWords) -> None:
    """`text.head_words.ClauseWords.holds` is exact only if a match of the cue spans at most `cue.words`
    words: it holds at most `cue.words - 1` spaces, each a literal space of the pattern (nothing else in
    it may match one)."""
    assert _spaces(_parser.parse(cue.pattern.pattern, cue.pattern.flags)) < cue.words


def _spaces(items: list[tuple[object, object]]) -> float:
    """The most spaces a match of the parsed items may hold (infinite if a class or repeat allows any)."""
    return sum(_spaces_of(op, av) for op, av in items)


def _spaces_of(op: object, av: Any) -> float:
    c = _constants
    if op is c.LITERAL:
        return 1 if chr(av).isspace() else 0
    if op is c.AT:
        return 0  # \b, ^: no character
    if op is c.CATEGORY:
        return 0 if av in (c.CATEGORY_WORD, c.CATEGORY_DIGIT) else math.inf
    if op is c.IN:
        return max((_spaces_of(*item) for item in av), default=0)
    if op is c.RANGE:
        return 1 if any(chr(code).isspace() for code in range(av[0], av[1] + 1)) else 0
    if op is c.SUBPATTERN:
        return _spaces(av[-1])
    if op is c.BRANCH:
        return max(_spaces(branch) for branch in av[1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT):
        inner = _spaces(av[2])
        return 0 if inner == 0 else inner * (math.inf if av[1] is c.MAXREPEAT else av[1])
    return math.inf  # NOT_LITERAL, ANY, NEGATE, lookarounds: not read as bounded


@pytest.mark.parametrize(
    "text",
    [
        "Some forums suggest that you reinstall it, reinstall it, reinstall it.",
        "You " + "x " * 40 + "should reinstall reinstall reinstall",
        "It is best to " + "reinstall " * 20,
        "The fix is " + "x " * 10 + "reinstall and reinstall",
    ],
)
def test_a_clause_cue_is_found_as_a_search_of_the_words_before_finds_it(text: str) -> None:
    words = head_words.words_of(text)
    for body in (0, 1):
        clause = head_words.ClauseWords(words, body)
        for start in range(len(words) + 1):
            for cue in (frames._FRAME_WORDS, reports._REPORTING_WORDS):
                plain = cue.pattern.search(" ".join(words[body:start])) is not None
                assert clause.before(start).holds(cue) == plain, (text, body, start, cue)


@pytest.mark.parametrize(
    "text",
    [
        "Why not reinstall it?",
        "Why not clear the cache first, then, if that fails, reinstall it?",
        "Why " + "x " * 60 + "not reinstall it?",
        "Pourquoi ne pas " + "y " * 100 + "reinstall it?",
        "Have you tried to reinstall? Straße, Why not reinstall?",  # folding moves offsets: the plain path
        "How about" + " reinstall" * 50,
    ],
)
def test_a_cue_before_a_match_is_found_as_a_search_of_the_whole_head_finds_it(text: str) -> None:
    cue = rhetoric._RHETORICAL_BEFORE
    for found in re.finditer("reinstall", text):
        at = found.start()
        plain = rhetoric._RHETORICAL_ADVICE.search(text[:at].casefold().replace("\u2019", "'")) is not None
        assert cue.before(text, at) == plain, (text, at)


@pytest.mark.parametrize(
    "text",
    [
        "Roll back the firmware, some say, or reinstall it; others recommend it: reinstall, they say.",
        "You mentioned that the forum suggests you reinstall, which we cannot recommend - reinstall later.",
        "Un collègue dit, vous devriez réinstaller, et selon le forum il faut réinstaller.",
        "Ein Kollege meint, Sie sollten neu installieren; wir raten davon ab.",
    ],
)
def test_what_weigh_reads_once_per_clause_or_sentence_is_what_it_read_for_each_match(text: str) -> None:
    """The readings kept per sentence or clause answer as reading the match's head or rest afresh did."""
    words = head_words.words_of(text)
    clause = head_words.ClauseWords(words, 1)
    for start in range(len(words) + 1):
        for language in ("en", "fr", "de"):
            plain = voices.reports(" ".join(words[1:start]), language)
            assert voices.reports_before(clause.before(start), language) == plain, (text, start)
    for at in range(len(text)):
        cuts = [0, *(m.start() for m in around._CLAUSE_CUT.finditer(text)), len(text)]
        whole = next((text[:a] + " " + text[b:] for a, b in pairwise(cuts) if a <= at < b), text)
        assert around._other_clauses(text, at) == whole, (text, at)
        later = [p.strip().casefold() for p in re.split(r"[,;:]", text[at:])[1:]]
        assert reports._reported_later(text, at) == any(reports._LATER_REPORT.search(p) for p in later)
        head = head_words.words_of(text[:at])
        assert head_words.head_of(text, at).first(4) == head[:4], (text, at)
