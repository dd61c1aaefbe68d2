"""Which language an answer is written in, and the light stemmers for French, Spanish and German.

The judges compare words by an inflection key (`match.stem`, English). An answer in French, Spanish or
German is read with that language's key instead, and so are the key's phrases when they are looked up in
it, so "réinstaller" meets "réinstallez", "reinstalar" meets "reinstale" and "reinstálelo", and
"deinstallieren" meets "deinstalliert". The language is guessed once per answer from its commonest
function words (`detect`); English is the default, and an answer with no clear lead stays English.

The stemmers strip verb and plural endings only, never below four letters: they are keys for comparing
inflected forms of one word, not dictionary stems. Documented limits: irregular stems other than the
Spanish -zc- ("restablezca" / "restablecer") are not joined, and a German separable verb split by "zu"
("zurückzusetzen") is not "zurücksetzen".
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache


def _set_of(words: str) -> frozenset[str]:
    return frozenset(words.split())


__all__ = ["LANGUAGES", "Language", "detect", "foreign_stem"]

Language = str
LANGUAGES = ("en", "fr", "es", "de")

_FUNCTION_WORDS = {
    "en": _set_of("the a an is are you your and of to in for with on this it that be not don't do"),
    "fr": _set_of(
        "le la les l' des une un est vous votre vos pas ne n' et du au aux pour avec sur dans ce cette il "
        "nous d' puis ensuite"
    ),
    "es": _set_of(
        "el la los las una un es usted su sus y del al para con en este esta que por se lo le después nunca"
    ),
    "de": _set_of(
        "der die das den dem des ein eine einen ist sie und nicht zu mit auf für von bitte im ihr ihre es "
        "kein keine sollten müssen"
    ),
}
_MARKS = {"fr": "éèêàçù", "es": "ñ¿¡áíóú", "de": "äöüß"}
_WORD = re.compile(r"[^\W\d_]+(?:'(?=[^\W\d_]))?")


def detect(text: str, sample: int = 4000) -> Language:
    """The answer's language: the one whose function words (and letters) lead, English on a tie."""
    head = text[:sample].casefold().replace("\u2019", "'")
    words = _WORD.findall(head)
    scores = {lang: sum(w in vocabulary for w in words) for lang, vocabulary in _FUNCTION_WORDS.items()}
    for lang, marks in _MARKS.items():
        scores[lang] += sum(head.count(mark) for mark in marks)
    best = max(scores, key=lambda lang: (scores[lang], lang == "en"))
    return best if scores[best] > scores["en"] else "en"


def foreign_stem(word: str, language: Language) -> str:
    """The inflection key of `word` in French, Spanish or German (English: `match.stem`)."""
    return _STEMMERS[language](word.casefold().replace("\u2019", "'"))


def _strip(word: str, endings: tuple[str, ...], keep: int = 4) -> str:
    for ending in endings:  # longest first
        if word.endswith(ending) and len(word) - len(ending) >= keep:
            return word[: -len(ending)]
    return word


_FR_ENDINGS = (
    *("eraient", "assent", "issent", "erions", "eriez", "erons", "eront", "erais", "erait", "ions", "iez"),
    *("ées", "ons", "ent", "era", "ant", "ée", "és", "ez", "er", "ir", "es", "é", "e", "s"),
)
_ES_ENDINGS = (
    *("aremos", "eremos", "iremos", "iendo", "ando", "amos", "emos", "imos", "ará", "erá", "irá", "ar", "er"),
    *("ir", "an", "en", "as", "es", "ad", "ed", "a", "e", "o", "s"),
)
_ES_CLITICS = ("selo", "sela", "selos", "selas", "melo", "mela", "nos", "los", "las", "les", "lo", "la", "le")
_DE_ENDINGS = ("ierst", "ieren", "ierte", "iert", "iere", "ern", "est", "en", "st", "et", "e", "t", "s")


@lru_cache(maxsize=65536)
def _french(word: str) -> str:
    if "'" in word:
        return word
    return _strip(word, _FR_ENDINGS)


def _unaccented(word: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c) or c == "\u0303"
    )


@lru_cache(maxsize=65536)
def _spanish(word: str) -> str:
    if "'" in word:
        return word
    plain = unicodedata.normalize("NFC", _unaccented(word))
    if plain != word:  # an accent on the stem marks pronouns attached to a verb: "reinstálelo"
        for clitic in _ES_CLITICS:
            if plain.endswith(clitic) and len(plain) - len(clitic) >= 5:
                plain = plain[: -len(clitic)]
                break
    plain = plain.replace("zc", "c")  # restablezca / restablecer
    return _strip(plain, _ES_ENDINGS)


@lru_cache(maxsize=65536)
def _german(word: str) -> str:
    if "'" in word:
        return word
    return _strip(word, _DE_ENDINGS)


_STEMMERS = {"fr": _french, "es": _spanish, "de": _german}
