"""Sentences placed in the visible text: the reader takes their words from the answer's words."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay_runner.text.markdown import normalize
from assay_runner.text.match import tokenize
from assay_runner.text.sentences import Sentence, sentences_of_plain

PIECES = [
    "Reinstall it",
    "do not",
    "e.g.",
    "1.5 GB",
    "re",
    "install",
    "co-op",
    "Avoid:",
    "Do not:",
    "**Steps**",
    "[link](https://x/KB-1)",
    "<!-- c -->",
    "~~gone~~",
    "`code`",
]
SEPARATORS = [" ", ". ", "! ", "? ", "\n", "\n\n", "\n- ", "\n\n1. ", "\n> ", "\n# ", "  \n", "\n\n```\n"]
SEPARATORS += ["\n\n| a | b |\n|---|---|\n| ", " | ", "\nTitle\n---\n", "\n    "]


@st.composite
def answers(draw: st.DrawFn) -> str:
    count = draw(st.integers(1, 25))
    return "".join(draw(st.sampled_from(PIECES)) + draw(st.sampled_from(SEPARATORS)) for _ in range(count))


@settings(max_examples=300, deadline=None)
@given(answers())
def test_a_placed_sentence_is_a_slice_of_the_visible_text_with_the_same_words(answer: str) -> None:
    plain = normalize(answer)
    tokens = tokenize(plain)
    for sentence in sentences_of_plain(plain):
        if not sentence.placed:
            assert sentence.added > 0  # only the reader's own words unplace a sentence of these answers
            continue
        assert sentence.base is not None
        piece = plain[sentence.base : sentence.base + len(sentence.text)]
        assert piece.replace("\n", " ") == sentence.text
        own = tokenize(sentence.text)
        shared = [t for t in tokens if sentence.base <= t.start < sentence.base + len(sentence.text)]
        assert [(t.text, t.start + sentence.base, t.end + sentence.base) for t in own] == [
            (t.text, t.start, t.end) for t in shared
        ]


def test_items_under_a_negating_intro_are_read_with_do_not_in_front() -> None:
    sentences = sentences_of_plain(normalize("Avoid these:\n\n- reinstalling. Then wait\n- resetting"))
    assert sentences == [
        Sentence("Avoid these:", 0),
        Sentence("Do not reinstalling.", 16 - 7, 7),
        Sentence("Then wait", 30, 0),
        Sentence("Do not resetting", 42 - 7, 7),
    ]
    assert [s.placed for s in sentences] == [True, False, True, False]
