"""A heading's polarity: a short line ending in ":" whose own predicate is negated negates its list; a
heading without one negates the bare items under it (`sentences._bare_item`)."""

from __future__ import annotations

from functools import lru_cache

from assay_runner.text.language import detect
from assay_runner.text.reversers import reversed_frame
from assay_runner.text.stance.words import _RESTART, _SUBORDINATORS, _negator, _set, _words

# ---------------------------------------------------------------------------------------------- headings

_HEADING_WORDS = 10


@lru_cache(maxsize=1024)
def heading_negates(text: str, language: str) -> bool:
    """A short line ending in ":" whose own predicate is negated ("N'essayez surtout pas ce qui suit :",
    "Probeer het volgende alstublieft niet:"): its list is what not to do. Not a condition ("If it does
    not start:"), a negated reversing verb ("Don't hesitate to:"), nor a line that says more than one thing
    ("Not sure? Try these:")."""
    line = text.strip()
    if not line.endswith(":") or any(mark in line[:-1] for mark in ".?!;"):
        return False
    words = _words(line)
    if len(words) > _HEADING_WORDS or not words or words[0] in _SUBORDINATORS:
        return False
    if verb_first_condition(words, language) or words[0] in _SO_THAT:
        return False  # "Startet die App immer noch nicht:", "Zodat de app uw accu niet leegtrekt:"
    if advises_against(_words(line.rsplit(",", 1)[-1])):
        return True  # "Ce que nous déconseillons :", "Cosa sconsigliamo:", "Things we advise against:"
    if avoids(_words(line.rsplit(",", 1)[-1])):
        return True  # "Meglio evitare:", "Bitte vermeiden:", "Lepiej unikać:"
    if len(words) < _HEADING_LEAST:
        return False
    if not _RESTART.isdisjoint(words):
        return False
    # The clause that introduces the list is the last one: "Ninguna funcionó, así que:" negates what was
    # tried, not what follows; "Por favor, no pruebe nada de lo siguiente:" negates what follows.
    last = _words(line.rsplit(",", 1)[-1])
    if not _NEEDLESS.isdisjoint(last):
        return True  # "Inutile dans votre cas :", "W Pana przypadku niepotrzebne:"
    negations = [w for w in last if _negator(w, language)]
    if not negations or (language == "pt" and negations == ["no"]):
        return False
    return _REASSURES.isdisjoint(words) and not reversed_frame(line, language)


def verb_first_condition(words: list[str], language: str) -> bool:
    """German and Dutch put a condition's finite verb first, without "wenn" or "als": "Startet die App
    immer noch nicht:", "Maakt de VPN nog steeds geen verbinding:" (then what to do). A finite verb in the
    third person ends in "t" and a subject follows it; an imperative does not ("Probeer het volgende
    niet:") or is followed by "Sie" ("Probieren Sie Folgendes nicht:")."""
    if language not in _VERB_FIRST or len(words) < _VERB_FIRST_LEAST:
        return False
    first, second = words[0], words[1]
    return first.endswith("t") and first not in _NOT_VERBS and second in _VERB_FIRST[language]


# The subjects that follow a verb-first condition's verb: articles and third-person pronouns.
_VERB_FIRST = {
    "de": _set("der die das den dem des es er ihr man ihre dein deine"),
    "nl": _set("de het dat die hij ze zij men uw je jouw"),
}
_VERB_FIRST_LEAST = 3  # words: a verb, its subject and what is said of it
# Words ending in "t" that are not verbs: "Nicht die ...", "Jetzt die Schritte:", "Eerst de ...".
_NOT_VERBS = _set(
    """nicht jetzt erst zuerst selbst sonst meist nichts bitte niet net nu eerst straks echt tot wat dat
    met want"""
)
# A purpose clause opens the line: what follows is how to get there, not what to avoid.
_SO_THAT = _set("zodat opdat sodass damit")


# "Don't worry:", "Don't panic:", "No problem:": a negation that reassures before advice.
_REASSURES = _set(
    """worry worries panic problem hesitate forget fear afraid panique souci soucis inquiétude sorge sorgen
    panik problem pánico problema preocupe preocupes panico paura preoccupi pânico preocupação zorgen zorg
    paniek probleem obaw paniki problemu martw"""
)
_HEADING_LEAST = 3  # "Pas de panique :", "Keine Sorge:": a two-word line with a negation reassures


# Advising against, by stem in the eight languages: déconseiller, desaconsejar, sconsigliare,
# desaconselhar, abraten, afraden, ontraden, odradzać; in English a verb of advising before "against".
_AGAINST = (
    *("déconseill", "deconseill", "desaconsej", "sconsigli", "desaconselh", "abrat", "abgerat", "afrad"),
    *("ontrad", "odradz"),
)
_ADVISING = ("advis", "recommend", "warn", "caution", "counsel")


def advises_against(words: list[str]) -> bool:
    """Does a heading advise against what it introduces ("Things we advise against:", "Wat wij afraden:")?"""
    if any(w.startswith(_AGAINST) for w in words):
        return True
    return "against" in words and any(w.startswith(_ADVISING) for w in words[: words.index("against")])


# Verbs of avoiding, by stem: avoid, éviter, evitar, evitare, vermeiden, vermijden, unikać; and what makes
# one a purpose rather than advice ("Pour éviter toute perte :", "To avoid data loss:").
_AVOIDING = ("avoid", "évit", "evit", "vermeid", "vermied", "vermijd", "unik")
_PURPOSE = _set("to in order para pour afin per um om aby żeby by zum")


def avoids(words: list[str]) -> bool:
    """Does a heading tell the reader to avoid what it introduces ("Meglio evitare:", "À éviter :")?"""
    at = next((i for i, w in enumerate(words) if w.startswith(_AVOIDING)), None)
    return at is not None and _PURPOSE.isdisjoint(words[:at])


# What a heading may call needless, in the eight languages.
_NEEDLESS = _set(
    """unnecessary needless pointless useless inutile inutiles superflu superflue innecesario innecesarios
    innecesaria inútil superfluo superflua desnecessário desnecessária desnecessario onnodig nutteloos
    overbodig unnötig überflüssig sinnlos zbędne niepotrzebne niepotrzebny zbyteczne"""
)


def heading_without_colon_negates(text: str) -> bool:
    """A heading that ends without a colon, read as `heading_negates` reads a line that ends in one
    ("### Never on a sealed acrylic rim", "### Nada de esto mientras dure la garantía"). Its negation may
    be of a worry ("### Nothing complicated", "### No workshop needed") above instructions, so it is read
    only over bare items (`sentences._bare_item`), never over sentences that instruct."""
    line = text.replace("\u2019", "'").strip()
    if not line or len(line) > _HEADING_CHARACTERS or line.endswith((".", "!", "?", ":")):
        return False
    words = _words(line)
    if not _STILL.isdisjoint(words) or any(w in _WORKS or w.startswith(_WORKING) for w in words):
        return False  # "### Still not working": a symptom, then what to do about it
    if all(_negates_a_noun(words, i) for i, w in enumerate(words) if w in _HEADING_NEGATORS):
        return False  # "### No time to lose", "### Nothing else is needed": not what the list holds
    if not _NEEDLESS.isdisjoint(words):
        return False  # "### Pas inutile du tout avant l'été": a negated "needless" asks for the list
    return heading_negates(line + ":", detect(line))


_HEADING_CHARACTERS = 100  # a heading, not a paragraph


def _negates_a_noun(words: list[str], at: int) -> bool:
    """Is the negating word at `at` a determiner of a noun other than the list ("no time", "kein
    Grund", "nothing else"), not "none of these", "nada de esto", "not", "nie", "nunca"?"""
    word, after = words[at], words[at + 1] if at + 1 < len(words) else ""
    if word in _NEGATING_DETERMINERS:
        return after not in _OF
    return word in _NEGATING_PRONOUNS and after in _ELSE


# The negating words of a heading, in the eight languages.
_HEADING_NEGATORS = _set(
    """not no never none nothing don't won't doesn't isn't can't ne pas jamais rien aucun aucune nicht nie
    nichts kein keine keinen niemals nunca nada ningún ninguna ninguno non mai niente nulla nessun nessuna
    nessuno não nenhum nenhuma niet nooit niets geen nigdy nic żaden żadna żadne żadnych"""
)
_NEGATING_DETERMINERS = _set(
    "no aucun aucune kein keine keinen ningún ninguna nessun nessuna nenhum nenhuma geen żaden żadna żadne"
)
_NEGATING_PRONOUNS = _set("nothing none rien nichts nada niente nulla niets nic")
_OF = _set("of de des du d' von der dieser van z ze di dei delle degli della do da dos das")
_ELSE = _set("else more other sonst mehr anderes más otra otro altro altra mais outra outro anders inne")
_STILL = _set("still toujours immer noch steeds todavía sigue ancora ainda nadal wciąż")
_WORKS = _set("work works working werkt marche")  # whole words: "worktop" is no "work"
_WORKING = ("funktion", "fonctionn", "funcion", "funzion", "dział")
