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

One module each: `names` (the languages read and identified), `identification` (`detect`,
`sentence_language`), `stemmers` (`foreign_stem`: French, Spanish and German by their endings), `lemmas`
(Italian, Portuguese, Dutch and Polish by their lemma) and `models` (`load_models`). This package
re-exports what the rest of the runner imports.
"""

from __future__ import annotations

from assay_runner.text.language.identification import (
    close_languages,
    detect,
    language_confidence,
    sentence_language,
)
from assay_runner.text.language.lemmas import negated_verbal_noun
from assay_runner.text.language.models import load_models
from assay_runner.text.language.names import IDENTIFIED, LANGUAGES, Language
from assay_runner.text.language.stemmers import GERMAN_PARTICLES, foreign_stem

__all__ = [
    "GERMAN_PARTICLES",
    "IDENTIFIED",
    "LANGUAGES",
    "Language",
    "close_languages",
    "detect",
    "foreign_stem",
    "language_confidence",
    "load_models",
    "negated_verbal_noun",
    "sentence_language",
]
