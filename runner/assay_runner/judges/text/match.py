"""Text-matching primitives for the deterministic judges: normalise, tokenise, stem, match phrases.

Reading model
-------------
An answer is markdown written by an agent. The judges compare it with short phrases from the answer
key ("30 days", "two-factor authentication", "Settings > Billing", "reinstall"). Matching is on *words*:

1. `normalize` turns the markdown into plain text with the same punctuation and line structure:
   Unicode NFKC, curly quotes and apostrophes made straight, link and image syntax reduced to their
   text (link targets dropped), inline code backticks, emphasis markers and HTML tags removed,
   strike-through text and HTML comments dropped (retracted or invisible text is not part of the answer),
   code-fence lines blanked. Line-leading bullets are kept (the policy reader uses them).
2. `tokenize` finds the words: letters and digits, with apostrophes inside contractions kept
   (don't, doesn't, won't, can't, it's) and digits joined across ``.``, ``,`` and ``:`` (1.5, 10:30,
   1,000). Each token knows whether a single hyphen (or underscore) attaches it to the previous word,
   which makes hyphenated compounds visible to the matcher.
3. `stem` maps a word to a light inflection key (see its docstring), so "disabling" meets "disable".
4. `find_phrase` / `mentions`: the phrase's words, in order and contiguous, with equal stems.

Hyphenated compounds (the rule)
-------------------------------
A match must cover whole hyphenated compounds: it may not begin or end inside one. So the forbidden word
"install" does not match "pre-install", "reset" does not match "reset-proof", and "factor authentication"
does not match "two-factor authentication". A phrase written with a hyphen matches both spellings
("two-factor" matches "two-factor" and "two factor"), and so does a phrase written with a space
("two factor" matches "two-factor"). A compound is also compared with its parts written together, so
"re-install" meets "reinstall" and "e-mail" meets "email" (but "pre-install" never meets "install").
Limit: a phrase that mixes a written-together compound with a split one ("two-factor e-mail" against
"two factor email") is not matched.

Other documented limits
-----------------------
- Punctuation and symbols between words are ignored: "Settings > Billing" also matches
  "Settings, Billing" or "Settings → Billing" (but not "Settings and Billing": every word counts).
- No synonyms, abbreviations or number words: "2FA" is not "two-factor", "thirty" is not "30".
- Only inflection is tolerated, not derivation: "reinstallation" does not match "reinstall".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from assay_runner.judges.text.homoglyphs import HOMOGLYPHS

__all__ = [
    "Token",
    "find_phrase",
    "mentions",
    "normalize",
    "phrase_tokens",
    "stem",
    "tokenize",
]

# --------------------------------------------------------------------------------------------- normalise

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


# The markup patterns run on RE2 (google-re2), which matches in time linear in the text: Python's `re`
# backtracks, and `<!--` repeated without a closing `-->` (or `~~` without its pair) made it quadratic.
# Compiled on first use, so that loading a suite (before the first agent starts) does not import RE2.
class _Markup:
    def __init__(self) -> None:
        import re2

        self.html_comment = re2.compile(r"(?s)<!--.*?-->")
        self.strike = re2.compile(r"~~[^\n]*?~~")
        self.fence_line = re2.compile(r"(?m)^[ \t]*(?:```|~~~).*$")
        self.autolink = re2.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
        self.html_tag = re2.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>")
        # Block-level tags separate words; inline ones (<em>, <b>, <span>...) do not: "re<em>install</em>"
        # is rendered as one word, and so is a word with an HTML comment inside it.
        self.block_tag = re2.compile(
            r"(?i)</?(?:br|p|div|li|ul|ol|h[1-6]|tr|td|th|table|thead|tbody|hr|blockquote|pre|dd|dt|dl|section)"
            r"(?:\s[^<>\n]*)?/?>"
        )
        self.escape = re2.compile(r"\\([\\`*_{}\[\]()#+\-.!>~|])")


@lru_cache(maxsize=1)
def _markup() -> _Markup:
    return _Markup()


_BULLET_PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)*[*+-][ \t]+")
# Underscores used as emphasis sit at a word edge; an underscore inside a word (snake_case) stays.
_EDGE_UNDERSCORE = re.compile(r"(?<![^\W_])_+|_+(?![^\W_])")
_MAX_PASSES = 8
_BRACKET = re.compile(r"[\[\]\n]")


def normalize(text: str) -> str:
    """Plain text of a markdown answer, punctuation and line breaks kept. Idempotent up to 8 levels of
    markup that only appears once other markup is removed (`<[a](b)>`); every pass is linear."""
    text = unicodedata.normalize("NFKC", text).translate(_CHAR_MAP)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Removing one marker can complete another ("<[x](y)b>"), so repeat until stable (bounded).
    for _ in range(_MAX_PASSES):
        plain = _normalize_once(text)
        if plain == text:
            break
        text = plain
    return text


def _normalize_once(text: str) -> str:
    markup = _markup()
    text = markup.html_comment.sub("", text)
    text = markup.fence_line.sub("", text)
    text = markup.strike.sub(" ", text)
    text = strip_links(text)
    text = markup.autolink.sub(r"\1", text)
    text = markup.block_tag.sub(" ", text)
    text = markup.html_tag.sub("", text)
    text = markup.escape.sub(r"\1", text)
    text = text.replace("`", "")
    return "\n".join(_strip_emphasis(line) for line in text.split("\n"))


def strip_links(text: str) -> str:
    """`[text](target)` -> text, `![alt](src)` -> alt, `[text][ref]` -> text, nested ones included, in
    one pass linear in the text (a stack of open brackets; the closing `)` / `]` found by a forward
    search whose result is reused, so no position is scanned twice). Links do not cross lines."""
    cut: list[tuple[int, int]] = []  # spans to remove
    opened: list[int] = []
    next_found = {")": -1, "]": -1, "\n": -1}

    def find(char: str, start: int) -> int:
        if next_found[char] < start:
            found = text.find(char, start)
            next_found[char] = found if found >= 0 else len(text) + 1
        return next_found[char]

    n = len(text)
    resume = 0
    for bracket in _BRACKET.finditer(text):
        i = bracket.start()
        if i < resume:
            continue  # inside a link target already cut
        char = text[i]
        if char == "\n":
            opened.clear()
        elif char == "[":
            opened.append(i)
        elif opened:
            start = opened.pop()
            after = text[i + 1] if i + 1 < n else ""
            if after and after in "([":
                close = find(")" if after == "(" else "]", i + 2)
                if close <= n and close < find("\n", i + 2) and (after == "(" or close > i + 2):
                    image = start > 0 and text[start - 1] == "!"
                    cut.append((start - 1 if image else start, start + 1))
                    cut.append((i, close + 1))
                    resume = close + 1
    if not cut:
        return text
    cut.sort()
    pieces, position = [], 0
    for begin, end in cut:
        pieces.append(text[position:begin])
        position = max(position, end)
    pieces.append(text[position:])
    return "".join(pieces)


def _strip_emphasis(line: str) -> str:
    """Drop `*` and edge `_` emphasis markers, keeping a line-leading `* ` bullet."""
    bullet = _BULLET_PREFIX.match(line)
    head, rest = (line[: bullet.end()], line[bullet.end() :]) if bullet else ("", line)
    return head + _EDGE_UNDERSCORE.sub("", rest.replace("*", ""))


# ---------------------------------------------------------------------------------------------- tokenise

_WORD = r"[^\W_]+"
# Apostrophes join contractions; `.`, `,` and `:` join only digits (1.5, 10:30, 1,000).
_TOKEN = re.compile(rf"{_WORD}(?:(?:['\u2019]|(?<=\d)[.,:](?=\d)){_WORD})*")
_JOINERS = frozenset("-_\u2010\u2011")
_PREFIXES = frozenset({"re"})


class Token(NamedTuple):
    """One word of a text, with its offsets in the string it was read from."""

    text: str
    """The word, case-folded, with a straight apostrophe."""
    stem: str
    """Its inflection key (`stem`)."""
    start: int
    end: int
    joined: bool = False
    """True when a single hyphen or underscore attaches it to the previous word (a compound part)."""


def tokenize(text: str) -> list[Token]:
    """The words of `text` in order. Offsets index `text` itself (no normalisation happens here)."""
    tokens: list[Token] = []
    for m in _TOKEN.finditer(text):
        word = m.group().casefold().replace("\u2019", "'")
        gap = m.start() - tokens[-1].end if tokens else 0
        # "re install" is "re-install": a prefix split off by a space is still part of the word.
        joined = gap == 1 and (
            text[m.start() - 1] in _JOINERS or (tokens[-1].text in _PREFIXES and text[m.start() - 1] == " ")
        )
        tokens.append(Token(word, stem(word), m.start(), m.end(), joined))
    return tokens


# ------------------------------------------------------------------------------------------------- stem

_VOWELS = frozenset("aeiouy")
_IRREGULAR = {"using": "use", "used": "use"}
# Words that only look inflected; cutting them would conflate them with unrelated words.
_KEEP = frozenset(
    {
        "during",
        "evening",
        "morning",
        "nothing",
        "something",
        "anything",
        "everything",
        "ceiling",
        "news",
        "series",
        "species",
        "always",
        "perhaps",
        "across",
        "whereas",
    }
)
# A doubled final consonant left by -ing/-ed is undoubled (resetting -> resett -> reset), except these.
_NO_UNDOUBLE = frozenset("aeiouylszf")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light inflection key for an English word: same key for the forms of one verb or noun.

    Rules, in order: contractions are kept whole (don't, won't); a possessive 's is dropped; words with
    digits and a few look-alikes (during, evening, news) are kept, and so are words of three letters or
    fewer except for the y rule below (try, tries, tried, trying all give "tri"); a plural -s / -ies is
    removed (not after -ss, -us, -is); then -ing / -ed is removed when at least
    three letters with a vowel remain (never from -eed: need, speed, proceed); finally a consonant + y
    becomes i, a final e is dropped (on four letters or more) and a doubled consonant left by -ing/-ed is
    undoubled. So disable, disables, disabled and disabling all give "disabl"; reinstall/reinstalled/
    reinstalling give "reinstall"; reset/resets/resetting give "reset"; batteries/battery give "batteri".

    The key is not a dictionary word and is only compared with other keys. Documented limits: no
    irregular verbs beyond use/using/used (ran is not run), no derivation (installation is not install),
    "agreed" does not meet "agree" (the -eed rule), and words that merely end in -ing/-ed are cut like
    inflected ones ("embed" gives "emb" while "embedded" gives "embed").
    """
    w = word.casefold().replace("\u2019", "'")
    if "'" in w:
        return w[:-2] if w.endswith("'s") and len(w) > 2 else w
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if w in _KEEP or not w.isalpha():
        return w
    if len(w) <= 3:
        return _tidy(w, cut=False)  # only try/tries/tried: consonant + y becomes i
    w = _strip_plural(w)
    w, cut = _strip_verb_suffix(w)
    return _tidy(w, cut)


def _strip_plural(w: str) -> str:
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "i"
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _strip_verb_suffix(w: str) -> tuple[str, bool]:
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "i", True
    if w.endswith("eed"):
        return w, False
    for suffix in ("ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and any(c in _VOWELS for c in base):
            return base, True
    return w, False


def _tidy(w: str, cut: bool) -> str:
    if len(w) >= 3 and w[-1] == "y" and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    elif len(w) >= 4 and w[-1] == "e":
        w = w[:-1]
    if cut and len(w) >= 4 and w[-1] == w[-2] and w[-1] not in _NO_UNDOUBLE:
        w = w[:-1]
    return w


# ------------------------------------------------------------------------------------------------ match


@lru_cache(maxsize=2048)
def phrase_tokens(phrase: str) -> tuple[Token, ...]:
    """The normalised words of a key phrase. Raises ValueError when it has none (a configuration error)."""
    tokens = tuple(tokenize(normalize(phrase)))
    if not tokens:
        raise ValueError(f"phrase {phrase!r} has no words to match")
    return tokens


def find_phrase(tokens: Sequence[Token], phrase: str) -> list[tuple[int, int]]:
    """Where the phrase occurs in `tokens`, as sorted (start, end) token-index spans, end exclusive.

    Two readings are tried (see the module docstring): word by word with stems equal and the span on
    compound boundaries, and compound by compound with each compound's parts written together.
    """
    wanted = phrase_tokens(phrase)
    spans = set(_match_words(tokens, wanted))
    if _has_compound(tokens) or _has_compound(wanted):
        spans.update(_match_units(_units(tokens), _units(wanted)))
    return sorted(spans)


def mentions(text: str, phrase: str) -> bool:
    """Does the (markdown) text mention the phrase? Whole words, in order, tolerant of case, punctuation
    and simple inflection; see the module docstring for the hyphen rule."""
    return bool(find_phrase(tokenize(normalize(text)), phrase))


def _has_compound(tokens: Sequence[Token]) -> bool:
    return any(t.joined for t in tokens)


def _match_words(tokens: Sequence[Token], wanted: Sequence[Token]) -> list[tuple[int, int]]:
    n = len(wanted)
    first = wanted[0].stem
    spans = []
    for i in [i for i, token in enumerate(tokens) if token.stem == first]:
        if i + n > len(tokens):
            break
        starts_inside = tokens[i].joined
        ends_inside = i + n < len(tokens) and tokens[i + n].joined
        if starts_inside or ends_inside:
            continue
        if all(tokens[i + k].stem == wanted[k].stem for k in range(1, n)):
            spans.append((i, i + n))
    return spans


def _units(tokens: Sequence[Token]) -> list[tuple[str, int, int]]:
    """Compounds as single units: (stem of the parts written together, first token, end token)."""
    units: list[tuple[str, int, int]] = []
    i = 0
    while i < len(tokens):
        j = i + 1
        while j < len(tokens) and tokens[j].joined:
            j += 1
        key = tokens[i].stem if j == i + 1 else stem("".join(t.text for t in tokens[i:j]))
        units.append((key, i, j))
        i = j
    return units


def _match_units(
    units: Sequence[tuple[str, int, int]], wanted: Sequence[tuple[str, int, int]]
) -> list[tuple[int, int]]:
    n = len(wanted)
    return [
        (units[i][1], units[i + n - 1][2])
        for i in range(len(units) - n + 1)
        if all(units[i + k][0] == wanted[k][0] for k in range(n))
    ]
