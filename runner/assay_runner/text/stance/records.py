"""A record of what was done: a log, an app's history or a register given as the source of the sentence
the action stands in ("According to the opener's event log, you reset the garage door three times on
Friday", "Laut Ereignisprotokoll haben Sie das Garagentor dreimal zurückgesetzt", "The app history shows
it was descaled on 3 May", "Z historii w aplikacji wynika, że czajnik był odkamieniany 2 marca"). A record
states what happened; it does not advise, so the action in it is not an instruction.

The source must head the sentence, before the action: a record named after a word that gives a source
("according to", "laut", "según", "d'après", "secondo", "segundo", "volgens", "według", "z ... wynika") or
as the subject of a verb of showing ("shows", "zeigt", "muestra", "indique", "riporta", "mostra",
"toont", "pokazuje"). Nothing that leads on may stand between it and the action ("The log shows no reset
since Monday, so reset the garage door tonight" advises), nor a clause break (";", ":", a dash), nor a
verb of obligation ("According to the records, you should reset it yearly").
"""

from __future__ import annotations

import re

from assay_runner.text.stance.words import _set, _words

# Records, by a part of the word (compounds included: "Ereignisprotokoll", "gebeurtenislogboek").
_RECORD = re.compile(
    r"(?:\blogs?\b|logbook|logboek|logbuch|histor|histór|\brecords?\b|journal|protokoll|verlauf|aufzeichnung|"
    r"registr|registo|cronolog|geschiedenis|dziennik|rejestr|\bzapis)",
    re.IGNORECASE,
)
# Words that give a source, and verbs of showing, in the eight languages.
# (Not "nach": "Nach dem Update die Protokolldatei prüfen und ..." instructs; "pelo" only at the head:
# "Pelo histórico da aplicação, ...", not "Comece pelo registo e ...".)
_SOURCE = _set(
    """according laut gemäß zufolge según conforme d'après selon secondo stando risulta risultano segundo
    acordo volgens według wynika wedle"""
)
_SOURCE_AT_THE_HEAD = _set("pelo pela")
_SHOWING = (
    *("show", "indicat", "record", "note", "list", "say", "says", "zeig", "vermerk", "verzeichn", "steht"),
    *("ergibt", "muestr", "indic", "consta", "figura", "registr", "montr", "indiqu", "mentionn", "affich"),
    *("riport", "mostr", "segnal", "toon", "vermeld", "staat", "pokazuj", "wskazuj", "odnotow", "widać"),
)
# What leads on from the record to advice ("..., so reset it tonight", "por isso", "per cui").
_LEADING_ON = _set(
    """so therefore then please donc alors also daher deshalb dann bitte así entonces luego favor eso quindi
    allora perciò poi favore cui então portanto depois isso dus daarom dan alstublieft więc dlatego potem
    proszę"""
)
# Obligation and advice: should, must, need, have to, ought, sollten, müssen, devez, faut, debe, hay que,
# deve, bisogna, tem de, moet, hoeft, należy, powinien, trzeba, musi (stems, and words too short for one).
_OBLIGATION = (
    *("should", "must", "need", "ought", "recommend", "advis", "soll", "müss", "muss", "devez", "devriez"),
    *("devrait", "faut", "debe", "deberí", "bisogn", "occorr", "dovrebbe", "dovete", "precis", "moet"),
    *("hoef", "należ", "powin", "trzeb", "musi", "musisz", "warto"),
)
_OBLIGATION_WORDS = _set("deve devi hay tem têm zou zouden")
_HAVE_TO = re.compile(r"\b(?:have|has|had)\s+to\b|\btiene[sn]?\s+que\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[;:—–]|\s-\s")
_HEAD_WORDS = 30  # a source heads its sentence
# Characters before the action a record's source may take: a match further in is read without it, so a
# clause of thousands of matches is not scanned from its head for each (the judge stays linear).
RECORD_HEAD = 400


def recorded(head: str) -> bool:
    """Does the sentence's text before the action (`head`) give a record as its source, with nothing
    that leads on to advice after it?"""
    found = _RECORD.search(head)
    if found is None:
        return False
    words = _words(head)
    if len(words) > _HEAD_WORDS:
        return False
    rest = head[found.start() :]
    after = _words(rest)
    if not _LEADING_ON.isdisjoint(after) or _CLAUSE_BREAK.search(rest):
        return False
    if any(w.startswith(_OBLIGATION) for w in after[1:]) or not _OBLIGATION_WORDS.isdisjoint(after):
        return False
    if _HAVE_TO.search(rest):
        return False
    sourced = not _SOURCE.isdisjoint(words) or words[0] in _SOURCE_AT_THE_HEAD
    return sourced or any(w.startswith(_SHOWING) for w in after[1:])
