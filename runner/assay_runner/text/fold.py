"""Character folding: the same letters whatever code points a writer (or an evader) used.

`fold` is the character-level half of reading an answer, applied to the text a renderer shows
(`text.markdown`) and to the key's phrases, so both sides of a comparison are folded alike:

- Unicode NFKC (fullwidth "ＫＢ-１００３" is "KB-1003", ligatures are letters, superscripts digits);
- homoglyphs NFKC leaves alone (Cyrillic "а", Greek "ο") folded to the ASCII letter they render as
  (`text.homoglyphs`, generated from Unicode's confusables);
- curly quotes and apostrophes made straight, Unicode hyphens made "-";
- invisible characters (soft hyphen, zero-width space and joiners, BOM) removed, so a word cannot be
  hidden by splitting it with a character nobody sees; a no-break space becomes a space;
- line endings made "\\n".
"""

from __future__ import annotations

import unicodedata

from assay_runner.text.homoglyphs import HOMOGLYPHS

_CHAR_MAP = str.maketrans(
    {
        "\u2018": "'",  # left single quote
        "\u2019": "'",  # right single quote / typographic apostrophe
        "\u201a": "'",
        "\u201b": "'",
        "\u02bc": "'",  # modifier letter apostrophe
        "\u2032": "'",  # prime
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2212": "-",  # minus sign
        "\u00ad": None,  # soft hyphen: invisible, never a word boundary
        "\u200b": None,  # zero-width space
        "\u200c": None,
        "\u200d": None,
        "\ufeff": None,
        "\u2060": None,  # word joiner
        "\u00a0": " ",  # no-break space (NFKC leaves it a space-like character of its own)
    }
    | HOMOGLYPHS
)


def fold(text: str) -> str:
    """`text` with the characters above folded; idempotent, linear, no markup is interpreted."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.isascii():
        return text  # nothing to fold: the common case, and NFKC is the costly step
    # NFKC, then the map, then NFKC again: a homoglyph folded to "e" before a combining accent composes
    # only on the second NFKC, and without it a second `fold` would not be a no-op.
    text = unicodedata.normalize("NFKC", text).translate(_CHAR_MAP)
    return unicodedata.normalize("NFKC", text)
