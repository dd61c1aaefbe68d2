"""The policy reader's shortcuts find exactly what reading every sentence and every clause finds.

The reader skips sentences that cannot hold a match, takes a sentence's words from the answer's words,
matches a phrase once per sentence and places the matches in clauses, tries a pattern only on the
clauses a sentence-level match touches, and builds a clause's view only when it needs it. Each test
compares the reader with its shortcuts against the same reader with every shortcut turned off, on
generated answers full of negations, cuts and compounds.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay_runner.text import policy_reader
from assay_runner.text.match import tokenize
from assay_runner.text.policy_reader import ForbiddenRule, Violation, find_violations
from assay_runner.text.view import AnswerView

RULES = [
    ForbiddenRule(phrase="reinstall"),
    ForbiddenRule(phrase="disable the firewall"),
    ForbiddenRule(phrase="re-set"),
    ForbiddenRule(phrase="factory reset", allow_negated=False),
    ForbiddenRule(pattern=r"\bby (monday|friday)\b"),
    ForbiddenRule(pattern=r"reinstall[^.]*, then"),
    ForbiddenRule(pattern=r"^please"),
    ForbiddenRule(pattern=r"(?:by )?friday|\bq?"),  # also matches the empty text at every word's edge
]
WORDS = [
    "reinstall",
    "reinstalling",
    "re-install",
    "re",
    "install",
    "reset",
    "re-set",
    "factory-reset",
    "factory",
    "reset",
    "disable",
    "the",
    "firewall",
    "by",
    "friday",
    "monday",
    "do",
    "not",
    "don't",
    "never",
    "no",
    "without",
    "instead",
    "of",
    "rather",
    "than",
    "avoid",
    "if",
    "unless",
    "then",
    "but",
    "and",
    "or",
    "so",
    "because",
    "when",
    "please",
    "just",
    "it",
    "you",
    "we",
    "app",
    "cache",
    "what-if",
    "it'if",
    "customer",
    "already",
    "reinstalled",
    "is",
    "necessary",
    "unnecessary",
    "hard",
    "nothing",
    "short",
    "why",
    "shouldn't",
]
SEPARATORS = [
    " ",
    " ",
    " ",
    "-",
    "'",
    ", ",
    "; ",
    ": ",
    " - ",
    " -- ",
    ". ",
    "? ",
    "! ",
    " (",
    ") ",
    "\n",
    "\n\n- ",
    "\n\nAvoid:\n- ",
    "\n> ",
    " | ",
    "\n\n```\n",
    "\n# ",
]


@st.composite
def answers(draw: st.DrawFn) -> str:
    pieces = []
    for _ in range(draw(st.integers(1, 30))):
        pieces.append(draw(st.sampled_from(WORDS)))
        pieces.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(pieces)


def _read(answer: str) -> list[Violation]:
    return find_violations(AnswerView(answer), RULES)


def _exhaustive(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every sentence read for every rule (a sentence said twice read twice), each sentence's words read
    # again from its own text, every clause matched on its own.
    monkeypatch.setattr(
        policy_reader._Candidates, "hits", lambda self, _: dict.fromkeys(range(len(self.sentences)))
    )
    monkeypatch.setattr(policy_reader, "sentence_words", lambda sentence, _: (tokenize(sentence.text), 0))
    monkeypatch.setattr(policy_reader._SentenceReading, "_aligned", lambda _: False)
    monkeypatch.setattr(policy_reader, "_anchored", lambda _: True)
    monkeypatch.setattr(policy_reader, "_reading_key", lambda *_: object())  # no sentence read once for two


def _assert_read_as_in_full(answer: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        _exhaustive(patch)
        expected = _read(answer)
    assert _read(answer) == expected


@settings(max_examples=400, deadline=None)
@given(answers())
def test_the_shortcuts_find_what_reading_everything_finds(answer: str) -> None:
    _assert_read_as_in_full(answer)


def test_the_exhaustive_reading_is_really_exhaustive(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison above means something only if turning the shortcuts off changes the path taken.
    calls: list[int] = []
    original = policy_reader._matches

    def counting(*args: object) -> object:
        calls.append(1)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(policy_reader, "_matches", counting)
    answer = "Clear the cache, sign in again, then restart. Do not reinstall, reset or wait."
    _read(answer)
    fast = len(calls)
    calls.clear()
    _exhaustive(monkeypatch)
    _read(answer)
    assert len(calls) > fast


@settings(max_examples=200, deadline=None)
@given(answers(), st.sampled_from(["\n\n", " ", "\n", "\n\n- ", "\n\nDo not:\n\n- "]), st.integers(2, 4))
def test_a_sentence_said_again_reads_as_it_did_the_first_time(answer: str, between: str, times: int) -> None:
    # Repeated text is read once per distinct sentence (a memo keyed by what a reading depends on); the
    # memo is exact only if nothing else (where the sentence stands, what came before) changes a reading.
    _assert_read_as_in_full(between.join([answer] * times))


def test_a_sentence_said_again_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    readings: list[int] = []
    original = policy_reader._SentenceReading.__init__

    def counting(self: object, *args: object) -> None:
        readings.append(1)
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(policy_reader._SentenceReading, "__init__", counting)
    violations = _read("Do not reinstall the app. Reinstall the app.\n\n" * 50)
    assert len(readings) == 2
    assert [v.sentence_index for v in violations] == list(range(1, 100, 2))  # each at its own place
