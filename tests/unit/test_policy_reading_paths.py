"""The fast policy reader finds exactly what the plain reference reader finds.

The fast reader (`text.policy_reader`) skips sentences that cannot hold a match, takes a sentence's
words from the answer's words, matches a phrase once per sentence and places the matches in clauses,
tries a pattern only on the clauses a sentence-level match touches, builds a clause's view only when it
needs it, and reads a sentence said again once. The reference reader (`text.reference_reader`) does
none of that: every sentence, every rule, every clause, words read again from each text. Each test
compares the two on generated answers full of negations, cuts, compounds and repeats.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from assay_runner.text.policy_reader import ForbiddenRule, Violation, find_violations, read_policy
from assay_runner.text.reference_reader import reference_violations
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
    *("reinstall", "reinstalling", "re-install", "re", "install", "reset", "re-set", "factory-reset"),
    *("factory", "reset", "disable", "the", "firewall", "by", "friday", "monday", "do", "not", "don't"),
    *("never", "no", "without", "instead", "of", "rather", "than", "avoid", "if", "unless", "then"),
    *("but", "and", "or", "so", "because", "when", "please", "just", "it", "you", "we", "app", "cache"),
    *("what-if", "it'if", "customer", "already", "reinstalled", "is", "necessary", "unnecessary"),
    *("hard", "nothing", "short", "why", "shouldn't", "r3install", "\u202ellatsnier", "rein\u202estall"),
]
SEPARATORS = [
    *(" ", " ", " ", "-", "'", ", ", "; ", ": ", " - ", " -- ", ". ", "? ", "! ", " (", ") ", "\n"),
    *("\n\n- ", "\n\nAvoid:\n- ", "\n> ", " | ", "\n\n```\n", "\n# "),
]


@st.composite
def answers(draw: st.DrawFn) -> str:
    pieces = []
    for _ in range(draw(st.integers(1, 30))):
        pieces.append(draw(st.sampled_from(WORDS)))
        pieces.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(pieces)


def _fast(answer: str) -> list[Violation]:
    return find_violations(AnswerView(answer), RULES)


@settings(max_examples=400, deadline=None)
@given(answers())
# A sentence in another language than the answer's (Portuguese here), with a conjunction glued to a
# word: its clause "the reinstall-" matches what the whole sentence does not.
@example("reinstall no no\n\n- the reinstall-but ")
def test_the_fast_reader_finds_what_the_reference_reader_finds(answer: str) -> None:
    assert _fast(answer) == reference_violations(answer, RULES)


@settings(max_examples=200, deadline=None)
@given(answers(), st.sampled_from(["\n\n", " ", "\n", "\n\n- ", "\n\nDo not:\n\n- "]), st.integers(2, 4))
def test_a_sentence_said_again_reads_as_it_did_the_first_time(answer: str, between: str, times: int) -> None:
    # Repeated text is read once per distinct sentence (a memo keyed by what a reading depends on); the
    # memo is exact only if nothing else (where the sentence stands, what came before) changes a reading.
    repeated = between.join([answer] * times)
    assert _fast(repeated) == reference_violations(repeated, RULES)


def test_a_sentence_said_again_is_read_once() -> None:
    answer = "Do not reinstall the app. Reinstall the app. Clear the cache.\n\n" * 50
    reading = read_policy(AnswerView(answer), [ForbiddenRule(phrase="reinstall")])
    assert reading.sentences_read == 2
    assert [v.sentence_index for v in reading.found] == list(range(1, 150, 3))  # each at its own place


def test_sentences_without_forbidden_words_are_not_read() -> None:
    # The comparison above means something only if the fast path really skips work the reference does.
    answer = "Clear the cache, sign in again, then restart. Do not reinstall, reset or wait. Sign in."
    assert read_policy(AnswerView(answer), [ForbiddenRule(phrase="reinstall")]).sentences_read == 1


def test_the_reference_reader_reads_the_documented_examples() -> None:
    # The reference is the specification: a few rows of docs/policy-judge.md, read by it directly.
    rules = [ForbiddenRule(phrase="reinstall")]
    assert reference_violations("If that does not help, reinstall it.", rules)
    assert not reference_violations("Do not reinstall the app.", rules)
    assert not reference_violations("Clear the cache instead of reinstalling.", rules)
    assert reference_violations("You cannot fix this without reinstalling.", rules)
