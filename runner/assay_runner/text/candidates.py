"""Which sentences of an answer can hold a match of which forbidden item: a cheap test that never drops
a real match, so that only the sentences that mention forbidden words are read clause by clause."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from weakref import WeakKeyDictionary

from assay_runner.text.clauses import glued_conjunction
from assay_runner.text.forbidden import ForbiddenRule
from assay_runner.text.match import CLAUSE_MATCHED, Token, TokenColumns, Words, find_phrase, tokenize
from assay_runner.text.patterns import Pattern, compile_pattern
from assay_runner.text.sentence_reading import Known, Match, anchored, placed
from assay_runner.text.sentences import Sentence
from assay_runner.text.view import AnswerView

__all__ = ["CANDIDATES", "Candidates", "sentence_words"]


class Candidates:
    """Which sentences can hold a match of which rule: a cheap test that never drops a real match.

    A sentence placed in the visible text (`Sentence.base`) reads the answer's own words, so a phrase
    matches in it only where it matches in the whole answer: the sentences a whole-answer match starts
    in are read, and the rest skipped. Always read as well: a sentence not placed (`Sentence.placed`),
    the two sentences on either side of a hyphen (or the "re " prefix rule) that joins words across a
    sentence boundary, and a sentence where a conjunction is glued to the word before it
    ("reinstall-if"): there a clause cut splits a compound, and a clause can match what the whole answer
    does not. A pattern is searched once over all the sentences joined, and every sentence a match
    starts in or reaches is read: a sentence with a match of its own is always among them (the search's
    leftmost match either lies in it or runs into it). So only sentences that mention forbidden words
    are read clause by clause.
    """

    def __init__(self, sentences: Sequence[Sentence], words: Words) -> None:
        self.sentences = sentences
        self.words = words
        self.bases = [s.base for s in sentences if s.base is not None and s.placed]
        self.located = [i for i, s in enumerate(sentences) if s.placed]
        self._joined: tuple[str, list[int]] | None = None
        self._phrase_extra: frozenset[int] | None = None

    def rules_by_sentence(self, rules: Sequence[ForbiddenRule]) -> dict[int, list[tuple[int, Known]]]:
        """For each sentence to read, the rules to read it for (their indexes, in order), each with the
        sentence's matches when the whole-answer search already found them (`Known`)."""
        wanted: dict[int, list[tuple[int, Known]]] = {}
        for ri, rule in enumerate(rules):
            for si, known in self.hits(rule).items():
                wanted.setdefault(si, []).append((ri, known))
        return wanted

    def hits(self, rule: ForbiddenRule) -> dict[int, Known]:
        """The sentences that can hold a match of the rule, with their matches where already known."""
        if rule.phrase is not None and self.words.language in CLAUSE_MATCHED:
            # German word order ("Löschen Sie das Profil"), Polish free order: matched clause by clause.
            return dict.fromkeys(range(len(self.sentences)))
        if rule.phrase is not None:
            found = self._place(find_phrase(self.words, rule.phrase))
            found.update(dict.fromkeys(self._phrase_extras()))
            return found
        if rule.pattern is not None and not anchored(rule.pattern):
            return self._pattern_hits(compile_pattern(rule.pattern))
        return dict.fromkeys(range(len(self.sentences)))

    def _place(self, spans: Iterable[tuple[int, int]]) -> dict[int, Known]:
        """Whole-answer phrase matches (token spans, in order) given to the placed sentences they lie
        in, as matches in each sentence's own words and offsets. One that runs out of its sentence is no
        match there. A sentence is found by bisection, and kept for the matches after it that it holds:
        a suite with fifty phrases places each one's matches, not fifty walks of the answer."""
        tokens = self.words.tokens
        # Offsets straight from the columns: a Token made per match would cost more than the search.
        starts_of = tokens.starts if isinstance(tokens, TokenColumns) else [t.start for t in tokens]
        ends_of = tokens.ends if isinstance(tokens, TokenColumns) else [t.end for t in tokens]
        found: dict[int, Known] = {}
        si: int | None = None
        base = end_of = first = 0
        for s, e in spans:
            start, end = starts_of[s], ends_of[e - 1]
            if si is None or not base <= start < end_of:
                si = self._sentence_at(start)
                if si is None:
                    continue
                sentence = self.sentences[si]
                base = sentence.base or 0  # a located sentence is placed: it has a base
                end_of = base + len(sentence.text)
                first = bisect_left(self.words.starts, base)  # its first word (`sentence_words`)
            if end <= end_of:
                known = found.get(si)
                if known is None:
                    known = found[si] = []
                known.append((s - first, e - first, start - base, end - base))
        return found

    def _pattern_hits(self, pattern: Pattern) -> dict[int, Known]:
        """Every sentence a match over the joined sentences starts in or reaches. A match inside one
        sentence is that sentence's own (RE2 picks the same match in the sentence alone: the text after
        it does not change which match is preferred, and the line break around a sentence reads like
        its edge); a sentence a match runs into or out of is searched again on its own, and so is one
        whose words are not the answer's (`Sentence.placed`)."""
        text, starts = self._joined_text()
        spans: dict[int, list[tuple[int, int]] | None] = {}
        for m in pattern.finditer(text):
            first = bisect_right(starts, m.start()) - 1
            last = bisect_right(starts, max(m.start(), m.end() - 1)) - 1
            if first == last and m.end() <= starts[first] + len(self.sentences[first].text):
                known = spans.setdefault(first, [])
                if known is not None and m.end() > m.start():
                    known.append((m.start() - starts[first], m.end() - starts[first]))
            else:
                spans.update(dict.fromkeys(range(first, last + 1)))
        return {
            si: None if found is None or not self.sentences[si].placed else self._in_words(si, found)
            for si, found in spans.items()
        }

    def _in_words(self, si: int, spans: Sequence[tuple[int, int]]) -> list[Match]:
        """Character spans of a placed sentence as matches in its words (the answer's words from its
        first to its last, as `sentence_words` takes them)."""
        sentence, words = self.sentences[si], self.words
        base = sentence.base or 0
        first = bisect_left(words.starts, base)
        stop = bisect_left(words.starts, base + len(sentence.text))
        return placed(spans, words.tokens, base, first, stop)

    def _sentence_at(self, offset: int) -> int | None:
        k = bisect_right(self.bases, offset) - 1
        if k < 0:
            return None
        index = self.located[k]
        return index if offset < self.bases[k] + len(self.sentences[index].text) else None

    def _phrase_extras(self) -> frozenset[int]:
        if self._phrase_extra is None:
            extra = {i for i, s in enumerate(self.sentences) if not s.placed}
            tokens = self.words.tokens
            for j in self.words.joined:  # a compound that a sentence boundary cuts: both sides are read
                pair = {self._sentence_at(tokens[j - 1].start), self._sentence_at(tokens[j].start)}
                if len(pair) > 1:
                    extra.update(si for si in pair if si is not None)
            extra |= sentences_hit(glued_conjunction(), *self._joined_text())
            self._phrase_extra = frozenset(extra)
        return self._phrase_extra

    def _joined_text(self) -> tuple[str, list[int]]:
        if self._joined is None:
            self._joined = joined_sentences(s.text for s in self.sentences)
        return self._joined


# What the candidate test knows of an answer apart from any rule (its sentences joined, the sentences a
# compound crosses into), shared by the judges that read one answer (policy, abstention).
CANDIDATES: WeakKeyDictionary[AnswerView, Candidates] = WeakKeyDictionary()


def joined_sentences(sentences: Iterable[str]) -> tuple[str, list[int]]:
    texts = list(sentences)
    starts, position = [], 0
    for text in texts:
        starts.append(position)
        position += len(text) + 1
    return "\n".join(texts), starts


def sentences_hit(pattern: Pattern, text: str, starts: Sequence[int]) -> frozenset[int]:
    hit: set[int] = set()
    for m in pattern.finditer(text):
        first = bisect_right(starts, m.start()) - 1
        last = bisect_right(starts, max(m.start(), m.end() - 1)) - 1
        hit.update(range(first, last + 1))
    return frozenset(hit)


def sentence_words(sentence: Sentence, words: Words) -> tuple[list[Token], int]:
    """A sentence's words and the offset its text starts at in their frame: the answer's own words
    when the sentence is a slice of the visible text, else the words of its text read again."""
    if sentence.base is None or not sentence.placed:
        return tokenize(sentence.text, words.language), 0
    starts = words.starts
    first = bisect_left(starts, sentence.base)
    tokens = list(words.tokens[first : bisect_left(starts, sentence.base + len(sentence.text))])
    if tokens and tokens[0].joined:
        tokens[0] = tokens[0]._replace(joined=False)  # nothing before a sentence's first word joins it
    return tokens, sentence.base
