"""Which language an answer and each of its sentences is written in, and the inflection keys of the
languages the reader reads (English, French, Spanish, German, Italian, Portuguese, Dutch, Polish).

The judges compare words by an inflection key (`match.stem`, English). An answer in French, Spanish or
German is read with that language's key instead, and so are the key's phrases when they are looked up in
it, so "réinstaller" meets "réinstallez", "reinstalar" meets "reinstale" and "reinstálelo", and
"deinstallieren" meets "deinstalliert". The language is guessed once per answer from its commonest
function words (`detect`); English is the default, and an answer with no clear lead stays English.

The stemmers strip verb and plural endings only, never below four letters: they are keys for comparing
inflected forms of one word, not dictionary stems. Documented limits: irregular stems other than the
Spanish -zc- ("restablezca" / "restablecer") are not joined. A German separable verb with its "zu"
("zurückzusetzen") is keyed as the verb ("zurücksetzen").

Italian, Portuguese, Dutch and Polish are keyed by their lemma (`simplemma`, its dictionaries in the
package, read as streams: Polish costs some 54 MB and 2 s once per process, the others less), then the
same light stripping of the infinitive's ending, so a word the dictionary does not know ("reinstallate")
still meets its infinitive ("reinstallare"). The dictionary of a language is loaded the first time a
word of it is keyed.

Per sentence (`sentence_language`): an answer may mix languages (a quoted English error in an Italian
answer). A sentence's language is the one its function words and letters lead, with
`lingua`'s low-accuracy trigram confidence (restricted to the languages read, loaded once per process,
some 26 MB and 0.15 s) to break a tie and to name a language the reader only identifies; a sentence with
no lead keeps the answer's language. Lingua alone is not trusted on a short sentence: its low-accuracy
mode reads "Do not reinstall the app." as German.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Any


def _set_of(words: str) -> frozenset[str]:
    return frozenset(words.split())


__all__ = [
    "IDENTIFIED",
    "LANGUAGES",
    "Language",
    "close_languages",
    "detect",
    "foreign_stem",
    "language_confidence",
    "load_models",
    "sentence_language",
]

Language = str
LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl", "pl")
"""The languages the reader reads (ISO 639-1)."""

_FUNCTION_WORDS = {
    "en": _set_of("the a an is are you your and of to in for with on this it that be not don't do"),
    "fr": _set_of(
        "le la les l' des une un est vous votre vos pas ne n' et du au aux pour avec sur dans ce cette il en "
        "nous d' puis ensuite ton ta tes mon ma mes son sa ses mais ou si tu te"
    ),
    "es": _set_of(
        "el la los las una un es usted su sus y del al para con en este esta que por se lo le después nunca "
        "de tu tus mi mis pero ni no esto eso"
    ),
    "de": _set_of(
        "der die das den dem des ein eine einen ist sie und nicht zu mit auf für von bitte im ihr ihre es "
        "kein keine sollten müssen du dein deine deinen dich dir aber oder wenn dann"
    ),
    "it": _set_of(
        "il gli è non di della dello che per questo questa ci mai poi dopo nel nella può puoi "
        "dovete anche senza invece sono l' dell' un' all' dall' sull' nell' dal dalla dai sul sulla alla "
        "agli ai degli delle e suo sua suoi tuo tua tuoi lo le uno una ne ma lei ti la del perché "
        "essere deve devono dovrebbe così più già"
    ),
    "pt": _set_of(
        "o os as um uma é não do da dos das que para com em no na este esta você seu sua nunca depois "
        "pode deve também sem são ao aos pelo pela novamente então partir ainda a e seus suas lhe isso de "
        "isto mas ou por eu enquanto já agora aqui está"
    ),
    "nl": _set_of(
        "de het een is niet en van voor met op dit deze u uw je jouw geen nooit dan daarna kunt moet "
        "wordt er zonder ook zijn maar of als om te aan"
    ),
    "pl": _set_of(
        "nie i w na z do że to jest się ten ta tego aby po przed nigdy należy może proszę lub bez "
        "jeśli ponownie pan pani ty twój swoje swój jej go czy ale albo"
    ),
}
_MARKS = {"fr": "éèêàçù", "es": "ñ¿¡áíóú", "de": "äöüß", "it": "ìò", "pt": "ãõâô", "pl": "ąćęłńśźż"}
_WORD = re.compile(r"[^\W\d_]+(?:'(?=[^\W\d_]))?")


def detect(text: str, sample: int = 4000) -> Language:
    """The answer's language: the one whose function words (and letters) lead, English on a tie."""
    scores = _scores(text[:sample])
    best = max(scores, key=lambda lang: (scores[lang], lang == "en"))
    if scores[best] <= scores["en"]:
        return _unless_plainly_other(text[:sample], scores)
    tied = [lang for lang, score in scores.items() if score == scores[best]]
    if len(tied) > 1:  # "l'" is French and Italian: lingua's trigrams decide between them
        confidence = _confidence(text[:sample], frozenset(LANGUAGES), letters=1)
        return max(tied, key=lambda lang: confidence.get(lang, 0.0))
    close = [lang for lang, score in scores.items() if score and scores[best] - score < _SLIGHT_LEAD]
    if len(close) > 1:  # "la" and "ù" lead French by one in an Italian answer: lingua weighs in
        confidence = _confidence(text[:sample], frozenset(LANGUAGES))
        return max(close, key=lambda lang: (scores[lang] + 2 * confidence.get(lang, 0.0), lang == best))
    return best


_SLIGHT_LEAD = 2  # function words (and letters) by which one language must lead another to decide alone


def _unless_plainly_other(text: str, scores: dict[Language, float]) -> Language:
    """English, which a tie of function words goes to, unless another language tied with it is plainly
    the one written ("Verwijder de plug-in tot versie 2.4.": "in" is English, "de" Dutch; lingua reads
    Dutch at 0.99; "Zresetuj ustawienia sieci." has no function word at all): a short answer in another
    language is not read with English keys."""
    tied = [lang for lang, score in scores.items() if lang != "en" and score == scores["en"]]
    if not tied or sum(c.isalpha() for c in text) < _PLAIN_LETTERS:
        return "en"
    confidence = _confidence(text, frozenset(LANGUAGES))
    other = max(tied, key=lambda lang: confidence.get(lang, 0.0))
    plain = confidence.get(other, 0.0) >= _PLAIN and confidence.get("en", 0.0) <= 1 - _PLAIN
    return other if plain else "en"


_PLAIN_LETTERS = 15
_PLAIN = 0.99  # lingua's low-accuracy mode misreads short English ("Do not reinstall the app." as German)


def _scores(text: str) -> dict[Language, float]:
    """Function words and letters of each language in the text: one pass over its words."""
    head = text.casefold().replace("\u2019", "'")
    scores: dict[Language, float] = dict.fromkeys(_FUNCTION_WORDS, 0.0)
    for word in _WORD.findall(head):
        for lang in _LANGUAGES_OF.get(word, ()):
            scores[lang] += 1
    if not head.isascii():
        for lang, marks in _MARKS.items():
            scores[lang] += sum(head.count(mark) for mark in marks)
        # Spanish alone opens a question or an exclamation upside down: "¿Por qué no borra la caché?"
        # leads French's "é" and "la" by it
        scores["es"] += head.count("¿") + head.count("¡")
    return scores


_LANGUAGES_OF: dict[str, tuple[Language, ...]] = {}
for _lang, _vocabulary in _FUNCTION_WORDS.items():
    for _word in _vocabulary:
        _LANGUAGES_OF[_word] = (*_LANGUAGES_OF.get(_word, ()), _lang)


IDENTIFIED = _set_of(
    "af ar az be bg bn bs ca cs cy da de el en eo es et eu fa fi fr ga gu he hi hr hu hy id is it ja ka "
    "kk ko la lg lt lv mi mk mn mr ms nb nl nn pa pl pt ro ru sk sl sn so sq sr st sv sw ta te th tl tn "
    "tr ts uk ur vi xh yo zh zu"
)
"""The languages a suite may declare (`lingua`'s, ISO 639-1): those outside `LANGUAGES` are identified,
so their sentences can be handed over, but not read."""


@lru_cache(maxsize=4096)  # a sentence said again (a repeated list, an agent in a loop) is identified once
def sentence_language(text: str, answer: Language, declared: frozenset[Language] | None = None) -> Language:
    """The language of one sentence of an answer in `answer` (see the module docstring). `declared`:
    the languages the suite says its answers are written in (default: `LANGUAGES`)."""
    languages = frozenset(LANGUAGES) if declared is None else declared
    scores = {lang: score for lang, score in _scores(text).items() if lang in languages}
    lead = max(scores.values(), default=0.0)
    readable = [lang for lang, score in scores.items() if score == lead]
    if lead >= 2 and answer not in readable and len(readable) == 1:
        return readable[0]  # a clear lead of function words
    if answer in languages and (lead == 0 or answer in readable) and languages <= frozenset(LANGUAGES):
        return answer  # no lead over the answer's language, and nothing the reader cannot read declared
    # A slight lead ("Installeer de app opnieuw." in an English answer): lingua's trigrams weigh in.
    confidence = _confidence(text, languages)
    if not confidence and answer in languages:
        return answer  # too few letters to tell ("W" of a cut-off answer is not Polish)
    for lang, value in confidence.items():
        scores[lang] = scores.get(lang, 0.0) + 2 * value
    scores[answer] = scores.get(answer, 0.0) + 0.5
    return max(scores, key=lambda lang: (scores[lang], lang == answer))


def close_languages(text: str) -> list[Language]:
    """The languages a sentence's function words (and letters) cannot tell apart, most likely first: all
    within `_SLIGHT_LEAD` of the leader ("Redefine a fechadura.": English and Portuguese, one "a" each;
    "Zresetuj zamek.": all eight, none). One language alone is a sentence identified for sure."""
    scores = _scores(text)
    top = max(scores.values())
    return sorted(
        (lang for lang, score in scores.items() if top - score < _SLIGHT_LEAD), key=lambda lang: -scores[lang]
    )


def language_confidence(text: str) -> dict[Language, float]:
    """Lingua's confidence per language the reader reads (empty for a text of few letters)."""
    return _confidence(text, frozenset(LANGUAGES))


def _confidence(text: str, languages: frozenset[Language], letters: int = 12) -> dict[Language, float]:
    """Lingua's confidence per declared language (low-accuracy mode), empty for a text of few letters."""
    if sum(c.isalpha() for c in text) < letters:
        return {}
    detector = _detector(languages)
    return {
        value.language.iso_code_639_1.name.lower(): value.value
        for value in detector.compute_language_confidence_values(text)
    }


@lru_cache(maxsize=8)
def _detector(languages: frozenset[Language]) -> Any:
    """One lingua detector per set of languages, built on first use (its models load lazily)."""
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    codes = [getattr(IsoCode639_1, lang.upper()) for lang in sorted(languages)]
    if len(codes) < 2:
        codes.append(IsoCode639_1.EN if languages != {"en"} else IsoCode639_1.FR)
    return LanguageDetectorBuilder.from_iso_codes_639_1(*codes).with_low_accuracy_mode().build()


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


def load_models(languages: frozenset[Language] = frozenset(LANGUAGES)) -> None:
    """Load what the reader loads lazily on first use (lingua's models, each language's dictionary):
    for a measurement of the load, or a test whose first answer must not pay it."""
    _confidence("reinstall the application now", languages)
    for language in languages & frozenset(_LEMMA_ENDINGS):
        _lemma_key("warmup", language)


def _lemma_stemmer(language: Language) -> Callable[[str], str]:
    return lambda word: _lemma_key(word, language)


_STEMMERS: dict[Language, Callable[[str], str]] = {
    "fr": _french,
    "es": _spanish,
    "de": _german,
    **{lang: _lemma_stemmer(lang) for lang in _LEMMA_ENDINGS},
}
