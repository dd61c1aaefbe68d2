"""The languages the reader reads, and those a suite may declare (identified, not read)."""

from __future__ import annotations


def _set_of(words: str) -> frozenset[str]:
    return frozenset(words.split())


Language = str


LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl", "pl")
"""The languages the reader reads (ISO 639-1)."""


IDENTIFIED = _set_of(
    "af ar az be bg bn bs ca cs cy da de el en eo es et eu fa fi fr ga gu he hi hr hu hy id is it ja ka "
    "kk ko la lg lt lv mi mk mn mr ms nb nl nn pa pl pt ro ru sk sl sn so sq sr st sv sw ta te th tl tn "
    "tr ts uk ur vi xh yo zh zu"
)
"""The languages a suite may declare (`lingua`'s, ISO 639-1): those outside `LANGUAGES` are identified,
so their sentences can be handed over, but not read."""
