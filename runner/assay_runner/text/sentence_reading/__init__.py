"""Reading one sentence for forbidden items, clause by clause (the reading model is described in
`text.policy_reader`).

`SentenceReading` holds a sentence's clauses and builds a clause's view (its words and negation cues,
`text.negation`) only when a match lies in it, or when a negated list may carry over. `matches` finds a
rule's matches in a text whose words are known; `by_clause` places a sentence's matches in its clauses.

One module each: `reading` (`SentenceReading`), `placing` (a rule's matches in a sentence's words and
clauses), `match_outcome` (what one match in a clause comes to: `judge_match`, `first_violation`) and
`languages` (the language a sentence is read in; a language the reader does not read handed
over). This package re-exports what the readers import.
"""

from __future__ import annotations

from assay_runner.text.sentence_reading.languages import (
    handed_over,
    phrase_languages,
    read_as,
    reading_language,
)
from assay_runner.text.sentence_reading.match_outcome import first_violation, judge_match
from assay_runner.text.sentence_reading.placing import Known, Match, anchored, by_clause, placed, rule_matches
from assay_runner.text.sentence_reading.reading import SentenceReading

__all__ = [
    "Known",
    "Match",
    "SentenceReading",
    "anchored",
    "by_clause",
    "first_violation",
    "handed_over",
    "judge_match",
    "phrase_languages",
    "placed",
    "read_as",
    "reading_language",
    "rule_matches",
]
