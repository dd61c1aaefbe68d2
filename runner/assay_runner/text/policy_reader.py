"""The forbidden-content reader: does an answer recommend something the answer key forbids?

Reading model
-------------
The answer is read as a renderer shows it (`text.markdown`, shared by every text judge through
`text.view.AnswerView`) and cut into **sentences** (`text.sentences`): every paragraph,
list item, heading, table cell and line of a code block on its own, a paragraph cut after ``.``, ``!``
and ``?`` (not after e.g., i.e., etc. or an initial).

Each sentence is cut into **clauses** (`text.clauses`) at ``,`` ``;`` ``:`` parentheses, dashes
(— – and a spaced hyphen) and before the conjunctions and subordinators "but", "if", "unless", "then",
"and then", "so", "so that", "because", "otherwise", "however", "although", "though", "whereas",
"when(ever)", "once", "until", "before", "after", "while", "since", "whether", "in case", "as soon
as", "or else", "instead" (not "instead of"), "rather" (not "rather than"), and before "and"/"or"
when a new subject or a discourse word follows ("and you", "and then", "or just"). The conjunction
stays at the head of its clause; a clause that starts with a subordinator ("if", "when", "unless",
...) is *subordinate*. Negation scope inside a clause is `text.negation`.

A forbidden item (a phrase, matched with `text.match` semantics: whole words,
inflection-tolerant, the hyphen rule; or a case-insensitive RE2 expression matched against the clause
text) found in a clause is a **violation** unless the rule allows negation and the clause negates it.
Negation never crosses a clause boundary, so "If that does not help, reinstall it" still recommends
reinstalling.

When does a negation govern the forbidden words? (``allow_negated``)
---------------------------------------------------------------------
Only a negation *before* the match in the same clause counts (words of the match itself never do, so a
forbidden "no refunds" is not excused by its own "no"). Negation cues are of two kinds:

- **verbal**: not, never, no, nor, neither, nothing, none, nobody, cannot and every n't contraction
  (don't, doesn't, won't, can't, shouldn't, mustn't, ...; also without the apostrophe: dont, cant).
  The nearest verbal cue before the match decides. Its *head* is the first word after it that is not an
  auxiliary, modal, pronoun, determiner, adverb in -ly or a word of necessity/attempt ("do not *need
  to try to* reinstall", "no *need to*", "not *necessary to*"). If the head is a polarity-reversing word
  (hard, difficult, hesitate, forget, worry, wait, only, just, matter, hurt, lose, take, cost, ...), the
  negation does not govern: "It's not hard to reinstall", "Don't hesitate to reinstall", "Don't worry
  and reinstall" and "Don't just reinstall" all recommend it. Otherwise the negation governs the rest of
  the clause: "Do not reinstall or reset the device" negates both; "We cannot promise a fix by Friday"
  negates the date pattern. In a *subordinate* clause the scope is strict (next bullet), because a
  missing comma often hides the main clause: "If that does not help reinstall it" is still a violation.
  A negation that states a fact ("does not", "is not", "isn't") governs its own verb, not a bare verb
  right after that verb: "The sync does not work reinstall the app" is a run-on that recommends
  reinstalling, unless the first verb takes the second as its object ("does not require reinstall").
- **prepositional** (strict): without, instead of, rather than, avoid, refrain from, stop. They govern
  only the word phrase they introduce: the match must be the first content word after the cue ("Clear
  the cache instead of reinstalling"), or a later conjunct joined by or/nor, or by "and" between two
  -ing forms ("without reinstalling or resetting", "avoid reinstalling and resetting"). "Stop the sync
  and reinstall" still recommends reinstalling.

The verbal and the prepositional cue each flip the polarity once, so a prepositional cue inside a
negated verb phrase cancels out: "You cannot fix this without reinstalling" and "Don't clear the cache
instead of reinstalling" both recommend reinstalling. Likewise a verbal cue whose head is another
negation cancels it: "There is no reason not to reinstall" recommends it.

Two constructions extend this:

- **Negated predicate**: a match at the head of its clause that is the subject of a negated "is/will/
  does ... not" + necessity word (necessary, needed, required, recommended, helpful, an option, a fix,
  help, work, ... within three words), or of "is" + a rejecting word (unnecessary, pointless, useless,
  a waste, ...), is negated: "Disabling the firewall is not necessary", "A reinstall won't help",
  "Reinstalling is unnecessary". "Reinstalling is not hard" is still a violation. A bare verb at the
  head must be followed directly by the verb ("Reinstall is not needed"), so "Reinstall the app as the
  old version is not supported" is a violation.
- **Negated lists and interruptions**: a directive negation (don't, do not, never, neither, should
  not, must not, need not, no need, avoid, refrain from, stop) carries over commas into a short list
  that ends with "or" / "nor": "Do not reinstall, reset or disable the device" and "Never reinstall,
  reset, or disable it" negate every item. A reassurance ("Don't worry, reinstall or reset it") does not
  carry over. A directive negation left dangling before a comma carries over the rest of the comma run:
  "Do not, under any circumstances, reinstall the app" (but "No, reinstall the app" recommends it).

A phrase rule's object advised with a verb the phrase's keys do not hold ("Get rid of the printer driver"
for "uninstall the printer driver") is uncertain, not passed (`text.key_objects`): the rules' objects are
read as rules of their own, once more over the answer. A clause where that reading finds the object and
the phrase's other words (its verb, a separable verb's particle anywhere) also stand, in another order or
form than the phrase's keys find ("die Sprachaufnahmen vom Wochenende zu löschen", "Koppel de dongle
los"), is uncertain too (`text.key_words`). So is a phrase's verb advised with a pronoun for its object,
named in that sentence or the two before ("The lock lost its schedule. Unlock it from the app",
"désactivez-le", "proszę go odblokować"), once the clause, read again with the object in the pronoun's
place, still reads as advice (`text.key_pronouns`).

A phrase or pattern that only matches across a clause boundary (a pattern with a comma in it) is read
against the whole sentence with the same rules.

Known limits (by design, a deterministic reader, no parser)
-------------------------------------------------------------
- Negation in a heading or an introductory clause reaches the list below it only when the line says
  nothing else ("Avoid the following:", "None of these will help:", "Not recommended:"; see
  `sentences.negating_intro`); it does not reach across a colon or a parenthesis; a negation *after* the
  forbidden words in another clause or sentence does not count ("If you want to reinstall, please
  don't", "Is reinstalling necessary? No.").
- A run-on sentence is split only where a stated negation's verb is followed directly by a bare verb
  ("The app does not sync reinstall it"); with a word between them ("does not sync properly reinstall
  it") the earlier negation stays in force. A comma or "so"/"then"/"just" splits it.
- "and" between two bare verbs does not cut the clause: "Don't close the app and reinstall it" is read as
  negating both.
- A match that is not negated is then weighed by the shape of its clause and sentence (`text.advice`):
  an instruction or advice counts, a warning, a hypothesis, a rejected report or quotation, a question
  answered "no" or a Don't column does not, and a report, quotation or question with no stance is
  *uncertain* (`Violation.uncertain`), which the policy judge blocks or reads again with a model.
  Presuppositions ("before you reinstall, export your notes") and double negation beyond the forms above
  and "Not reinstalling is not an option" (`negation.double_negative`) are read literally.

Languages
---------
Each sentence is read in its own language (`text.language.sentence_language`: function words, and
lingua where they do not decide), with that language's inflection keys and cues; a sentence in another
language than the answer's is searched for every rule with its own words. The suite may declare its
languages (`read_policy(..., languages)`); a sentence identified as one the reader does not read has its
matches handed over as uncertain (`sentence_reading.handed_over`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from assay_runner.text.advice import Facts, facts_of
from assay_runner.text.candidates import CANDIDATES, Candidates, sentence_words
from assay_runner.text.clauses import Clause, glued_conjunction, split_clauses
from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.key_do_it import do_it_after
from assay_runner.text.key_objects import object_rules, objects_advised
from assay_runner.text.key_pronouns import pronoun_objects, spaced, verb_rules
from assay_runner.text.key_words import words_out_of_order
from assay_runner.text.language import Language, sentence_language
from assay_runner.text.match import CLAUSE_MATCHED, Token, tokenize
from assay_runner.text.sentence_reading import (
    Known,
    SentenceReading,
    anchored,
    handed_over,
    read_as,
    reading_language,
    rule_matches,
)
from assay_runner.text.sentences import Sentence, split_sentences
from assay_runner.text.view import AnswerView

__all__ = [
    "Clause",
    "ForbiddenRule",
    "PolicyReading",
    "Violation",
    "find_violations",
    "read_policy",
    "split_clauses",
    "split_sentences",
]


@dataclass(frozen=True)
class PolicyReading:
    """What the reader found in one answer."""

    found: list[Violation]
    """Every (rule, clause) the reader cannot clear, ordered by sentence, clause, then rule order."""
    sentences_read: int
    """How many sentence readings were built (a sentence said again is read once)."""

    @property
    def violations(self) -> list[Violation]:
        """What plainly recommends a forbidden item."""
        return [v for v in self.found if v.uncertain is None]

    @property
    def uncertain(self) -> list[Violation]:
        """What a rule-based reading cannot decide (`Violation.uncertain`)."""
        return [v for v in self.found if v.uncertain is not None]


def find_violations(answer: str | AnswerView, rules: Sequence[ForbiddenRule]) -> list[Violation]:
    """Every (rule, clause) where the answer states forbidden content that is not negated.

    `answer` is the markdown answer or its shared reading (`AnswerView`, built once for every judge).
    At most one violation per rule and clause, ordered by sentence, clause, then rule order.
    """
    return read_policy(answer, rules).found


def read_policy(
    answer: str | AnswerView,
    rules: Sequence[ForbiddenRule],
    languages: frozenset[Language] | None = None,
    *,
    pronouns: bool = True,
) -> PolicyReading:
    """`find_violations` with what the reading cost (`PolicyReading`). An answer with a right-to-left
    override is read twice, as written and as displayed (`AnswerView.displayed`): what either reading
    finds counts. HTML a browser hides is read as shown (`AnswerView.revealed`): a renderer may show it.
    `languages`: those the suite declares its answers are written in (default: every language the reader
    reads, `text.language.LANGUAGES`); a sentence identified as one the reader does not read has its
    matches handed over as uncertain. `pronouns`: read a rule's verb with a pronoun for its object
    (`text.key_pronouns`; off where that rule reads a sentence again)."""
    view = (AnswerView(answer) if isinstance(answer, str) else answer).revealed
    reading = _read_both(view, rules, languages)
    found, read = list(reading.found), reading.sentences_read
    sentences = [sentence.text for sentence in view.sentences]
    objects = object_rules(rules)
    if objects:
        # A rule's words in one clause in another order or form than its keys find (`text.key_words`), and
        # its object advised with a verb its keys do not hold (`text.key_objects`), are uncertain.
        object_reading = _read_both(view, list(objects), languages)
        found += objects_advised(found, object_reading.found, objects)
        found += words_out_of_order(found, object_reading.found, objects, sentences)
        read += object_reading.sentences_read
    verbs = verb_rules(rules) if pronouns else {}
    if verbs:
        # A rule's verb said with a pronoun for its object, named before (`text.key_pronouns`), is
        # uncertain: the verbs read once more over the answer, a clause that points read again.
        text = spaced(view.raw)
        verb_view = view if text == view.raw else AnswerView(text, reveal_html=view.reveal_html)
        verb_reading = _read_both(verb_view, list(verbs), languages)
        found += pronoun_objects(
            [sentence.text for sentence in verb_view.sentences],
            verbs,
            found,
            verb_reading.found,
            lambda sentence, rule: read_policy(sentence, [rule], languages, pronouns=False).found,
        )
        read += verb_reading.sentences_read
    if pronouns:
        # "...: do it on Saturday" right after the action is named points back to it (`text.key_do_it`)
        found += do_it_after(sentences, rules, found)
    return PolicyReading(found, read)


def _read_both(
    view: AnswerView, rules: Sequence[ForbiddenRule], languages: frozenset[Language] | None
) -> PolicyReading:
    """The answer read as written and, with a right-to-left override, as displayed."""
    reading = _read(view, rules, languages)
    if view.displayed is None:
        return reading
    shown = _read(view.displayed, rules, languages)
    seen = {(v.rule, v.clause) for v in reading.found}
    extra = [v for v in shown.found if (v.rule, v.clause) not in seen]
    return PolicyReading(reading.found + extra, reading.sentences_read + shown.sentences_read)


def _read(
    view: AnswerView, rules: Sequence[ForbiddenRule], languages: frozenset[Language] | None
) -> PolicyReading:
    sentences, words = view.sentences, view.words
    candidates = CANDIDATES.get(view)
    if candidates is None:
        candidates = CANDIDATES[view] = Candidates(sentences, words)
    wanted = dict(candidates.rules_by_sentence(rules))
    # A sentence in another language than the answer's is searched with its own words' keys.
    own: dict[int, tuple[Language, list[Token]]] = {}
    for si, sentence in enumerate(sentences):
        spoken = sentence.text[sentence.added :]
        language = reading_language(
            spoken, sentence_language(spoken, view.language, languages), rules, languages
        )
        if language != view.language:
            own[si] = language, tokenize(sentence.text, read_as(language))
            wanted.pop(si, None)
            if found_rules := own_matches(sentence, own[si][1], rules, read_as(language)):
                wanted[si] = found_rules
    found: list[tuple[int, int, int, Violation]] = []
    # A sentence's reading depends on its text and the rules it is read for, not on where it stands:
    # a sentence said again (a list repeated under each heading, an agent stuck in a loop) is read once.
    read: dict[object, list[tuple[int, int, Violation]]] = {}
    for si in sorted(wanted):
        sentence = sentences[si]
        following = sentences[si + 1].text if si + 1 < len(sentences) else None
        language = own[si][0] if si in own else view.language
        facts = facts_of(
            sentence.text, sentence.quoted, sentence.column, sentence.row, following, read_as(language)
        )
        key = reading_key(sentence, facts, wanted[si])
        violations = read.get(key)
        if violations is None:
            if si in own:
                tokens, base = own[si][1], 0
            else:
                tokens, base = sentence_words(sentence, words)
            reading = SentenceReading(sentence, si, tokens, base, facts)
            violations = read[key] = [
                (ci, ri, handed_over(v, language))
                for ri, known in wanted[si]
                for ci, v in reading.violations(rules[ri], known)
            ]
        found.extend(
            (si, ci, ri, v if v.sentence_index == si else replace(v, sentence_index=si))
            for ci, ri, v in violations
        )
    found.sort(key=lambda item: item[:3])
    return PolicyReading([violation for *_, violation in found], len(read))


def own_matches(
    sentence: Sentence, tokens: list[Token], rules: Sequence[ForbiddenRule], language: Language
) -> list[tuple[int, Known]]:
    """The rules a sentence in its own language is read for, with their matches in it where a search of
    the whole sentence finds them all (`Candidates.hits` says which: German, Dutch, Polish, Italian and
    Portuguese phrases and anchored patterns are matched clause by clause). A sentence where a clause
    cut falls inside a compound ("reinstall-but", `clauses.glued_conjunction`) is read for every
    phrase, as `Candidates` reads it: a clause there can match a phrase the whole sentence does not."""
    wanted: list[tuple[int, Known]] = []
    glued = glued_conjunction().search(sentence.text) is not None
    for ri, rule in enumerate(rules):
        if (rule.phrase is not None and language in CLAUSE_MATCHED) or (
            rule.pattern is not None and anchored(rule.pattern)
        ):
            wanted.append((ri, None))
        elif matches := rule_matches(rule, sentence.text, tokens, 0, sentence.added, language):
            wanted.append((ri, matches))
        elif rule.phrase is not None and glued:
            wanted.append((ri, None))  # no match in the whole sentence, but a clause may hold one
    return wanted


def reading_key(sentence: Sentence, facts: Facts, wanted: list[tuple[int, Known]]) -> object:
    """What a sentence's reading depends on: its text (with the words the reader put in front), what its
    neighbours and its place say (`advice.Facts`), and the rules with their matches in it (offsets in
    the sentence, so equal for equal sentences)."""
    return (
        sentence.text,
        sentence.added,
        facts,
        tuple((ri, None if known is None else tuple(known)) for ri, known in wanted),
    )
