"""The policy reader's work grows linearly with the answer, on the shapes that once made it quadratic.

Work is counted, not timed (`tests.unit.work_count`): the lines the reader executes, and the characters
its regular expressions are handed (a search of a sentence's whole head for every match runs in C, where
no line is counted). Four times the answer must cost about four times both; a reader that rescans a
clause for every match costs sixteen times.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from re import _parser  # type: ignore[attr-defined]  # the parser's width of a pattern
from types import ModuleType

import pytest

from assay_runner.text import (
    advice,
    clauses,
    head_words,
    negation,
    polarity,
    policy_reader,
    sentence_reading,
    sentences,
)
from assay_runner.text.policy_reader import ForbiddenRule, find_violations
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

STANCE = (words, replies, questions, voices, double_negation, headings, avoiding, consequences, judgements)
CLAUSE_READER = (negation, clauses, sentences, policy_reader)
READER = (*CLAUSE_READER, sentence_reading, advice, polarity, head_words, *STANCE)
RULES = [ForbiddenRule(phrase="reinstall"), ForbiddenRule(pattern=r"\bby friday\b")]

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
}


def read(text: str, modules: tuple[ModuleType, ...] = READER) -> int:
    return lines_run(lambda: find_violations(text, RULES), modules)


# Still quadratic, found when the structural layer's modules were counted too: a long clause of matches
# that are not negated each weighs its whole head (`advice.weigh`'s searches of it, `advice._other_clauses`,
# `stance.reports`, `advice._is_subject`). Strict: the test says so when it is fixed.
_WEIGHED_WHOLE = pytest.mark.xfail(strict=True, reason="advice.weigh reads each match's whole head")
LINEAR = [pytest.param(s, marks=_WEIGHED_WHOLE) if s == "why-not with a long gap" else s for s in SHAPES]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_clause_reader_alone_does_about_four_times_the_work_on_every_shape(shape: str) -> None:
    """What this test held before the structural modules were counted, kept for the one shape still
    marked above: the clause reader itself stays linear there too."""
    small, large = (read(SHAPES[shape](n), CLAUSE_READER) for n in (300, 1200))
    assert large / small < 5.0, f"{shape}: {small} -> {large} lines, a ratio of {large / small:.1f}"


@pytest.mark.parametrize("shape", LINEAR)
def test_four_times_the_answer_is_about_four_times_the_work(shape: str) -> None:
    small, large = (read(SHAPES[shape](n)) for n in (300, 1200))
    assert large / small < 5.0, f"{shape}: {small} -> {large} lines, a ratio of {large / small:.1f}"


@pytest.mark.parametrize("shape", LINEAR)
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


def test_a_rhetorical_cue_is_no_wider_than_the_window_it_is_looked_for_in() -> None:
    """`text.head_words.CuePrefix` is exact only if no match of its pattern is wider than its window."""
    pattern = advice._RHETORICAL_ADVICE
    widest = _parser.parse(pattern.pattern, pattern.flags).getwidth()[1]
    assert widest <= advice._RHETORICAL_WIDTH


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
    cue = advice._RHETORICAL_BEFORE
    for found in re.finditer("reinstall", text):
        at = found.start()
        plain = advice._RHETORICAL_ADVICE.search(text[:at].casefold().replace("\u2019", "'")) is not None
        assert cue.before(text, at) == plain, (text, at)
