"""The plain reference policy reader: every sentence, every rule, every clause, read the simplest way.

It takes none of the fast reader's shortcuts (`text.policy_reader`): no candidate test, no words shared
with the whole answer, no match placed from the sentence into its clauses, no sentence read once for
two. Each sentence's words and each clause's words are read again from their own text, and every clause
is searched for every rule. It is slow (quadratic in places) and meant to be obviously faithful to the
reading model; the fast reader must find exactly what it finds (tests/unit/test_policy_reading_paths.py,
property tests over generated answers).
"""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.text.advice import facts_of
from assay_runner.text.clauses import clauses_of
from assay_runner.text.fold import displayed
from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.key_objects import object_rules, objects_advised
from assay_runner.text.key_pronouns import pronoun_objects, spaced, verb_rules
from assay_runner.text.key_words import words_out_of_order
from assay_runner.text.language import detect, sentence_language
from assay_runner.text.markdown import normalize
from assay_runner.text.match import CLAUSE_MATCHED, Token, find_phrase, tokenize
from assay_runner.text.negation import ClauseView, carried_negation
from assay_runner.text.patterns import compile_pattern
from assay_runner.text.sentence_reading import first_violation, handed_over, read_as, reading_language
from assay_runner.text.sentences import sentences_of_plain

__all__ = ["reference_violations"]


def reference_violations(
    answer: str,
    rules: Sequence[ForbiddenRule],
    languages: frozenset[str] | None = None,
    *,
    pronouns: bool = True,
) -> list[Violation]:
    """What `policy_reader.find_violations` must return for `answer`, in the same order: the answer as
    written, then what only its displayed form (a right-to-left override's run reversed) adds."""
    found = _both(answer, rules, languages)
    found += _objects_read(answer, rules, found, languages)
    verbs = verb_rules(rules) if pronouns else {}
    if not verbs:
        return found
    # A rule's verb said with a pronoun for its object, named before (`text.key_pronouns`), is uncertain.
    text = spaced(answer)
    return found + pronoun_objects(
        _sentences(text),
        verbs,
        found,
        reference_violations(text, list(verbs), languages),
        lambda sentence, rule: reference_violations(sentence, [rule], languages, pronouns=False),
    )


def _objects_read(
    answer: str, rules: Sequence[ForbiddenRule], found: list[Violation], languages: frozenset[str] | None
) -> list[Violation]:
    objects = object_rules(rules)
    if not objects:
        return []
    # A rule's words in one clause in another order or form than its keys find (`text.key_words`), and
    # its object advised with a verb its keys do not hold (`text.key_objects`), are uncertain.
    object_found = _both(answer, list(objects), languages)
    added = objects_advised(found, object_found, objects)
    return added + words_out_of_order(found + added, object_found, objects, _sentences(answer))


def _sentences(answer: str) -> list[str]:
    return [sentence.text for sentence in sentences_of_plain(normalize(answer, reveal_html=True))]


def _both(answer: str, rules: Sequence[ForbiddenRule], languages: frozenset[str] | None) -> list[Violation]:
    found = _as_written(answer, rules, languages)
    shown = displayed(answer)
    if shown is not None:
        seen = {(v.rule, v.clause) for v in found}
        found += [v for v in _as_written(shown, rules, languages) if (v.rule, v.clause) not in seen]
    return found


def _as_written(
    answer: str, rules: Sequence[ForbiddenRule], languages: frozenset[str] | None
) -> list[Violation]:
    found: list[tuple[int, int, int, Violation]] = []
    plain = normalize(answer, reveal_html=True)  # as the policy reader reads it (`AnswerView.revealed`)
    answer_language = detect(plain)
    sentences = sentences_of_plain(plain)
    for si, sentence in enumerate(sentences):
        text, added = sentence.text, sentence.added
        own = reading_language(
            text[added:], sentence_language(text[added:], answer_language, languages), rules, languages
        )
        language = read_as(own)
        following = sentences[si + 1].text if si + 1 < len(sentences) else None
        facts = facts_of(text, sentence.quoted, sentence.column, sentence.row, following, language)
        clauses = clauses_of(text, si, language=language)
        views = [
            ClauseView(c.text, tokenize(c.text, language), 0, c.opener, c.subordinate, language)
            for c in clauses
        ]
        # An item under a negating introduction ("Do not:") is negated in every clause.
        carried = [ci > 0 and (bool(added) or c) for ci, c in enumerate(carried_negation(views, clauses))]
        question = text.rstrip().endswith("?")
        for ri, rule in enumerate(rules):
            for ci, (clause, view) in enumerate(zip(clauses, views, strict=True)):
                matches = _matches(rule, view.text, view.tokens, max(0, added - clause.start), language)
                chosen = first_violation(
                    rule, view, matches, clause.start, carried[ci], question, text, facts
                )
                if chosen is not None:
                    (cs, ce), uncertain = chosen
                    shown = clause.text[max(0, added - clause.start) :].strip()
                    violation = Violation(rule, shown, si, view.text[cs:ce], uncertain)
                    found.append((si, ci, ri, handed_over(violation, own)))
            # A match that no one clause holds is read against the whole sentence.
            whole = ClauseView(text, tokenize(text, language), language=language)
            crossing = [
                m
                for m in _matches(rule, text, whole.tokens, added, language)
                if not any(c.start <= m[2] and m[3] <= c.end for c in clauses)
                and not (rule.phrase is not None and language in CLAUSE_MATCHED)
            ]
            chosen = first_violation(rule, whole, crossing, 0, False, question, text, facts)
            if chosen is not None:
                (cs, ce), uncertain = chosen
                violation = Violation(rule, text[added:].strip(), si, text[cs:ce], uncertain)
                found.append((si, len(clauses), ri, handed_over(violation, own)))
    found.sort(key=lambda item: item[:3])
    return [violation for *_, violation in found]


def _matches(
    rule: ForbiddenRule, text: str, tokens: Sequence[Token], skip: int, language: str
) -> list[tuple[int, int, int, int]]:
    """(start token, end token, start char, end char) of each match in `text` (whose words are `tokens`)
    that does not start in its first `skip` characters (words the reader put in front)."""
    if rule.phrase is not None:
        spans = [
            (s, e, tokens[s].start, tokens[e - 1].end) for s, e in find_phrase(tokens, rule.phrase, language)
        ]
        return [m for m in spans if m[2] >= skip]
    found = []
    for m in compile_pattern(rule.pattern or "").finditer(text, skip):
        if m.end() == m.start():
            continue
        first = next((i for i, t in enumerate(tokens) if t.end > m.start()), len(tokens))
        stop = next((i for i, t in enumerate(tokens) if t.start >= m.end()), len(tokens))
        found.append((first, max(first, stop), m.start(), m.end()))
    return found
