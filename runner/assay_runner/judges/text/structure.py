"""The document structure the format judge checks: headings as a renderer shows them, and words.

Headings, read line by line in one pass (linear in the answer):

- ATX (`## Steps`), setext (a line underlined with `===` or `---`) and HTML (`<h2>Steps</h2>`) headings;
- a line that is only bold text (`**Steps**`, `**Steps:**`), and a bold label that starts a line and
  ends in a colon, followed by text (`**Summary:** the sync stops because ...`), a common model style;
- nothing inside a fenced code block (```` ``` ```` or `~~~`): a heading in a code sample is code.

Words are the tokens of the normalised answer (`judges.text.match.tokenize`): letters and digits of any
script, hyphen-joined parts counted one by one ("set-up-and-run" is four words), and every Chinese or
Japanese character counted as a word (those scripts do not separate words with spaces).

Why not a Markdown parser: markdown-it-py is the renderer-faithful choice, but measured here it parses
1 MB of prose in about a second and 1 MB of list-heavy markdown in about five (block rules alone), over
the whole budget of the text judges; this reader covers the heading forms above in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import re2

from assay_runner.judges.text.match import Token, normalize

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(?P<text>.*?))?[ \t]*#*[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_BLOCK_START = re.compile(r"^ {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>|#|\||<)")
_BOLD_LINE = re.compile(r"^ {0,3}(?:\*\*|__)(?P<text>[^*_\n]+?)(?:\*\*|__):?[ \t]*$")
_BOLD_LABEL = re.compile(r"^ {0,3}(?:\*\*|__)(?P<text>[^*_\n]+?)(?::(?:\*\*|__)|(?:\*\*|__):)[ \t]*\S")
_HTML_HEADING = re2.compile(r"(?i)<h[1-6](?:\s[^>]*)?>(.*?)</h[1-6]\s*>")
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # kana and ideographs
_CJK = re.compile(f"[{_CJK_CHARS}]|[^{_CJK_CHARS}]+")
_HAS_CJK = re.compile(f"[{_CJK_CHARS}]")


def _label(text: str) -> str:
    return " ".join(normalize(text).casefold().split()).rstrip(":").strip()


def headings(markdown: str) -> list[str]:
    """Heading texts, normalised and case-folded, in order (see the module docstring)."""
    found: list[str] = []
    fence: str | None = None
    previous = ""  # the last line, when it could be the text of a setext heading
    for line in markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            continue
        if opener:
            fence, previous = opener.group(1), ""
            continue
        if previous and _SETEXT.match(line):
            found.append(_label(previous))
            previous = ""
            continue
        if atx := _ATX.match(line):
            found.append(_label(atx.group("text") or ""))
        elif bold := _BOLD_LINE.match(line) or _BOLD_LABEL.match(line):
            found.append(_label(bold.group("text")))
        found.extend(_label(text) for text in _HTML_HEADING.findall(line) if text.strip())
        paragraph_text = line.strip() and not _BLOCK_START.match(line) and not _ATX.match(line)
        previous = line if paragraph_text else ""
    return [heading for heading in found if heading]


def count_words(tokens: Sequence[Token]) -> int:
    count = 0
    for token in tokens:
        count += len(_CJK.findall(token.text)) if _HAS_CJK.search(token.text) else 1
    return count
