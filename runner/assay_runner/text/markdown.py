"""An answer read the way its renderer shows it: one CommonMark parse, the visible text and the headings.

The parser is pulldown-cmark (the CommonMark parser behind rustdoc and mdBook) through `pyromark`, with
GitHub's tables and strike-through. It parses 1 MB of markdown in milliseconds; markdown-it-py, measured
here, took one to five seconds per megabyte, over the whole time budget of the text judges.

What a reader sees (`Rendered.plain`), after `fold` (NFKC, homoglyphs, quotes):

- the text of paragraphs, headings, list items, table cells, block quotes and code (inline and blocks);
- link and image syntax reduced to the link text and the image's alt text: a link *target* is not
  visible, so an id or a word only in a URL is not part of the answer (an autolink `<https://...>` shows
  its URL, so it is);
- no emphasis markers, backslash escapes resolved, entities decoded (`&amp;` is "&");
- struck-out text (`~~...~~`) dropped, and HTML comments and tags dropped: inline tags (`<em>`, `<span>`)
  join the words around them, as a browser shows "re<em>install</em>" as one word; block-level tags
  (`<p>`, `<br>`, `<li>`) separate words;
- the content of HTML a browser hides or strikes out dropped too (`<del>`, `<s>`, `<strike>`, `<script>`,
  `<style>`, `<template>`, an element with a `hidden` attribute or `display: none` / `visibility: hidden`
  in its style), across blocks as a browser nests it, and an HTML block's comment left open hides the rest
  of that block: a citation or a fact hidden there is not shown to the reader, so it earns nothing. Which
  of these a renderer hides is its own choice (a sanitizer may strip `hidden` or `style` and show the
  text), so the policy reader reads them shown (`render(..., reveal_html=True)`, `AnswerView.revealed`):
  forbidden advice hidden there still counts.

The block structure stays in the text, one block per line group, so the policy reader can cut sentences
without reading markdown again: a heading is written "# text", a list item "- text" (or "3. text"),
a table row "| a | b |" (an HTML table's rows too), a block in a block quote "> text", each line of a code
block and each block-level HTML element is a block of its own, and blocks are separated by a blank line.
The text is a rendering for the judges, not markdown to be parsed again.

Headings (`Rendered.headings`, for the format judge), normalised and case-folded:

- ATX (`## Steps`) and setext (a line underlined with `===` / `---`) headings, as the parser finds them
  (so never inside a code block);
- HTML headings (`<h2>Steps</h2>`);
- a line of a top-level paragraph that is only bold text (`**Steps**`, `**Steps:**`), or a bold label
  that starts such a line and ends in a colon before more text (`**Summary:** the sync stops ...`,
  `**Summary**: ...`), a common model style.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from assay_runner.text.fold import fold

__all__ = ["Rendered", "normalize", "render"]

# Marks a table row inside an HTML block until the block's lines are emitted (a private-use character,
# never in an answer's visible text: `fold` keeps it, so it is removed where it is read).
TABLE_ROW_MARK = "\ue000"


@dataclass(frozen=True)
class Rendered:
    plain: str
    """The visible text, folded, block structure kept (see the module docstring)."""
    headings: tuple[str, ...]
    """Heading texts, folded, case-folded, spaces collapsed, a trailing colon dropped."""
    hid_html: bool = False
    """Whether the answer has HTML a browser hides (dropped from `plain` unless `reveal_html`)."""


def normalize(markdown: str, *, reveal_html: bool = False) -> str:
    """The visible text of a markdown answer (`render(markdown).plain`)."""
    return render(markdown, reveal_html=reveal_html).plain


def render(markdown: str, *, reveal_html: bool = False) -> Rendered:
    """Parse once and return what a reader sees; linear in the answer's length. `reveal_html`: the text
    of HTML a browser hides is read as shown (the policy reader's reading)."""
    import pyromark

    reader = _Reader(reveal_html)
    feed = reader.feed
    # Folded before the parse too, so that markup written with look-alike characters is read as markup;
    # and after it, for what entities (`&#1110;`) decode to.
    for event in pyromark.events(fold(markdown), options=_options()):
        feed(event)
    headings = tuple(h for h in map(_label, reader.headings) if h)
    return Rendered(_trim_lines(fold(reader.text())), headings, reader.hiding.found)


def _trim_lines(text: str) -> str:
    # Spaces at either end of a line are not visible (an empty list item's marker, a comment dropped at
    # the start of a line); without them a sentence is one slice of the text (`sentences.Sentence`).
    return "\n".join(line.strip() for line in text.strip("\n").split("\n"))


@lru_cache(maxsize=1)
def _options() -> Any:
    import pyromark

    return pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_STRIKETHROUGH


def _label(text: str) -> str:
    return " ".join(fold(text).casefold().split()).rstrip(":").strip()


# HTML inside the answer, read with RE2 (linear: an unclosed `<!--` repeated cannot make it quadratic).
# Compiled on first use, so that loading a suite does not import RE2.
class _Html:
    def __init__(self) -> None:
        import re2

        self.comment = re2.compile(r"(?s)<!--.*?-->")
        self.heading = re2.compile(r"(?is)<h[1-6](?:\s[^>]*)?>(.*?)</h[1-6]\s*>")
        self.block_tag = re2.compile(
            r"(?i)</?(?:br|p|div|li|ul|ol|h[1-6]|tr|td|th|table|thead|tbody|tfoot|caption|hr|blockquote|pre|dd|dt"
            r"|dl|section|article|aside|header|footer|nav|main|figure|figcaption|details|summary|address"
            r"|fieldset|legend|form|center|menu|dialog)"
            r"(?:\s[^<>]*)?/?>"
        )
        self.tag = re2.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
        self.row = re2.compile(r"(?is)<tr(?:\s[^>]*)?>(.*?)</tr\s*>")
        self.cell = re2.compile(r"(?is)<t[dh](?:\s[^>]*)?>(.*?)</t[dh]\s*>")
        self.heading_open = re2.compile(r"(?i)^<h[1-6](?:\s[^>]*)?>$")
        self.heading_close = re2.compile(r"(?i)^</h[1-6]\s*>$")
        self.tag_name = re2.compile(r"^<(/?)([A-Za-z][A-Za-z0-9-]*)")
        self.hides = re2.compile(
            r"(?is)\shidden(?:[\s=/>]|$)|display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)"
        )

    def shown(self, raw: str, hiding: _Hiding) -> str:
        """A block of raw HTML without its comments and what hidden elements hold (`hiding`: the
        answer's, which such an element opened in an earlier block may still be in); tags kept."""
        text = self.comment.sub("", raw)
        if "<!--" in text:  # a comment left open: the rest of the block is in it
            hiding.found = True
            text = text if hiding.reveal else text.split("<!--", 1)[0]
        shown: list[str] = []
        end = 0
        for tag in self.tag.finditer(text):
            if not hiding.hidden:
                shown.append(text[end : tag.start()])
            was_hidden = hiding.tag(tag.group(0))
            if not was_hidden and not hiding.hidden:
                shown.append(tag.group(0))
            end = tag.end()
        if not hiding.hidden:
            shown.append(text[end:])
        return "".join(shown)

    def visible(self, text: str) -> str:
        """The text of a block of raw HTML as `shown` leaves it: tags dropped, block tags as line breaks,
        and a table's rows as the rows of a markdown table ("| a | b |"), so cells keep their column."""
        if "<tr" in text.lower():
            text = self.row.sub(self._row, text)
        text = self.block_tag.sub("\n", text)
        return html.unescape(self.tag.sub("", text))

    def _row(self, row: Any) -> str:
        cells = [
            " ".join(self.tag.sub(" ", cell.group(1)).split()) for cell in self.cell.finditer(row.group(1))
        ]
        return "\n" + TABLE_ROW_MARK + "| " + " | ".join(cells) + " |\n"

    def is_block_tag(self, tag: str) -> bool:
        return self.block_tag.fullmatch(tag.strip()) is not None


@lru_cache(maxsize=1)
def _html() -> _Html:
    return _Html()


HIDING_ELEMENTS = frozenset({"del", "s", "strike", "script", "style", "template"})
"""Elements whose content a browser does not show, or shows struck out (as `~~...~~`, also dropped)."""
VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
"""Elements with no content and no closing tag: `<input hidden>` hides nothing after it."""


class _Hiding:
    """Whether the text being read is inside an HTML element a browser hides: the outermost such element,
    by name, and how deep its own name is nested in it (`<span hidden><span>a</span> b</span>` hides b)."""

    def __init__(self, reveal: bool = False) -> None:
        self.element: str | None = None
        self.depth = 0
        self.reveal = reveal  # note what hides, hide nothing
        self.found = False  # some HTML hides its text

    @property
    def hidden(self) -> bool:
        return self.element is not None

    def tag(self, tag: str) -> bool:
        """Read one tag; whether the text was hidden before it."""
        was_hidden = self.hidden
        reader = _html()
        found = reader.tag_name.match(tag)
        if found is None:
            return was_hidden
        closing, name = found.group(1) == "/", found.group(2).lower()
        opening = not closing and not tag.rstrip().endswith("/>") and name not in VOID_ELEMENTS
        if self.element is not None:
            if name == self.element:
                self.depth += 1 if opening else -1 if closing else 0
                if self.depth == 0:
                    self.element = None
        elif opening and (name in HIDING_ELEMENTS or reader.hides.search(tag) is not None):
            self.found = True
            if not self.reveal:
                self.element, self.depth = name, 1
        return was_hidden


class _Reader:
    """Turns the parser's events into the visible text and the headings (one pass, no lookahead beyond
    the event after a bold run)."""

    def __init__(self, reveal_html: bool = False) -> None:
        self.parts: list[str] = []
        self.headings: list[str] = []
        self.lists: list[int | None] = []  # per open list: the next item's number, None when bulleted
        self.containers = 0  # open list items, block quotes and tables: bold labels count only outside
        self.hidden = 0  # open strike-through spans: their text is not shown
        self.hiding = _Hiding(reveal_html)  # an open HTML element a browser hides: its text is not shown
        self.capture: list[str] | None = None  # the text of the heading (or bold run) being read
        self.html_block: list[str] | None = None
        self.html_heading: list[str] | None = None
        self.line_start = False  # at the start of a line of a top-level paragraph
        self.bold: list[str] | None = None  # a bold run that started a line, until the next event decides
        self.pending_bold: str | None = None
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.code = False  # inside a code block
        self.newlines = 0  # how many line breaks end the output so far
        self.quotes = 0  # open block quotes: their lines start with "> " (the sentence reader marks them)

    # ------------------------------------------------------------------ output

    def emit(self, text: str) -> None:
        if self.hidden or self.hiding.hidden or not text:
            return
        if self.cell is not None:
            self.cell.append(text)
        else:
            self._append(text)
        if self.capture is not None:
            self.capture.append(text)
        if self.bold is not None:
            self.bold.append(text)
        if self.html_heading is not None:
            self.html_heading.append(text)

    def _append(self, text: str) -> None:
        # A block in a block quote starts with "> " (its later lines do not: a sentence must stay one
        # slice of the text).
        if self.quotes and text[0] != "\n" and (not self.parts or self.newlines >= 2):
            self.parts.append("> ")
        self.parts.append(text)
        if text[-1] != "\n":
            self.newlines = 0
            return
        kept = len(text.rstrip("\n"))
        self.newlines = self.newlines + len(text) if kept == 0 else len(text) - kept

    def end_line(self) -> None:
        if self.parts and self.newlines == 0:
            self._append("\n")

    def end_block(self) -> None:
        if self.parts and self.newlines < 2:
            self._append("\n" * (2 - self.newlines))

    def text(self) -> str:
        return "".join(self.parts)

    # ------------------------------------------------------------------ events

    def feed(self, event: Any) -> None:
        if self.pending_bold is not None:
            self._decide_bold(event)
        if event.__class__ is str:
            self._marker(event)
            return
        ((kind, value),) = event.items()
        if kind == "Text":
            if self.code:
                self._code_text(value)
            else:
                self.emit(value)
                if not self.line_start or value.strip():
                    self.line_start = False
        elif kind == "Code":
            self.emit(value)
            self.line_start = False
        elif kind == "Start":
            self._start(value)
        elif kind == "End":
            self._end(value)
        elif kind == "Html":
            if self.html_block is not None:
                self.html_block.append(value)
        elif kind == "InlineHtml":
            self._inline_html(value)
        # TaskListMarker, footnotes and math are not enabled or carry no visible words.

    def _marker(self, event: str) -> None:
        if event in {"SoftBreak", "HardBreak"}:
            if self.cell is not None or self.capture is not None:
                self.emit(" ")
            else:
                self.emit("\n")
            self.line_start = self.containers == 0 and self.capture is None
        elif event == "Rule":
            self.end_block()

    def _code_text(self, value: str) -> None:
        # Code blocks: each line is a block of its own for the sentence reader.
        for line in value.split("\n"):
            if line.strip():
                self.emit(line.strip())
                self.end_block()

    def _start(self, tag: Any) -> None:
        name, value = (tag, None) if isinstance(tag, str) else next(iter(tag.items()))
        if name == "Paragraph":
            self.line_start = self.containers == 0
        elif name == "Heading":
            self.end_block()
            level = value["level"] if isinstance(value, dict) else "H1"
            self.emit("#" * int(level[1]) + " ")
            self.capture = []
        elif name == "List":
            self.end_line()
            self.lists.append(value)
            self.containers += 1
        elif name == "Item":
            self.end_line()
            number = self.lists[-1] if self.lists else None
            self.emit("- " if number is None else f"{number}. ")
            if number is not None:
                self.lists[-1] = number + 1
        elif name in {"BlockQuote", "Table"}:
            self.end_block()
            self.containers += 1
            self.quotes += name == "BlockQuote"
        elif name in {"TableHead", "TableRow"}:
            self.row = []
        elif name == "TableCell":
            self.cell = []
        elif name == "CodeBlock":
            self.end_block()
            self.code = True
        elif name == "HtmlBlock":
            self.end_block()
            self.html_block = []
        elif name == "Strikethrough":
            self.hidden += 1
        elif name == "Strong" and self.line_start and self.capture is None and not self.hidden:
            self.bold = []

    def _end(self, tag: Any) -> None:
        name = tag if isinstance(tag, str) else next(iter(tag))
        if name in {"Paragraph", "CodeBlock"}:
            self.end_block()
            self.line_start = self.code = False
        elif name == "Heading":
            if self.capture is not None:
                self.headings.append("".join(self.capture))
            self.capture = None
            self.end_block()
        elif name == "Item":
            self.end_line()
        elif name == "List":
            self.lists.pop()
            self.containers -= 1
            if not self.lists:
                self.end_block()
        elif name in {"BlockQuote", "Table"}:
            self.containers -= 1
            self.quotes -= name == "BlockQuote"
            self.end_block()
        elif name == "TableCell":
            cell, self.cell = self.cell or [], None
            if self.row is not None:
                self.row.append("".join(cell).strip())
        elif name in {"TableHead", "TableRow"}:
            self.emit("| " + " | ".join(self.row or []) + " |")
            self.end_line()
            self.row = None
        elif name == "HtmlBlock":
            raw = "".join(self.html_block or [])
            self.html_block = None
            reader = _html()
            shown = reader.shown(raw, self.hiding)
            self.headings.extend(reader.heading.findall(shown))
            for line in reader.visible(shown).split("\n"):
                if line.strip().startswith(TABLE_ROW_MARK):  # rows of one table stay together
                    self.emit(line.strip().removeprefix(TABLE_ROW_MARK))
                    self.end_line()
                elif line.strip():  # every other block-level element is a paragraph of its own
                    self.emit(line.strip())
                    self.end_block()
            self.end_block()
        elif name == "Strikethrough":
            self.hidden -= 1
            self.emit(" ")
        elif name == "Strong" and self.bold is not None:
            self.pending_bold, self.bold = "".join(self.bold), None

    def _inline_html(self, tag: str) -> None:
        reader = _html()
        if self.hiding.tag(tag) or self.hiding.hidden:
            return
        if reader.heading_open.match(tag):
            self.html_heading = []
        elif reader.heading_close.match(tag) and self.html_heading is not None:
            self.headings.append("".join(self.html_heading))
            self.html_heading = None
        if reader.is_block_tag(tag):
            self.emit(" ")

    def _decide_bold(self, event: Any) -> None:
        """A bold run at the start of a line is a heading when the line ends with it, when a colon
        follows it, or when it ends in a colon before more text."""
        label, self.pending_bold = self.pending_bold or "", None
        ends_line = event in ("SoftBreak", "HardBreak", {"End": "Paragraph"})
        text = event.get("Text", "") if isinstance(event, dict) else ""
        if ends_line or text.lstrip().startswith(":") or (label.rstrip().endswith(":") and text.strip()):
            self.headings.append(label)
