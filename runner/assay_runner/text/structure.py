"""The words the format judge counts (its headings come from the one parse, `text.markdown`).

Words are the tokens of the visible text (`text.match.tokenize`): letters and digits of any
script, hyphen-joined parts counted one by one ("set-up-and-run" is four words), and every Chinese or
Japanese character counted as a word (those scripts do not separate words with spaces), so a word limit
cannot be slipped under by joining words with hyphens or writing in a script without spaces.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.match import Token

_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana and ideographs
_CJK = re.compile(f"[{_CJK_CHARS}]|[^{_CJK_CHARS}]+")
_HAS_CJK = re.compile(f"[{_CJK_CHARS}]")


def count_words(tokens: Sequence[Token], text: str | None = None) -> int:
    """The words of `tokens`; `text`, when given, is the text they were read from (a text without
    Chinese or Japanese characters has one word per token)."""
    if text is not None and not _HAS_CJK.search(text):
        return len(tokens)
    count = 0
    for token in tokens:
        count += len(_CJK.findall(token.text)) if _HAS_CJK.search(token.text) else 1
    return count
