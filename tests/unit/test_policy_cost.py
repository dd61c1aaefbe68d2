"""The policy reader's work grows linearly with the answer, on the shapes that once made it quadratic.

Work is counted, not timed (`tests.unit.work_count`): the lines the reader executes. Four times the
answer must cost about four times the lines; a reader that rescans a clause for every match costs
sixteen times.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from assay_runner.text import clauses, negation, policy_reader, sentences
from assay_runner.text.policy_reader import ForbiddenRule, find_violations
from tests.unit.work_count import lines_run

READER = (negation, clauses, sentences, policy_reader)
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
}


def read(text: str) -> int:
    return lines_run(lambda: find_violations(text, RULES), READER)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_four_times_the_answer_is_about_four_times_the_work(shape: str) -> None:
    small, large = (read(SHAPES[shape](n)) for n in (300, 1200))
    assert large / small < 5.0, f"{shape}: {small} -> {large} lines, a ratio of {large / small:.1f}"
