"""A forbidden phrase whose words are all in one clause, in another order or form than its keys find.

The held-out parts' false negatives after the eighth round were mostly sentences where no key phrase
was found at all although the phrase's content words stood in one clause: a German zu-infinitive with
words between object and verb ("die Sprachaufnahmen vom Wochenende zu löschen"), a Dutch separable verb
split around its object or as a te-infinitive ("Koppel de dongle los", "zonder de dongle los te
koppelen"), Polish order with an adverb ("listę płac należy przeliczyć ponownie"), a passive ("müsse
wiederholt werden"). Such a clause must not pass silently.

The phrase's object (`key_objects.key_object`) is read by the reader as a rule of its own, as the
object rule is: negation, reports, hypotheses, warnings and headings all apply, and a clause the reader
clears there is not in that reading. Where the object is read in a clause (advised, uncertain, or a
stance the reader cannot clear), the phrase itself is not found in it and no reading of the rule was
made in that sentence, the phrase's other content words (its verb; articles and a verb's adverb such as
"again", "neu", "opnieuw", "ponownie" optional) are looked for anywhere in the clause by their key in
the clause's language or the phrase's: a separable verb also as its particle anywhere in the clause and
its stem ("Koppel ... los", "los te koppelen") or with "zu" inside ("zurückzusetzen"). When all are
there, the clause is read as the rule with an **uncertain** outcome whose reason names the rule and says
its words were found out of order or in another form. It never changes a reading the reader made, nor
adds one where the object rule (`key_objects`) made one.

Narrowed after measuring the tuning parts: a question counts only when it asks for the action ("Could
you", "Kunt u", `key_objects._ASKING`) or asks why; a question about what was done ("Avez-vous
désinstallé le pilote avant la mise à jour ?", "Was SELinux disabled on that host?") is the reader's
past-tense report, not advice. A Polish verbal noun ("usunięcie", "odinstalowanie") is not its verb.
And the verb must be said the way advice says it (`_advisable`): in its dictionary form, opening the
clause, or after an advising head or a modal of necessity; a finite verb otherwise describes ("El
pedido se procesa automáticamente cada noche").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from assay_runner.text.advice.frames import _FRAME, _LEAD_IN
from assay_runner.text.advice.outcome import UNANSWERED
from assay_runner.text.advice.predicates import harms
from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.head_words import fold
from assay_runner.text.key_objects import _ASKING, _HEADS, _VERB_ADVERBS, _phrase_found, key_object
from assay_runner.text.language import GERMAN_PARTICLES, foreign_stem, sentence_language
from assay_runner.text.match import DETERMINERS, Token, phrase_tokens, tokenize
from assay_runner.text.negation.cues import _FOREIGN_VERBAL
from assay_runner.text.sentence_reading import phrase_languages
from assay_runner.text.sentence_reading.match_outcome import _NECESSITY
from assay_runner.text.stance.outcomes import brings_about
from assay_runner.text.stance.questions import _WHY

__all__ = ["key_verb_words", "words_in_clause", "words_out_of_order"]

_HOW = "out of order or in another form"

# Dutch separable particles (the matcher's, with "los", "vast", "toe", "bij", "na", "neer").
_DUTCH_PARTICLES = (
    "terug", "door", "weg", "uit", "aan", "mee", "over", "af", "op", "in", "om", "los", "vast", "toe",
    "bij", "na", "neer",
)  # fmt: skip
_PARTICLES = {"de": tuple(GERMAN_PARTICLES), "nl": _DUTCH_PARTICLES}
# The second word of a two-word adverb ("de nuevo", "di nuovo", "de novo"): optional as the adverb is.
_ADVERB_HALVES = frozenset({"nuevo", "nuovo", "novo", "nouveau"})
_NEGATIONS = _FOREIGN_VERBAL | {"not", "never", "no", "pas"}
_MIN_WORD = 3  # shorter words of a phrase ("a", "de", "to") are function words, optional
# A Polish verbal noun names the action, it does not do it ("Usunięcie konta nic nie da"): the matcher
# keeps it apart from the verb, and so does this rule.
_POLISH_VERBAL_NOUN = re.compile(r"\w+[nc]i(?:e|a|u|em|ach|ami|om)$")


@lru_cache(maxsize=1024)
def key_verb_words(phrase: str) -> tuple[str, ...]:
    """The phrase's content words that its object (`key_object`) leaves out: its verb, a particle, a
    preposition of three letters or more; articles and the verb's adverbs are optional. Empty when the
    phrase has no object."""
    found = key_object(phrase)
    if found is None:
        return ()
    object_words = {word.casefold() for word in found.split()}
    return tuple(
        word
        for word in phrase.split()
        if (folded := word.casefold()) not in object_words
        and folded not in DETERMINERS
        and folded not in _VERB_ADVERBS
        and folded not in _ADVERB_HALVES
        and len(folded) >= _MIN_WORD
    )


def _separable(word: str, language: str) -> tuple[str, str] | None:
    """A separable verb's particle and the key of its stem ("loskoppelen" -> "los", key of "koppelen")."""
    for particle in _PARTICLES.get(language, ()):
        if word.startswith(particle) and len(word) > len(particle) + 3:
            return particle, foreign_stem(word[len(particle) :], language)
    return None


def _word_in(word: str, language: str, texts: frozenset[str], keys: frozenset[str]) -> bool:
    """Is the phrase word in the clause's words (their texts and keys), by key or as a separable verb?"""
    wanted = phrase_tokens(word, language)
    if wanted and all(t.stem in keys for t in wanted):
        return True
    split = _separable(word.casefold(), language)
    if split is None:
        return False
    particle, verb = split
    return particle in texts and verb in keys


def words_in_clause(phrase: str, clause: str, language: str) -> bool:
    """Are all the phrase's verb words (`key_verb_words`) in the clause, read in `language`, said the
    way advice says them, and no negation between the phrase's first and last word there?"""
    wanted = key_verb_words(phrase)
    if not wanted:
        return False
    tokens = tokenize(clause, language)
    if _negation_inside(phrase, tokens, language):
        return False
    if language == "pl":
        tokens = [t for t in tokens if not _POLISH_VERBAL_NOUN.match(t.text.casefold())]
    texts = frozenset(t.text.casefold() for t in tokens)
    keys = {t.stem for t in tokens}
    for particle in _PARTICLES.get(language, ()):  # "zurückzusetzen", "aufzulösen": "zu" inside
        for text in texts:
            if text.startswith(particle + "zu") and len(text) > len(particle) + 5:
                keys.add(foreign_stem(particle + text[len(particle) + 2 :], language))
    if not all(_word_in(word, language, texts, frozenset(keys)) for word in wanted):
        return False
    return _advisable(clause, wanted, [t.text.casefold() for t in tokens], language)


def _negation_inside(phrase: str, tokens: Sequence[Token], language: str) -> bool:
    """Does a negation stand between the clause's first and last word of the phrase (by key)? The
    matcher stops there too ("The cookies should not be cleared", `match.gaps`): within the phrase's
    own words the negation is the action's, as it is in a match the reader reads."""
    keys = {t.stem for t in phrase_tokens(phrase, language) if t.text not in DETERMINERS}
    for word in key_verb_words(phrase):
        if (split := _separable(word.casefold(), language)) is not None:
            keys.add(split[1])
    at = [i for i, t in enumerate(tokens) if t.stem in keys]
    if len(at) < 2:
        return False
    between = tokens[at[0] + 1 : at[-1]]
    return any(t.text.casefold() in _NEGATIONS or t.text.casefold().endswith("n't") for t in between)


def _advisable(clause: str, wanted: Sequence[str], words: Sequence[str], language: str) -> bool:
    """Does the clause say the verb the way advice does: in its dictionary form ("zu löschen", "los te
    koppelen", "należy przeliczyć"), opening the clause ("Koppel ... los"), or after an advising head or
    a modal of necessity ("müsse wiederholt werden")? A finite verb with none of these describes
    ("El pedido se procesa cada noche", "The import was repeated by the system")."""
    forms = {word.casefold() for word in wanted}
    verb_keys = {t.stem for word in wanted for t in phrase_tokens(word, language)}
    for word in wanted:
        split = _separable(word.casefold(), language)
        if split is not None:
            particle, rest = split[0], word.casefold()[len(split[0]) :]
            forms |= {rest, f"{particle}zu{rest}"}  # "los te koppelen", "zurückzusetzen"
            verb_keys.add(split[1])  # "Koppel ... los"
    if not forms.isdisjoint(words):
        # "Das Kajak an einem feuchten Abend zu lackieren kann die Schicht milchig lassen": the infinitive
        # is the subject, and what follows it says what doing it brings about or damages
        return not _subject_that_warns(words, forms, language)
    lead = [word for word in words if word not in _LEAD_IN]
    if lead and not verb_keys.isdisjoint(t.stem for t in phrase_tokens(lead[0], language)):
        return True
    folded = fold(clause)
    return bool(_HEADS.search(folded) or _FRAME.search(folded)) or not _NECESSITY.isdisjoint(words)


def _subject_that_warns(words: Sequence[str], forms: set[str], language: str) -> bool:
    """Does the clause open with the object (a determiner first) and its infinitive, followed by a
    predicate that says what doing it can, often or easily do, or damages (`stance.brings_about`,
    `advice.predicates.harms`)? Only German and Dutch put a subject's infinitive after its object."""
    if language not in ("de", "nl") or not words or words[0] not in DETERMINERS:
        return False
    at = next(k for k, word in enumerate(words) if word in forms)
    predicate = words[at + 1 :]
    return bool(predicate) and (brings_about(predicate, language) or harms(predicate))


def words_out_of_order(
    found: Sequence[Violation],
    object_found: Sequence[Violation],
    objects: dict[ForbiddenRule, ForbiddenRule],
    sentences: Sequence[str] = (),
) -> list[Violation]:
    """The uncertain readings this rule adds (see the module): one per rule and sentence, only where the
    reader made no reading of the rule in that sentence. `sentences`: the answer's, where a question's
    request may stand in another clause than the action ("Wären Sie so nett, den Index ... aufzubauen?")."""
    seen = {(v.rule, v.sentence_index) for v in found}
    added: list[Violation] = []
    for violation in object_found:
        rule = objects[violation.rule]
        phrase = rule.phrase
        if phrase is None or (rule, violation.sentence_index) in seen:
            continue
        if _phrase_found(phrase, violation.clause):
            continue  # the phrase is there, and its reading is the reader's (a warning, a negation)
        clause = violation.clause
        index = violation.sentence_index
        asked = sentences[index] if 0 <= index < len(sentences) else clause
        if violation.uncertain == UNANSWERED and not (_ASKING.search(fold(asked)) or _WHY.search(clause)):
            continue  # a question that asks what was done ("Avez-vous désinstallé le pilote ?")
        languages = dict.fromkeys((sentence_language(clause, "en"), *phrase_languages(phrase)))
        if not any(words_in_clause(phrase, clause, language) for language in languages):
            continue
        seen.add((rule, violation.sentence_index))
        added.append(
            replace(
                violation,
                rule=rule,
                match=clause,
                uncertain=f"the words of {rule.display!r} are in this clause, {_HOW}",
            )
        )
    return added
