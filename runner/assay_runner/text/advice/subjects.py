"""Who or what a clause is about: the match as its clause's subject (a gerund, a noun after a
determiner, an infinitive in the Romance languages), a match described or named by the words before it,
and the subjects and conditions that make a clause a hypothesis."""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.text.advice.cues import _words
from assay_runner.text.advice.frames import _LEAD_IN
from assay_runner.text.head_words import Before
from assay_runner.text.match import DETERMINERS
from assay_runner.text.stance import consequence

_SUBJECTS = _words("you someone anyone somebody anybody they we i he she")
_HYPOTHETICAL = frozenset({"if", "unless", "whether", "in case", "when", "whenever"})
# "If" and "when" in the other languages, read only at the head of a clause (Spanish "se" is a pronoun,
# so these never cut a clause), and the subject pronouns that may stand between them and the verb.
_FOREIGN_IF = _words(
    "si quand lorsque cuando se quando als wanneer indien wenn falls sobald jeśli jeżeli gdy kiedy"
)
_FOREIGN_SUBJECTS = _words(
    "vous tu on usted ustedes tú você vocês voi lei tu u je jij we ze het sie du man ty wy pan pani "
    "l' ne en y lo la gli ci vi"
)
# A condition's subject and the object's article or possessive ("Wenn Sie das Konto löschen", "Als u uw
# account verwijdert", "Si vous supprimez votre compte").
_CONDITION_FILLERS = (
    _FOREIGN_SUBJECTS
    | DETERMINERS
    | _words(
        "quelqu'un jemand alguien qualcuno alguém iemand ktoś ktokolwiek"  # "Si quelqu'un désactive ..."
    )
)
# A condition said by putting its verb first, in the past: "Had you reset the router, ...", "Hätten Sie
# den Router zurückgesetzt, ...", "Had u de router gereset, ...".
_INVERTED_IF = _words("had were hätten hätte wären wäre hadden")


def _is_subject(words: Sequence[str], start: int, end: int, before: Before, language: str = "en") -> bool:
    """Is the match the subject of its clause: a gerund, a noun after a determiner, a word followed by a
    verb ("Reinstall is not needed"), or in French and Spanish an infinitive ("Supprimer le profil
    effacera vos notes"; the imperative is "Supprimez")?"""
    if language in _INFINITIVES and not before and words[start].endswith(_INFINITIVES[language]):
        return True
    if (
        end < len(words)
        # "Het profiel verwijderen wist ...", "Das Gerät zurücksetzen löscht ...": an infinitive after at
        # most a determiner, with a verb after it (an instruction's infinitive ends its clause)
        and (
            (language in ("nl", "de") and words[end - 1].endswith("en") and before.all_in(_DETERMINERS))
            or (language == "pl" and not before and words[start].endswith(("nie", "cie")))  # "Usunięcie"
        )
    ):
        return True
    if before.any_in(_TAKES_A_GERUND):
        return False  # "try resetting": the object of the instruction
    if end < len(words) and language != "en" and consequence(words[end], language):
        return True  # "Zresetować kartę chipową oznaczałoby ...": no instruction is followed by a conditional
    if words[start].endswith("ing") or before.any_in(_BEFORE_A_SUBJECT):
        return True
    after = words[end] if end < len(words) else ""
    return after in _VERBS or after.endswith("n't")


# An infinitive at the head of a clause is its subject in these languages (the imperative differs).
_INFINITIVES = {
    "fr": ("er", "ir", "re", "ar"),
    "es": ("er", "ir", "ar"),
    "it": ("are", "ere", "ire"),
    "pt": ("ar", "er", "ir"),
}
_DETERMINERS = _words("het de een das die der den dem ein eine einen")
_TAKES_A_GERUND = _words("try consider keep start go recommend suggest")
_VERBS = _words(
    """is are was were will would can could may might does did has have had should must won't isn't
    wasn't usually always often never rarely ne n' no nicht est es ist non è é não nao niet helpt
    nie nic jest"""
)


# Words that leave a verb after them an instruction or advice, not a statement of what something does.
_NO_SUBJECT = _words(
    """to please should must can could will would may might 'll do does did don't dont you we i they
    need needs and or then just"""
)
_AUXILIARIES = _words("also automatically")


def _described(verb: str, before: Before) -> bool:
    """A match whose verb is in the third person after its subject: "The button that resets the router",
    "This script resets the router" say what something does. (A past tense, "The update disabled the
    firewall", stays uncertain: it may report what the answer wants done.)"""
    if not verb.endswith("s") or verb.endswith(("ss", "us", "is")):
        return False
    if before.all_in(_AUXILIARIES):
        return False  # no subject
    last = next(w for w in reversed(before) if w not in _AUXILIARIES)
    return last not in _NO_SUBJECT and not before.all_in(_LEADING | _AUXILIARIES)


# "The option to delete the account", "a button to reset the router": a noun named after the action.
_NAMING_HEAD = _words("the a an this that your our its their")
_NOT_A_NAME = _words("need needs have has want wants time best better try is are was be way")


def _named(before: Sequence[str]) -> bool:
    return (
        2 <= len(before) <= 4
        and before[0] in _NAMING_HEAD
        and before[-1] == "to"
        and _NOT_A_NAME.isdisjoint(before)
    )


# What may stand before a subject at the head of its clause: "Note that reinstalling ...", "A reinstall".
_BEFORE_A_SUBJECT = _words(
    "a an the any your this that these those our my note be aware keep in mind warning caution"
)


_LEADING = _LEAD_IN | _BEFORE_A_SUBJECT


def _only_lead_in(before: Before) -> bool:
    return before.all_in(_LEADING)
