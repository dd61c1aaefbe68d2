"""Character folding: the same letters whatever code points a writer (or an evader) used.

`fold` is the character-level half of reading an answer, applied to the text a renderer shows
(`text.markdown`) and to the key's phrases, so both sides of a comparison are folded alike:

- Unicode NFKC (fullwidth "ＫＢ-１００３" is "KB-1003", ligatures are letters, superscripts digits);
- homoglyphs NFKC leaves alone (Cyrillic "а", Greek "ο") folded to the ASCII letter they render as
  (`text.homoglyphs`, generated from Unicode's confusables);
- curly quotes and apostrophes made straight, Unicode hyphens made "-";
- invisible characters removed, so a word cannot be hidden by splitting it with a character nobody
  sees: every default-ignorable code point of Unicode (soft hyphen, zero-width space and joiners, BOM,
  word joiner and invisible operators, bidirectional marks, embeddings, overrides and isolates, variation
  selectors, Hangul fillers, the tag characters U+E0000-E0FFF); a no-break space becomes a space;
- line endings made "\\n".

A right-to-left override (U+202E) does more than hide: it shows the letters after it in reverse, so
"\u202ellatsnier" is displayed as "reinstall". `displayed` gives that reading (each override's run
reversed, as a renderer shows it) for the readers that must see both (`view.AnswerView.displayed`).
"""

from __future__ import annotations

import re
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
        "\u00ab": '"',  # guillemets: French, Spanish, Italian, Polish quotation marks
        "\u00bb": '"',
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2212": "-",  # minus sign
        "\u00a0": " ",  # no-break space (NFKC leaves it a space-like character of its own)
    }
    | HOMOGLYPHS
)
# Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt), which renderers draw as
# nothing. NFKC keeps them, so they are removed before and after it.
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
_OVERRIDE, _POP = "\u202e", "\u202c"
# What ends an override's run: its pop (PDF), a pop of an isolate (PDI) or the end of the line.
_OVERRIDE_RUN = re.compile("\u202e([^\u202c\u2069\n]*)")


def fold(text: str) -> str:
    """`text` with the characters above folded; idempotent, linear, no markup is interpreted."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.isascii():
        return text  # nothing to fold: the common case, and NFKC is the costly step
    # NFKC, then the map, then NFKC again: a homoglyph folded to "e" before a combining accent composes
    # only on the second NFKC, and without it a second `fold` would not be a no-op.
    text = unicodedata.normalize("NFKC", _IGNORABLE.sub("", text)).translate(_CHAR_MAP)
    return _IGNORABLE.sub("", unicodedata.normalize("NFKC", text))


def displayed(text: str) -> str | None:
    """`text` with every right-to-left override's run reversed, as a renderer shows Latin letters after
    U+202E (until its pop, an isolate's pop or the end of the line); None when it has no override."""
    if _OVERRIDE not in text:
        return None
    return _OVERRIDE_RUN.sub(lambda m: m.group(1)[::-1], text)
