"""Text fields of the suite format that more than one of its models takes (models, conversation)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

_HAS_WORD = re.compile(r"[^\W_]")


def _has_words(text: str) -> str:
    """A phrase must have a word to look for ("!!!" has none and could never be matched)."""
    if not _HAS_WORD.search(text):
        raise ValueError(f"{text!r} has no words to look for")
    return text


Phrase = Annotated[str, AfterValidator(_has_words)]
"""A phrase looked for in an answer or a turn: it has at least one letter or digit."""
