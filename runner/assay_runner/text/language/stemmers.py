"""The inflection key of a word in a language the reader reads other than English (`foreign_stem`): French,
Spanish and German by their endings, the others by their lemma (`lemmas`)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from assay_runner.text.language.lemmas import _LEMMA_ENDINGS, _lemma_stemmer, _strip
from assay_runner.text.language.names import Language


def foreign_stem(word: str, language: Language) -> str:
    """The inflection key of `word` in French, Spanish or German (English: `match.stem`)."""
    return _STEMMERS[language](word.casefold().replace("\u2019", "'"))


_FR_ENDINGS = (
    *("eraient", "assent", "issent", "erions", "eriez", "erons", "eront", "erais", "erait", "ions", "iez"),
    *("ées", "ons", "ent", "era", "ant", "ée", "és", "ez", "er", "ir", "es", "é", "e", "s"),
)


_ES_ENDINGS = (
    # the imperfect subjunctive ("le recomendó que desinstalara", "que revocase"), unaccented
    *("aramos", "ieramos", "asemos", "iesemos", "aran", "ieran", "asen", "iesen", "aras", "ieras"),
    *("ases", "ieses", "ara", "iera", "ase", "iese"),
    # the conditional ("yo restablecería", "desactivaríamos"), unaccented: the infinitive + -ía
    *("ariamos", "eriamos", "iriamos", "ariais", "eriais", "iriais", "arian", "erian", "irian"),
    *("arias", "erias", "irias", "aria", "eria", "iria"),
    # the participle ("debe ser borrado", "quedó desactivada")
    *("ados", "adas", "idos", "idas", "ado", "ada", "ido", "ida"),
    *("aremos", "eremos", "iremos", "iendo", "ando", "amos", "emos", "imos", "ará", "erá", "irá", "ar", "er"),
    *("ir", "an", "en", "as", "es", "ad", "ed", "a", "e", "o", "s"),
)


_ES_CLITICS = ("selo", "sela", "selos", "selas", "melo", "mela", "nos", "los", "las", "les", "lo", "la", "le")


_DE_ENDINGS = (
    *("ierst", "ieren", "ierte", "iert", "iere", "ier", "ern", "est", "en", "st", "et", "e", "t", "s"),
)


@lru_cache(maxsize=65536)
def _french(word: str) -> str:
    if "'" in word:
        return word
    return _strip(word, _FR_ENDINGS, keep=3)  # "vide" / "vider"


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
    # a plural's key is its singular's: "routers" / "router" (a verb's "-mos" is no plural)
    if plain.endswith("s") and len(plain) > 5 and not plain.endswith("mos"):
        plain = _strip(plain, ("es", "s"))
    # A stressed stem's diphthong: "revierta" / "revertir", "vuelva" / "volver" (not "que", "gue")
    key = _ES_DIPHTHONG_O.sub("o", _strip(plain, _ES_ENDINGS).replace("ie", "e"))
    # The spelling of a stem's last consonant before "e": "fuerce" / "forzar", "busque" / "buscar",
    # "pague" / "pagar"
    return _ES_SPELLING.sub(lambda m: _ES_CONSONANT[m.group()], key)


_ES_DIPHTHONG_O = re.compile(r"(?<![qg])ue")


_ES_SPELLING = re.compile(r"(?:z|qu|gu)$")


_ES_CONSONANT = {"z": "c", "qu": "c", "gu": "g"}


@lru_cache(maxsize=65536)
def _german(word: str) -> str:
    if "'" in word:
        return word
    for particle in GERMAN_PARTICLES:  # "zurückzusetzen" is "zurücksetzen", "auszuschalten" "ausschalten"
        if word.startswith(particle + "zu") and len(word) >= len(particle) + 6:
            word = particle + word[len(particle) + 2 :]
            break
        # a participle: "ausgeschaltet" is "ausschalten", "zurückgesetzt" "zurücksetzen"
        if word.startswith(particle + "ge") and word.endswith(("t", "en")) and len(word) >= len(particle) + 7:
            word = particle + word[len(particle) + 2 :]
            break
    else:
        if word.startswith("ge") and word.endswith("t") and len(word) >= _PARTICIPLE_LEAST:
            word = word[2:]  # "gelöscht" is "löschen", "gesperrt" "sperren" (not "Gerät", "genau")
    return _strip(word, _DE_ENDINGS)


_PARTICIPLE_LEAST = 8


# The particles of German separable verbs ("zurücksetzen": "Setzen Sie das Gerät zurück").
GERMAN_PARTICLES = (
    *("zurück", "durch", "nach", "weg", "auf", "aus", "ein", "mit", "vor", "los", "neu", "ab", "an"),
    *("herab", "herunter", "hinunter", "herauf", "hinauf", "heraus", "hinaus", "herein", "hinein"),
    *("zusammen", "wieder", "weiter", "fest", "frei", "hoch", "um"),
)


_STEMMERS: dict[Language, Callable[[str], str]] = {
    "fr": _french,
    "es": _spanish,
    "de": _german,
    **{lang: _lemma_stemmer(lang) for lang in _LEMMA_ENDINGS},
}
