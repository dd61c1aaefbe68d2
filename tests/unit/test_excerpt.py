"""The rule an article is read by: a contiguous excerpt of READ_EXCERPT_CHARS (normalised), or all of a
shorter article, in what reached the model."""

from __future__ import annotations

import random

from assay_runner.text.excerpt import READ_EXCERPT_CHARS, holds_excerpt, normalised

random.seed(7)
WORDS = ["export", "settings", "batch", "format", "owner", "invoice", "retry", "archive", "region", "quota"]
LONG = normalised(" ".join(random.choice(WORDS) + str(random.randint(0, 99)) for _ in range(400)))


def test_an_excerpt_long_enough_counts_anywhere_in_the_text() -> None:
    for start in (0, 1, 137, len(LONG) - READ_EXCERPT_CHARS):
        excerpt = LONG[start : start + READ_EXCERPT_CHARS]
        assert holds_excerpt(f"before|{excerpt}|after", LONG)
        assert not holds_excerpt(f"before|{excerpt[:-1]}|after", LONG)  # one character short


def test_a_short_article_must_be_shown_whole() -> None:
    article = normalised("# KB-1: Export\nOpen Settings > Export.\n")
    assert holds_excerpt("cat says: # KB-1: Export Open Settings > Export. (end)", article)
    assert not holds_excerpt("kb/KB-1.md:2:Open Settings > Export.", article)  # a search hit: one line
    assert not holds_excerpt("", article) and not holds_excerpt("38 kb/KB-1.md", article)
    assert not holds_excerpt("anything", "")  # an empty article is never read


def test_line_numbers_and_white_space_are_not_content() -> None:
    lines = ["# KB-1: Export", "", "Open  Settings > Export.", "Pick a format."]
    article = normalised("\n".join(lines))
    assert normalised("".join(f"{n:>6}→{line}\n" for n, line in enumerate(lines, 1))) == article
    assert normalised("".join(f"{n:05d}| {line}\n" for n, line in enumerate(lines, 1))) == article
    assert normalised("".join(f"{n}: {line}\n" for n, line in enumerate(lines, 1))) == article
    assert normalised("".join(f"{n:>6}\t{line}\n" for n, line in enumerate(lines, 1))) == article


def test_a_text_that_repeats_a_block_is_still_read_to_the_end() -> None:
    excerpt = LONG[:READ_EXCERPT_CHARS]
    noise = (LONG[: READ_EXCERPT_CHARS // 2] + " x ") * 200  # the first block, many times, never further
    assert not holds_excerpt(noise, LONG)
    assert holds_excerpt(noise + excerpt, LONG)  # past the first block's many copies, the others find it
