"""One reading of an answer, built once and shared by every text judge.

`answer_view(answer)` is cached by the answer's text, so the judges of one cell (policy, must_mention,
kb_citation, format, abstention) normalise, tokenise and cut the answer into sentences once, not once
each. Every part is computed on first use and is linear in the answer's length.

- `plain`: what a reader sees (`text.markdown`: one CommonMark parse; link targets, HTML, comments
  and struck-out text dropped; NFKC and homoglyphs folded).
- `language`: en, fr, es or de (`text.language`), guessed from `plain`.
- `tokens`: the words of `plain`, with that language's inflection keys.
- `words`: `tokens` indexed for phrase search, shared by every phrase of every judge.
- `sentences`: the policy reader's sentences (`text.sentences`), each placed in `plain`.
- `displayed`: the answer as a right-to-left override shows it, when it has one.
- `revealed`: the answer with the text of HTML a browser hides read as shown, for the policy reader
  (a sanitizing renderer may show it): itself when it has no such HTML.
- `headings`: the headings a renderer shows (from the same parse); `word_count`: the words the format
  judge counts (`text.structure`).
"""

from __future__ import annotations

from functools import cached_property, lru_cache

from assay_runner.text.fold import displayed
from assay_runner.text.language import detect
from assay_runner.text.markdown import Rendered, render
from assay_runner.text.match import TokenColumns, Words, token_columns
from assay_runner.text.sentences import Sentence, sentences_of_plain


class AnswerView:
    def __init__(self, raw: str, *, reveal_html: bool = False) -> None:
        self.raw = raw
        self.reveal_html = reveal_html

    @cached_property
    def rendered(self) -> Rendered:
        return render(self.raw, reveal_html=self.reveal_html)

    @cached_property
    def revealed(self) -> AnswerView:
        """This answer with hidden HTML's text read as shown (`text.markdown`): what the policy reader
        reads, so that forbidden advice hidden from one renderer and shown by another still counts."""
        if self.reveal_html or not self.rendered.hid_html:
            return self
        return AnswerView(self.raw, reveal_html=True)

    @cached_property
    def plain(self) -> str:
        return self.rendered.plain

    @cached_property
    def lowered(self) -> str:
        """`plain` case-folded with whitespace runs made single spaces (phrase search by substring)."""
        return " ".join(self.plain.casefold().split())

    @cached_property
    def language(self) -> str:
        """The answer's language (`text.language.detect`): its words' inflection keys are that
        language's, and so are the key phrases' when they are looked up in it."""
        return detect(self.plain)

    @cached_property
    def tokens(self) -> TokenColumns:
        return token_columns(self.plain, self.language)

    @cached_property
    def words(self) -> Words:
        """`tokens` indexed for phrase search (`match.find_phrase`)."""
        return Words(self.tokens, self.language)

    @cached_property
    def sentences(self) -> list[Sentence]:
        return sentences_of_plain(self.plain)

    @cached_property
    def headings(self) -> list[str]:
        return list(self.rendered.headings)

    @cached_property
    def displayed(self) -> AnswerView | None:
        """The answer as a renderer shows a right-to-left override (its run reversed, `fold.displayed`),
        when it has one: the policy reader reads both this and the text as written."""
        text = displayed(self.raw)
        return None if text is None else AnswerView(text, reveal_html=self.reveal_html)

    @cached_property
    def word_count(self) -> int:
        from assay_runner.text.structure import count_words

        return count_words(self.tokens, self.plain)


@lru_cache(maxsize=16)
def answer_view(answer: str) -> AnswerView:
    return AnswerView(answer)
