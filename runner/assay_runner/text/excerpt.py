"""Whether a text holds an excerpt of an article: how the metering proxy's record says an article was read.

An article counts as read when a tool result that reached the model holds a contiguous excerpt of it at
least `READ_EXCERPT_CHARS` characters long — or the whole article, when it is shorter — compared after
both are `normalised`: the line numbers tools put before each line removed (Claude Code's `     1→`,
OpenCode's `00001| ` or `1: `, `cat -n`'s `     1\t`), and every run of white space made one space. So a
partial read (`head -n 20`, a Read with a limit) counts when it showed enough of the article; a read that
showed nothing (`head -c 0`, a Read past the end), a size (`wc -c`) or a search hit (one line) does not; and
however the command was worded (`cat kb/*.md`, `cd kb && cat X.md`) only what it showed matters.
"""

from __future__ import annotations

import re

READ_EXCERPT_CHARS = 400
"""A read must show this many contiguous characters of an article (normalised), or all of a shorter one."""
MAX_MATCHES_PER_BLOCK = 64
"""Occurrences of one block of the article followed up (a text that repeats a line thousands of times)."""

_LINE_NUMBER = re.compile(r"^[ \t]*\d+(?:→|\t|\| ?|: )", re.MULTILINE)
_SPACE = re.compile(r"\s+")


def normalised(text: str) -> str:
    """`text` without line-number prefixes, its white space runs made single spaces, stripped."""
    return _SPACE.sub(" ", _LINE_NUMBER.sub("", text)).strip()


def needed(article: str) -> int:
    """How many contiguous characters of the (normalised) article a read must show."""
    return min(len(article), READ_EXCERPT_CHARS)


def holds_excerpt(text: str, article: str) -> bool:
    """Whether normalised `text` holds a contiguous excerpt of normalised `article` of `needed` characters.
    An empty article is never read.

    Any excerpt that long covers one of the article's blocks of half that length starting at a multiple of
    it: each block found in the text is followed out on both sides (by halving, slices compared whole)."""
    need = needed(article)
    if need == 0:
        return False
    block = max(1, need // 2)
    for start in range(0, len(article) - block + 1, block):
        piece = article[start : start + block]
        found = text.find(piece)
        matches = 0
        while found >= 0 and matches < MAX_MATCHES_PER_BLOCK:
            matches += 1
            left = _before(article, start, text, found)
            right = _after(article, start + block, text, found + block)
            if left + block + right >= need:
                return True
            found = text.find(piece, found + 1)
    return False


def _before(article: str, start: int, text: str, at: int) -> int:
    """How many characters before `article[start]` and `text[at]` agree (halving, slices compared whole)."""
    low, high = 0, min(start, at)
    while low < high:
        middle = (low + high + 1) // 2
        if article[start - middle : start] == text[at - middle : at]:
            low = middle
        else:
            high = middle - 1
    return low


def _after(article: str, start: int, text: str, at: int) -> int:
    """How many characters from `article[start]` and `text[at]` on agree."""
    low, high = 0, min(len(article) - start, len(text) - at)
    while low < high:
        middle = (low + high + 1) // 2
        if article[start : start + middle] == text[at : at + middle]:
            low = middle
        else:
            high = middle - 1
    return low
