"""Text-matching primitives for the deterministic judges: normalise, tokenise, stem, match phrases.

Reading model
-------------
An answer is markdown written by an agent. The judges compare it with short phrases from the answer
key ("30 days", "two-factor authentication", "Settings > Billing", "reinstall"). Matching is on *words*:

1. The answer is read as its renderer shows it (`text.markdown`: one CommonMark parse, link
   targets, HTML, comments and struck-out text dropped) and folded (`text.fold`: NFKC, homoglyphs,
   straight quotes). A key phrase is plain text and is only folded.
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

The modules
-----------
`words` (a phrase's words, a long text's indexed `Words`, compounds as units), `phrase` (`find_phrase`,
`mentions`), and the orders other than one run of words: `determiners` (articles and possessives between
a phrase's words), `gaps` (a Romance adverbial after the verb, a modal and participle after the object, an
English particle after the object), `verb_first` and `verb_final` (German and Dutch clauses) and
`free_order` (Polish, Italian, Portuguese). This package re-exports what the rest of the runner imports.
"""

from __future__ import annotations

from assay_runner.text.markdown import normalize
from assay_runner.text.match.determiners import DETERMINERS
from assay_runner.text.match.free_order import CLAUSE_MATCHED
from assay_runner.text.match.phrase import find_phrase, mentions
from assay_runner.text.match.verb_first import VERB_FIRST
from assay_runner.text.match.words import Unit, Words, compound_units, phrase_tokens
from assay_runner.text.tokens import Token, TokenColumns, stem, token_columns, tokenize

__all__ = [
    "CLAUSE_MATCHED",
    "DETERMINERS",
    "VERB_FIRST",
    "Token",
    "TokenColumns",
    "Unit",
    "Words",
    "compound_units",
    "find_phrase",
    "mentions",
    "normalize",
    "phrase_tokens",
    "stem",
    "token_columns",
    "tokenize",
]
