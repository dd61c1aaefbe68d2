"""text.markdown: an answer read the way a CommonMark renderer shows it (one parse, pulldown-cmark)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay_runner.text.markdown import normalize, render
from assay_runner.text.policy_reader import ForbiddenRule, read_policy
from assay_runner.text.view import AnswerView

VISIBLE = [
    pytest.param("See [the guide](https://x.example/KB-1003)", "See the guide", id="link-target-hidden"),
    pytest.param(
        "See [guide][kb]\n\n[kb]: https://x.example/KB-1003", "See guide", id="reference-definition"
    ),
    pytest.param("See <https://x.example/KB-1003>", "See https://x.example/KB-1003", id="autolink-shown"),
    pytest.param("![reset screen](reset.png)", "reset screen", id="image-alt"),
    pytest.param("a <!-- reinstall --> b", "a  b", id="inline-comment"),
    pytest.param("a <!-- hidden\nreinstall --> b", "a  b", id="comment-across-lines"),
    pytest.param("<!--\nreinstall\n-->\nclear the cache", "clear the cache", id="comment-block"),
    pytest.param("re<!-- x -->install", "reinstall", id="comment-inside-a-word"),
    pytest.param("re<em>install</em>", "reinstall", id="inline-tag-joins"),
    pytest.param("line<br>break", "line break", id="block-tag-separates"),
    pytest.param("<div>clear <b>the</b> cache</div>", "clear the cache", id="html-block-text"),
    pytest.param("re&#105;nstall", "reinstall", id="numeric-entity"),
    pytest.param("AT&amp;T", "AT&T", id="named-entity"),
    pytest.param("Do ~~not~~ reinstall", "Do   reinstall", id="strike-through"),
    pytest.param("\\*not emphasis\\*", "*not emphasis*", id="escapes-resolved"),
    pytest.param("_reinstall_ and snake_case", "reinstall and snake_case", id="emphasis-vs-inner-underscore"),
    pytest.param(
        "```sh\nlumen reinstall\nlumen reset\n```", "lumen reinstall\n\nlumen reset", id="fenced-code"
    ),
    pytest.param("    lumen reinstall", "lumen reinstall", id="indented-code"),
    pytest.param(
        "| step | do |\n|---|---|\n| 1 | reinstall |", "| step | do |\n| 1 | reinstall |", id="table"
    ),
    pytest.param("> Do not\n> reinstall", "> Do not\nreinstall", id="block-quote"),
    pytest.param("1. open\n2. close\n   - nested", "1. open\n2. close\n- nested", id="lists"),
    pytest.param("Title\n=====\ntext", "# Title\n\ntext", id="setext-heading"),
    pytest.param("\uff2b\uff22-\uff11\uff10\uff10\uff13 re\u0456nstall", "KB-1003 reinstall", id="folded"),
]


@pytest.mark.parametrize(("markdown", "plain"), VISIBLE)
def test_the_visible_text_is_what_a_renderer_shows(markdown: str, plain: str) -> None:
    assert normalize(markdown) == plain


# HTML whose content a browser does not show (or shows struck out, as `~~...~~`): an answer that hid the
# citation or the fact a judge looks for there would get credit for words its reader never sees.
HIDDEN_HTML = [
    pytest.param("See <del>KB-1003</del> it.", id="del"),
    pytest.param("See <s>KB-1003</s> it.", id="s"),
    pytest.param("See <strike>KB-1003</strike> it.", id="strike"),
    pytest.param("See <span hidden>KB-1003</span> it.", id="hidden-attribute"),
    pytest.param('See <span style="display: none">KB-1003</span> it.', id="display-none"),
    pytest.param("See <SPAN STYLE='visibility:hidden'>KB-1003</SPAN> it.", id="visibility-hidden"),
    pytest.param("See it.\n\n<script>// KB-1003</script>", id="script-block"),
    pytest.param("See it. <style>/* KB-1003 */</style>", id="style-inline"),
    pytest.param("See it.\n\n<template>\nKB-1003\n</template>", id="template-block"),
    pytest.param("See it.\n\n<div hidden>\n\nKB-1003 in a paragraph\n\n</div>", id="hidden-across-blocks"),
    pytest.param("See <span hidden><span>a</span> KB-1003</span> it.", id="nested-same-tag"),
    pytest.param("See it.\n\n<!-- never closed\nKB-1003", id="unclosed-comment-block"),
]


@pytest.mark.parametrize("markdown", HIDDEN_HTML)
def test_html_a_browser_does_not_show_is_not_read(markdown: str) -> None:
    plain = normalize(markdown)
    assert "KB-1003" not in plain
    assert "See" in plain and "it." in plain


def test_the_policy_reader_reads_hidden_html_as_shown() -> None:
    """A sanitizing renderer may drop `hidden` or `style` and show the text: forbidden advice hidden there
    still counts, while a citation hidden there earns nothing."""
    rules = [ForbiddenRule(phrase="reinstall the app")]
    for hiding in ("<span hidden>", '<span style="display:none">', "<del>"):
        closing = "</del>" if hiding == "<del>" else "</span>"
        answer = f"See KB-1003. {hiding}Reinstall the app.{closing}"
        assert "reinstall" not in AnswerView(answer).plain.lower()
        assert read_policy(answer, rules).found, answer
    assert AnswerView("See KB-1003.").revealed.reveal_html is False  # nothing hidden: one reading


def test_what_follows_hidden_html_is_read() -> None:
    plain = normalize("<span hidden>x</span> <del>y</del> KB-1 <br/> <img src=a> <span>KB-2</span>")
    assert plain.split() == ["KB-1", "KB-2"]
    assert render("<div hidden>\n<h2>Steps</h2>\n</div>\n\n<h2>Summary</h2>").headings == ("summary",)


HEADINGS = [
    pytest.param("## Summary\ntext\n\n### Steps ###", ["summary", "steps"], id="atx"),
    pytest.param("Summary\n=======\n\nSteps\n-----\n", ["summary", "steps"], id="setext"),
    pytest.param("<h2>Summary</h2>\n\ntext <h3>Steps</h3> more", ["summary", "steps"], id="html"),
    pytest.param("**Summary**\n\n**Steps:**\n\ntext", ["summary", "steps"], id="bold-lines"),
    pytest.param("**Summary:** it stops.\n**Steps**: clear it.", ["summary", "steps"], id="bold-labels"),
    pytest.param("**Do not** reinstall.\n\nSee **Steps** below.", [], id="bold-words-are-not-headings"),
    pytest.param("```\n## Summary\n```\n\n    ## Steps", [], id="code-is-not-a-heading"),
    pytest.param("- **Summary:** x\n\n> **Steps**", [], id="bold-in-lists-and-quotes"),
    pytest.param("## [Summary](https://x.example) ~~old~~", ["summary"], id="heading-text-as-shown"),
    pytest.param("<!-- <h2>Summary</h2> -->\n\ntext", [], id="commented-out"),
]


@pytest.mark.parametrize(("markdown", "headings"), HEADINGS)
def test_headings_are_the_ones_a_renderer_shows(markdown: str, headings: list[str]) -> None:
    assert list(render(markdown).headings) == headings


def test_the_view_parses_an_answer_once_for_text_and_headings() -> None:
    view = AnswerView("## Steps\nDo not [reinstall](https://x.example/reset).")
    assert view.plain == "## Steps\n\nDo not reinstall."
    assert view.headings == ["steps"]
    assert view.rendered is view.rendered  # computed once, shared by every judge of the cell


# A document built from visible words and hidden parts (link targets, comments, struck-out text): the
# rendering shows every visible word in order and none of the hidden ones, whatever the arrangement.
# (One arrangement is left out on purpose: a line that starts with "<!--" opens an HTML block, and a
# renderer shows the rest of that line raw, link syntax and target included.)
_WORD = st.sampled_from(["clear", "the", "cache", "sign", "in", "again", "KB-1003", "reset"])
_HIDDEN = "zzhidden"


@st.composite
def _documents(draw: st.DrawFn) -> tuple[str, list[str]]:
    pieces, visible = [], []
    for _ in range(draw(st.integers(1, 12))):
        word = draw(_WORD)
        form = draw(st.sampled_from(["plain", "link", "bold", "code", "comment", "strike", "tag", "break"]))
        if form == "comment":
            # After a word: a line that starts with "<!--" is an HTML block, shown raw past the comment.
            visible.append(word)
            pieces.append(f"{word}<!-- {_HIDDEN} -->")
            continue
        if form == "strike":
            pieces.append(f"~~{_HIDDEN}~~")
            continue
        visible.append(word)
        pieces.append(
            {
                "plain": word,
                "link": f"[{word}](https://x.example/{_HIDDEN})",
                "bold": f"**{word}**",
                "code": f"`{word}`",
                "tag": f"<span title='{_HIDDEN}'>{word}</span>",
                "break": f"{word}\n",
            }[form]
        )
    return " ".join(pieces), visible


@given(_documents())
def test_hidden_parts_never_show_and_visible_words_stay_in_order(document: tuple[str, list[str]]) -> None:
    markdown, visible = document
    plain = normalize(markdown)
    assert _HIDDEN not in plain
    position = 0
    for word in visible:
        found = plain.find(word, position)
        assert found >= 0, (markdown, plain, word)
        position = found + len(word)
