"""Which language an answer (`detect`) and each of its sentences (`sentence_language`) is written in: by
its function words and letters, with lingua's trigram confidence to break a tie."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from assay_runner.text.language.names import LANGUAGES, Language, _set_of

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
