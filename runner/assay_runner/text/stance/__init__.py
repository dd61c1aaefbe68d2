"""Whose voice a sentence is in and what stance the answer takes, read from the sentence's structure.

The cue lists of `text.advice` know the words a stance is usually said with ("I agree", "bad advice").
This layer reads the shapes those words stand in, with the eight languages' closed classes (negations,
pronouns, interrogatives, conjunctions, copulas, verb endings, the inflection keys of a few verbs of
saying) rather than more content words:

- **a reply's polarity**: the sentence after a question or a report that speaks of it (an anaphoric
  subject, "That / Das / Eso / Isso / Dat / To ...", or a pro-drop verb or copula after a fronted phrase)
  says no when it negates its predicate ("Das würde hier nichts ändern", "Non cambierebbe nulla"), and
  yes when it calls it a fix without negating ("In your case, it is the quickest fix");
- **counter-advice**: a next sentence that tells the reader to do something else instead ("Keep it on
  and restart the app instead", "Lassen Sie es lieber an") rejects the report before it;
- **a contrast that names a cost**: "..., but that would erase your settings", "aber dabei gehen Ihre
  Einstellungen verloren": a loss, or a conditional said of the action, after but/mais/aber/pero/ma/mas/
  maar/ale rejects;
- **why-questions**: a question opened by the language's "why" that asks why one would do it rejects
  it ("Warum den Treiber deinstallieren, wenn ...", "Po co ...?"), one with a negation between "why" and
  the action suggests it ("Dlaczego po prostu nie zresetować hasła?");
- **questions about the past**: a question whose action is in a past form asks what the customer did
  ("Avez-vous désinstallé le pilote ?", "Czy odinstalował Pan sterownik?"), it does not advise it;
- **negative questions**: "Sollten Sie nicht einfach ...?", "¿No debería ...?" may well suggest the
  action: their negation does not clear them (the reader makes them uncertain unless a reply decides);
- **the customer's own report**: a reporting verb whose subject is the person addressed ("You mentioned
  that ...", "Sie schreiben, dass ...", "Pisze Pan, że ...") is in the customer's voice;
- **a third party's report**: a verb that reports advice, found by its inflection key in a third
  person's form ("raadde aan", "polecił", "sugeriu"), makes the clause a report whose stance decides;
- **double negatives**: "no other way than X" ("Nie ma innego wyjścia niż usunąć profil"), "wrong not
  to X" ("Sarebbe un errore non rimuoverla"), and in German and Dutch a negated infinitive subject
  before ", ist keine Option" recommend X;
- **what cannot be avoided**: a negated or impossible verb of avoiding before the action ("You can't
  avoid", "no way around", "Sie kommen nicht darum herum", "U ontkomt er niet aan", "Nie da się
  uniknąć") recommends it; in German and Dutch the same verb before the action's infinitive clause
  ("Sie können vermeiden, die SD-Karte zu formatieren") clears it;
- **what doing it would bring about**: a condition at the head of its sentence whose main clause is a
  future or a conditional ("Should you X, payouts will be cancelled", "Gdyby Pan X, ... przestałyby"),
  the action as the subject of a that-clause ("Beware that X will erase ..."), and a warning word before a
  colon or dash ("Attention : X supprime ...") state a consequence, not an instruction;
- **advice judged worse**: a sentential relative or an anaphoric clause that calls it worse or out of
  date ("..., which only makes things worse", "; ce conseil est dépassé") rejects it;
- **a heading's polarity**: a short line ending in ":" whose own predicate is negated ("Bitte probieren
  Sie Folgendes nicht aus:") negates its list, unless it is a condition, a reassurance or negates a
  reversing verb;
- **a list called futile**: a heading or introducing line that says none of its list helps ("None of
  these gets rid of the smell", "Żadna z tych metod nie usunie zapachu") or that the problem stays
  whichever item is tried ("De geur blijft, welke oplossing u ook kiest") negates its list.

A shape this layer cannot place leaves the reading as it was: uncertain where the reader was unsure.

The shapes, one module each: `replies`, `questions`, `voices`, `double_negation`, `headings`,
`futile_list`, `avoiding`, `consequences` and `judgements`, over the closed classes of `words`. This
package re-exports what the reader imports.
"""

from __future__ import annotations

from assay_runner.text.stance.avoiding import avoidance, avoided_after
from assay_runner.text.stance.consequences import (
    conditional_consequence,
    consequence,
    helps,
    stated_after_that,
    warned,
)
from assay_runner.text.stance.double_negation import (
    negated_effect_after,
    no_other_than,
    omission_rejected,
    rejected_in_next_clause,
    wrong_not_to,
)
from assay_runner.text.stance.futile_list import calls_futile, reassures_of_list
from assay_runner.text.stance.headings import heading_negates
from assay_runner.text.stance.judged_list import judges_list_badly
from assay_runner.text.stance.judgements import ignored_after, judged_worse
from assay_runner.text.stance.outcomes import FAR_WORDS, brings_about, concedes, not_in_hindsight
from assay_runner.text.stance.questions import (
    BECAUSE,
    excessive,
    negative_question,
    past_question,
    what_if,
    why_question,
)
from assay_runner.text.stance.records import RECORD_HEAD, recorded
from assay_runner.text.stance.replies import contrast_cost, counter_advice, reassures, reply_polarity
from assay_runner.text.stance.setting_aside import keeps, sets_aside
from assay_runner.text.stance.voices import addressee_report, refuses_to_advise, reports, reports_before
from assay_runner.text.stance.words import BETTER

__all__ = [
    "BECAUSE",
    "BETTER",
    "FAR_WORDS",
    "RECORD_HEAD",
    "addressee_report",
    "avoidance",
    "avoided_after",
    "brings_about",
    "calls_futile",
    "concedes",
    "conditional_consequence",
    "consequence",
    "contrast_cost",
    "counter_advice",
    "excessive",
    "heading_negates",
    "helps",
    "ignored_after",
    "judged_worse",
    "judges_list_badly",
    "keeps",
    "negated_effect_after",
    "negative_question",
    "no_other_than",
    "not_in_hindsight",
    "omission_rejected",
    "past_question",
    "reassures",
    "reassures_of_list",
    "recorded",
    "refuses_to_advise",
    "rejected_in_next_clause",
    "reply_polarity",
    "reports",
    "reports_before",
    "sets_aside",
    "stated_after_that",
    "warned",
    "what_if",
    "why_question",
    "wrong_not_to",
]
