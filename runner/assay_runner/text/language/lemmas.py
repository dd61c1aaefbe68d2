"""Italian, Portuguese, Dutch and Polish inflection keys: a word's lemma (simplemma), then the infinitive's
ending stripped; a Polish verbal noun with the negating prefix keyed as the action."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from assay_runner.text.language.names import Language


def _strip(word: str, endings: tuple[str, ...], keep: int = 4) -> str:
    for ending in endings:  # longest first
        if word.endswith(ending) and len(word) - len(ending) >= keep:
            return word[: -len(ending)]
    return word


_IT_ENDINGS = (
    *("erebbero", "irebbero", "eranno", "iranno", "assero", "issero", "essero", "assimo", "essimo"),
    # the imperfect subjunctive ("qualora scollegasse", "se eliminassi"), as the Spanish one
    *("issimo", "asse", "assi", "esse", "essi", "isse", "issi"),
    *("ando", "endo", "iamo", "are"),
    *("ere", "ire", "ate", "ete", "ite", "ato", "ata", "ati", "ito", "ita", "iti", "a", "e", "i", "o"),
)


_PT_ENDINGS = (
    *("ariam", "eriam", "ando", "endo", "indo", "ados", "adas", "idos", "idas", "ado", "ada", "ido", "ida"),
    *("ar", "er", "ir", "em", "am", "es", "as", "os", "e", "a", "o"),
)


_NL_ENDINGS = ("eren", "en", "de", "te", "t", "e")


_PL_ENDINGS = (
    *("owanie", "ować", "ywać", "iwać", "anie", "enie", "ając", "ać", "ić", "yć", "eć", "ąć", "uj", "ij"),
    *("aj", "ów", "em", "om", "ie", "a", "e", "i", "y", "u", "ę", "ą"),
)


_IT_CLITICS = (
    "glielo",
    "gliela",
    "melo",
    "telo",
    "celo",
    "velo",
    "selo",
    "lo",
    "la",
    "li",
    "le",
    "ne",
    "gli",
)


_DUTCH_CONSONANTS = re.compile(r"([bcdfgklmnprstvz])\1$")


_DUTCH_DOUBLE = re.compile(r"([aeou])\1([^aeiou])$")


_LEMMA_ENDINGS = {"it": _IT_ENDINGS, "pt": _PT_ENDINGS, "nl": _NL_ENDINGS, "pl": _PL_ENDINGS}


@lru_cache(maxsize=1)
def _lemmatizer() -> Any:
    """simplemma with streamed dictionaries (a fraction of the memory of its default dict per language)."""
    from simplemma import Lemmatizer
    from simplemma.strategies import DefaultStrategy
    from simplemma.strategies.dictionaries.stream_dictionary_factory import StreamDictionaryFactory

    return Lemmatizer(lemmatization_strategy=DefaultStrategy(dictionary_factory=StreamDictionaryFactory()))


# A Polish verbal noun's endings ("usunięcie", "usunięcia", "wyłączeniem"): with "nie" before it, it
# names the action not done ("Nieusunięcie konta ..."), keyed as the action (`negated_verbal_noun`).
_PL_VERBAL_NOUN = ("nie", "cie", "nia", "cia", "niu", "ciu", "niem", "ciem")


_PL_NOT = "nie"
_PL_NOMINATIVE = ("nie", "cie")


def negated_verbal_noun(word: str, language: str) -> bool:
    """ "Nieusunięcie", "niewyłączenia": a Polish verbal noun with the negating prefix."""
    rest = word.casefold()[len(_PL_NOT) :]
    return (
        language == "pl"
        and word.casefold().startswith(_PL_NOT)
        and len(rest) >= _VERBAL_NOUN_LEAST
        and rest.endswith(_PL_VERBAL_NOUN)
        and not rest.startswith(_PL_NOT)
    )


_VERBAL_NOUN_LEAST = 7  # "usunięcie": "niebieskie" or "niejasne" are no negated verbal nouns


@lru_cache(maxsize=65536)
def _lemma_key(word: str, language: Language) -> str:
    if "'" in word or not word.isalpha():
        return word
    if negated_verbal_noun(word, language):
        return _lemma_key(word[len(_PL_NOT) :], language)
    lemmatizer = _lemmatizer()
    # simplemma writes a Dutch separable verb's lemma with "_" ("over_dragen" for "overgedragen")
    lemma = str(lemmatizer.lemmatize(word, lang=language)).casefold().replace("_", "")
    if language == "pl" and lemma != word and lemma.endswith(_PL_NOMINATIVE):
        # simplemma gives a verbal noun's other cases the noun ("czyszczeniem" -> "czyszczenie") and the
        # noun its verb ("czyszczenie" -> "czyścić"): every case takes the verb's key, as the key does
        lemma = str(lemmatizer.lemmatize(lemma, lang=language)).casefold()
    if lemma == word and language == "it" and word.endswith(_IT_CLITICS):
        # "reinstallalo", "eliminatelo": an imperative with its pronoun attached
        for clitic in _IT_CLITICS:
            stem = word[: -len(clitic)]
            if word.endswith(clitic) and len(stem) >= 5 and stem.endswith(("a", "e", "i")):
                lemma = str(lemmatizer.lemmatize(stem, lang=language)).casefold()
                break
    # Dutch verbs of one short syllable keep three letters: "legen" / "leeg", "wissen" / "wis"
    key = _strip(lemma, _LEMMA_ENDINGS[language], keep=3 if language == "nl" else 4)
    if language == "nl" and lemma.endswith("t") and key == lemma[:-1] and key[-2:-1] not in "aeiou":
        key = lemma  # "reset" is the stem of "resetten", not "rese" + the ending of "hij reset"
    if language == "pl":  # "zapór" / "zapora": Polish "ó" and "o" alternate within one word's forms
        key = key.replace("ó", "o")
    if language == "nl":  # "wis" / "wissen", "maak" / "maken": Dutch spelling doubles and undoubles
        key = _DUTCH_DOUBLE.sub(r"\1\2", _DUTCH_CONSONANTS.sub(r"\1", key))
    return key


def _lemma_stemmer(language: Language) -> Callable[[str], str]:
    return lambda word: _lemma_key(word, language)
