"""One reading of an answer, built once and shared by every text judge.

`answer_view(answer)` is cached by the answer's text, so the judges of one cell (policy, must_mention,
kb_citation, format, abstention) normalise, tokenise and cut the answer into sentences once, not once
each. Every part is computed on first use and is linear in the answer's length.

- `plain`: what a reader sees (`match.normalize`: NFKC, homoglyphs folded, markup, link targets, HTML
  comments, struck text and fence lines removed).
- `tokens`: the words of `plain`.
- `sentences`: the policy reader's sentences.
- `headings`, `word_count`: the document structure the format judge checks (`judges.text.structure`).
"""

from __future__ import annotations

from functools import cached_property, lru_cache

from assay_runner.judges.text.match import Token, normalize, tokenize


class AnswerView:
    def __init__(self, raw: str) -> None:
        self.raw = raw

    @cached_property
    def plain(self) -> str:
        return normalize(self.raw)

    @cached_property
    def lowered(self) -> str:
        """`plain` case-folded with whitespace runs made single spaces (phrase search by substring)."""
        return " ".join(self.plain.casefold().split())

    @cached_property
    def tokens(self) -> list[Token]:
        return tokenize(self.plain)

    @cached_property
    def sentences(self) -> list[str]:
        from assay_runner.judges.text.policy_reader import sentences_of_plain

        return sentences_of_plain(self.plain)

    @cached_property
    def headings(self) -> list[str]:
        from assay_runner.judges.text.structure import headings

        return headings(self.raw)

    @cached_property
    def word_count(self) -> int:
        from assay_runner.judges.text.structure import count_words

        return count_words(self.tokens)


@lru_cache(maxsize=16)
def answer_view(answer: str) -> AnswerView:
    return AnswerView(answer)
