"""What a sentence does with forbidden words it does not negate: advise them, clear them, or leave it open.

Negation (`text.negation`) answers "is the action negated?". Many sentences that mention a forbidden
action without negating it still do not recommend it, and some that negate words still do:

- **advises**: an instruction (the match heads its clause: "Reinstall the app", "Then reinstall"), an
  advice frame before it ("you should", "we recommend", "the fix is to", "try", "il faut", "debe"), a
  clause opened by an imperative verb ("Run `x` to delete the profile"), a rhetorical suggestion ("Why
  not reinstall?", "Wouldn't it be easier to reinstall?", "How about reinstalling?" — read before
  negation, so "why not" does not clear it), a question answered yes, a subject with a positive
  predicate ("Reinstalling fixes it", "The fix is a reinstall"), a cell in a table's Do/Fix column or
  in a row whose verdict is yes, a quotation or report the answer endorses ("..., and I agree").
- **clears**: a warning (a subject with a consequence: "Deleting the profile will lose your notes"), a
  hypothesis ("If you reinstall, you lose your files"), a rhetorical rejection ("Why would you wipe the
  device?", "Why reinstall when ...?"), a question answered no, a cell in a Don't/Avoid column or in a
  row whose verdict is no, a quotation or report the answer rejects ("Some forums recommend wiping the
  device; we don't", "Ignore any pop-up saying ...").
- **uncertain**: a quotation or a report with no stance, a question left unanswered, a subject with a
  neutral predicate ("Reinstalling is one option"), a mention in no shape above. The reader says so
  (`Violation.uncertain`) instead of guessing; the policy judge treats it as the suite configures.

A pattern (a date promise, a claim) is a statement, not an action: a mention in no shape above is a
violation, not uncertain.

The stance of a quotation, report or question comes from the rest of its sentence and from the next
sentence (`reply`): "yes", "no", "endorse" or "reject", read by cue words (`reply_of`).

The shapes, one module each: `rhetoric` (rhetorical questions), `frames` (instructions and advice
frames), `reports` (reported speech and reported questions), `subjects` (the match as its clause's
subject, hypotheses), `predicates` (what a clause says of its subject) and `around` (the sentence around
the match), weighed in order by `weighing.weigh`. A stance is read by the cue words of `stance_cues`
(`stance_reading`); a sentence's neighbours and place are its `facts`; `outcome` names what a reading
gives, and `cues` builds the cue lists. This package re-exports what the reader imports.
"""

from __future__ import annotations

from assay_runner.text.advice.facts import Facts, facts_of
from assay_runner.text.advice.outcome import ADVISES, CLEARS, Outcome
from assay_runner.text.advice.rhetoric import rhetorical_advice, rhetorical_rejection
from assay_runner.text.advice.stance_reading import reply_of
from assay_runner.text.advice.weighing import weigh

__all__ = [
    "ADVISES",
    "CLEARS",
    "Facts",
    "Outcome",
    "facts_of",
    "reply_of",
    "rhetorical_advice",
    "rhetorical_rejection",
    "weigh",
]
