"""Negation scope inside one clause: does a "not", "never", "without" or "avoid" govern the matched words?

The rules are described in `text.policy_reader` (the reading model); this package holds the
vocabulary and the reading of one clause (`ClauseView`), one module each:

`vocabulary` (the English words negation reads by), `cues` (the cues in a clause's words, in every
language), `clause_view` (a clause ready for matching), `scope` (does a cue govern the match: `negated`),
`predicates` (a predicate that rejects its subject; double negatives), `reversing` (negations that
encourage: "Don't hesitate to"), `clause_wide` (German and Dutch negation after the verb; "without" beside
another negation), `carried` (a negation carried across commas) and `reporting` (a past-tense match after a
reporting subject). This package re-exports what the reader imports.
"""

from __future__ import annotations

from assay_runner.text.negation.carried import carried_negation
from assay_runner.text.negation.clause_view import ClauseView, clause_tokens
from assay_runner.text.negation.clause_wide import (
    contrasted_after,
    german_negation,
    without_beside_negation,
)
from assay_runner.text.negation.cues import may_hold_cues
from assay_runner.text.negation.predicates import double_negative
from assay_runner.text.negation.reporting import reported
from assay_runner.text.negation.reversing import encouraged, reversed_negation
from assay_runner.text.negation.scope import negated

__all__ = [
    "ClauseView",
    "carried_negation",
    "clause_tokens",
    "contrasted_after",
    "double_negative",
    "encouraged",
    "german_negation",
    "may_hold_cues",
    "negated",
    "reported",
    "reversed_negation",
    "without_beside_negation",
]
