"""Where a rule's matches are in a sentence's words (`rule_matches`, `placed`) and in its clauses
(`by_clause`)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from operator import itemgetter

from assay_runner.text.clauses import Clause
from assay_runner.text.forbidden import ForbiddenRule
from assay_runner.text.match import Token, TokenColumns, find_phrase
from assay_runner.text.patterns import compile_pattern

Match = tuple[int, int, int, int]  # start token, end token, start char, end char (in the text read)


# A rule's matches in one sentence found by the whole-answer search, in the sentence's own words and
# offsets; None when the sentence must be searched on its own.
Known = list[Match] | None


def rule_matches(
    rule: ForbiddenRule, text: str, tokens: Sequence[Token], base: int, skip: int = 0, language: str = "en"
) -> list[Match]:
    """(start token, end token, start char, end char) of each match of the rule in text, whose words
    `tokens` have offsets where `text` starts at `base`. Nothing that starts in the first `skip`
    characters matches (the words the reader put in front of a sentence, `Sentence.added`)."""
    if rule.phrase is not None:
        spans = find_phrase(tokens, rule.phrase, language)
        found = [(s, e, tokens[s].start - base, tokens[e - 1].end - base) for s, e in spans]
        return [m for m in found if m[2] >= skip] if skip else found
    matches = compile_pattern(rule.pattern or "").finditer(text, skip)
    return placed([m.span() for m in matches if m.end() > m.start()], tokens, base)


def placed(
    spans: Sequence[tuple[int, int]], tokens: Sequence[Token], base: int, lo: int = 0, hi: int | None = None
) -> list[Match]:
    """Character spans of a text (its words `tokens[lo:hi]`, offsets where it starts at `base`) as
    matches, word indexes counted from `lo` (a sentence's words within the answer's)."""
    hi = len(tokens) if hi is None else hi
    found = []
    if isinstance(tokens, TokenColumns):  # bisect the offset columns in C, no Token made per probe
        starts, ends = tokens.starts, tokens.ends
        for cs, ce in spans:
            s = bisect_right(ends, cs + base, lo, hi)
            found.append((s - lo, max(s, bisect_left(starts, ce + base, lo, hi)) - lo, cs, ce))
        return found
    for cs, ce in spans:
        s = bisect_right(tokens, cs + base, lo, hi, key=_END)  # the first token ending after it starts
        found.append((s - lo, max(s, bisect_left(tokens, ce + base, lo, hi, key=_START)) - lo, cs, ce))
    return found


_TEXT, _START, _END = itemgetter(0), itemgetter(2), itemgetter(3)  # Token.text, .start, .end


def anchored(pattern: str) -> bool:
    return any(anchor in pattern for anchor in ("^", "$", "\\A", "\\z"))


def by_clause(
    matches: Sequence[Match], clauses: Sequence[Clause], starts: Sequence[int], firsts: Sequence[int]
) -> tuple[dict[int, list[Match]], list[Match]]:
    """Sentence-level matches that lie inside one clause, in that clause's own offsets (clauses are in
    order and do not overlap), and the matches no one clause holds."""
    per_clause: dict[int, list[Match]] = {}
    crossing: list[Match] = []
    for match in matches:
        s, e, cs, ce = match
        index = bisect_right(starts, cs) - 1
        if index >= 0 and clauses[index].start <= cs and ce <= clauses[index].end:
            shift, first = clauses[index].start, firsts[index]
            found = per_clause.get(index)
            if found is None:
                found = per_clause[index] = []
            found.append((s - first, e - first, cs - shift, ce - shift))
        else:
            crossing.append(match)
    return per_clause, crossing
