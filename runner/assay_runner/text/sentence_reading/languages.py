"""The language a sentence is read in (`reading_language`), the languages a forbidden phrase may be written
in, and a match in a language the reader does not read handed over as uncertain."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.language import LANGUAGES, Language, close_languages, language_confidence
from assay_runner.text.match import find_phrase, tokenize


def reading_language(
    text: str, identified: Language, rules: Sequence[ForbiddenRule], declared: frozenset[Language] | None
) -> Language:
    """The language a sentence is read in: the one it was identified as, unless that was a guess among
    close languages (`close_languages`), no forbidden phrase is found in it with that language's keys,
    and a phrase that shares a word with it is found with the keys of a close language the phrase itself
    may be written in (`phrase_languages`): "Redefine a fechadura." is no English sentence, "redefinir a
    fechadura" is in it with Portuguese keys. A forbidden sentence must not pass because its few words
    were taken for another language; an English phrase never has a sentence read in another language."""
    if identified not in LANGUAGES or not any(r.phrase is not None for r in rules):
        return identified
    words = frozenset(_LONG_WORD.findall(text.casefold()))
    shared = [r.phrase for r in rules if r.phrase is not None and not words.isdisjoint(_long_words(r.phrase))]
    if not shared:
        return identified  # (most sentences of a long answer: one pass over its words)
    close = close_languages(text)
    if len(close) < 2 or any(find_phrase(tokenize(text, identified), p, identified) for p in shared):
        return identified
    for phrase in shared:
        for language in phrase_languages(phrase):
            if language == identified or language not in close or (declared and language not in declared):
                continue
            if find_phrase(tokenize(text, language), phrase, language):
                return language
    return identified


@lru_cache(maxsize=1024)
def phrase_languages(phrase: str) -> tuple[Language, ...]:
    """The languages a forbidden phrase may be written in: those lingua gives some confidence (a phrase
    is short: "redefinir a fechadura" reads Spanish 0.54, Portuguese next), most likely first; none but
    English for an English phrase."""
    confidence = language_confidence(phrase)
    ranked = sorted(confidence, key=lambda lang: -confidence[lang])
    return tuple(lang for lang in ranked[:_PHRASE_LANGUAGES] if confidence[lang] >= _PHRASE_CONFIDENCE)


_PHRASE_LANGUAGES = 3


_PHRASE_CONFIDENCE = 0.15


_LONG_WORD = re.compile(r"[^\W\d_]{4,}")


@lru_cache(maxsize=1024)
def _long_words(phrase: str) -> frozenset[str]:
    return frozenset(_LONG_WORD.findall(phrase.casefold()))


def read_as(language: Language) -> Language:
    """The keys a sentence is read with: its language's, or English for one the reader does not read."""
    return language if language in LANGUAGES else "en"


def handed_over(violation: Violation, language: Language) -> Violation:
    """A match in a sentence written in a language the reader does not read is uncertain: the suite's
    `uncertain` setting blocks it or hands it to the model judge's second reading."""
    if language in LANGUAGES:
        return violation
    return replace(
        violation, uncertain=f"written in {language!r}, a language the policy reader does not read"
    )
