"""Lines that set their list aside: a heading or an introducing line whose last clause forbids what follows
("Off-limits on managed laptops", "### Verboden op beheerde laptops") or tells the reader to skip it, leave
it out or keep away from it ("..., so leave them out:", "Solange die IT nicht draufgeschaut hat, bitte
unterlassen:", "Kroki do pominięcia:"). Such a line negates its list like "Do not:" does
(`sentences.negating_intro`).

The line is read from its last clause, the one that introduces the list: a clause of time or reason before
it ("While the audit runs, ...", "Tant que ..., ...") does not change what the list is, and a clause of
irrelevance before it ("The slow Wi-Fi has nothing to do with these, so ...") only gives the reason. What
keeps a line from setting its list aside: a negation before the word ("Don't skip these:", "Nothing here is
off-limits:"), a purpose ("To skip the wizard:"), a last clause that is itself a condition ("If you skip
them:"), and for a heading without a colon, an error's name ("### 403 Forbidden").
"""

from __future__ import annotations

import re
from functools import lru_cache

from assay_runner.text.language import detect
from assay_runner.text.stance.headings import heading_negates
from assay_runner.text.stance.words import _SUBORDINATORS, ALL_NEGATORS, _bare, _negator, _set, _words

# Words that forbid, by stem, in the eight languages: forbidden, prohibited, banned, off-limits, taboo,
# interdit, à proscrire, verboten, untersagt, unzulässig, prohibido, vetado, vietato, proibito, proibido,
# interdito, verboden, zabronione, zakazane, niedozwolone.
_FORBIDDING = (
    *("forbid", "prohibit", "banned", "offlimit", "taboo", "tabu", "taboe"),
    *("interdit", "proscri", "verbot", "untersag", "unzuläss", "prohib", "vetad", "vietat", "proibi"),
    *("verboden", "zabron", "zakaz", "niedozwol"),
)
# Verbs that leave something out, by stem: skip, omit, ignore, refrain, abstain, forget (about), sauter,
# ignorer, s'abstenir, oublier, überspringen, weglassen, auslassen, unterlassen, ignorieren, vergessen,
# saltar(se), omitir, abstenerse, olvidar(se), saltare, tralasciare, omettere, astenersi, dimenticare,
# saltar, omitir, abster-se, esquecer, overslaan, weglaten, negeren, vergeten, pominąć, pomijać,
# zignorować, darować (sobie), odpuścić, zapomnieć.
_LEAVING_OUT = (
    *("skip", "omit", "ignor", "refrain", "abstain", "forget", "saut", "absten", "abstien", "oubli"),
    *("überspring", "weglass", "auslass", "unterlass", "vergess", "salt", "olvid", "olvíd"),
    *("tralasci", "omett", "asten", "dimentic", "abster", "esquec", "overslaan", "overgesla", "weglat"),
    *("weggelat",),
    *("negeer", "negeren", "vergeet", "vergeten", "pomiń", "pomin", "pomij", "zignor", "darow", "daruj"),
    *("odpuść", "odpuśc", "zapomn"),
)
# The same said in several words: leave them out / alone / aside, keep away, steer clear, hands off, de
# côté, laisser tomber, bleiben lassen, Finger davon, de lado, lasciare stare / perdere, da parte, sla ...
# over, laat ... liggen, achterwege, blijf ... af, w spokoju.
_LEAVING_OUT_PHRASE = re.compile(
    r"\bleave\b(?:\s+\w+){0,3}?\s+(?:out|alone|aside|be)\b|\b(?:keep|stay|steer)\s+(?:well\s+)?(?:away|clear)\b"
    r"|\bhands\s+off\b|\bset\b(?:\s+\w+){0,2}?\s+aside\b|\bde\s+c[ôo]t[ée]\b|\blaiss\w*\s+tomber\b"
    r"|\b(?:bleiben|sein)\s+lassen\b|\blass\w*\b(?:\s+\w+){0,3}?\s+(?:bleiben|sein|weg)\b|\bfinger\s+(?:weg|davon)\b"
    r"|\bh[äa]nde\s+weg\b|\bde\s+lado\b|\blasci\w*\s+(?:stare|perdere)\b|\bda\s+parte\b"
    r"|\bsla\w*\b(?:\s+\w+){0,3}?\s+over\b|\blaat\b(?:\s+\w+){0,3}?\s+(?:liggen|zitten|rusten)\b|\bachterwege\b"
    r"|\bblijf\w*\b(?:\s+\w+){0,3}?\s+af\b|\bw\s+spokoju\b",
    re.IGNORECASE,
)
# Forbidding in words: off-limits, no-go.
_FORBIDDING_PHRASE = re.compile(r"\boff[-\s]limits?\b|\bno[-\s]go\b", re.IGNORECASE)
# A clause that opens with "none of" or "nothing of" what it points at ("nada de esto", "niente di tutto
# ciò", "nichts davon", "żadnego z nich").
_NOTHING_OF = re.compile(
    r"^\W*(?:none|nothing|neither|nada|nichts|keine[rsn]?|rien|aucune?|niente|nulla|nessun[oa]?|nenhum|nenhuma|"
    r"ninguno|ninguna|geen|niets|żadn\w*|nic)\s+(?:of|de|des|du|d'|di|della|delle|dei|degli|van|hiervan|"
    r"daarvan|von|davon|hiervon|dieser|disso|disto|dos|das|z|ze|spośród)\b",
    re.IGNORECASE,
)
# What makes "skip" move the reader on instead of leaving something out ("Skip to step 3:", "Springen").
_MOVING_ON = _set("to ahead straight forward directly")
# An error's name: "### 403 Forbidden", "### Access forbidden error" is a problem, not a ban.
_ERROR_NAME = re.compile(
    r"\d|\b(?:error|erreur|fehler|errore|erro|fout|błąd|access|accès|zugriff|acceso)\b", re.IGNORECASE
)
# A clause opened by one of these says what for ("To skip the wizard:", "Om de wizard over te slaan:").
_PURPOSE_OPENERS = _set("to pour afin para per um om aby żeby zum zur")
_CLAUSE_CUT = re.compile(r"[,;(\u2014\u2013]|\s-\s")
_SENTENCE_CUT = re.compile(r"[.!?]\s+")
_LINE_CHARACTERS = 100  # a heading or an introducing line, not a paragraph that ends in a colon


@lru_cache(maxsize=1024)
def sets_aside(text: str, heading: bool = False) -> bool:
    """Does this line (a heading when `heading`) forbid, skip or set aside the list it introduces?"""
    line = text.strip()
    if len(line) > _LINE_CHARACTERS or not (line.endswith(":") or heading):
        return False
    sentence, clause = _last_clause(line)
    if sentence.endswith(("?", ".", "!")):
        return False
    if _defers(sentence):
        return True  # "Shelve all of this until the new element ships:", "Z tym wszystkim proszę poczekać do"
    words = _words(clause)
    if not words or words[0] in _SUBORDINATORS or words[0] in _PURPOSE_OPENERS:
        return False
    if heading and not line.endswith(":"):
        return _forbids(clause, words) and not _ERROR_NAME.search(line)
    if _forbids(clause, words) or _leaves_out(words) or _leaves_out_in_words(clause):
        return True
    opening = _words(_CLAUSE_CUT.split(sentence)[0])
    if clause == sentence or not opening or opening[0] not in _SUBORDINATORS:
        return False
    # After a clause of time, reason or condition, the last clause is the one that says what to do with the
    # list: "Dopóki dział IT tego nie sprawdzi, proszę nie ruszać:", "Mientras ..., nada de esto:".
    return bool(_NOTHING_OF.search(clause)) or heading_negates(clause.strip() + ":", detect(clause))


# Waiting, holding off, putting off, by stem: wait, hold off, shelve, park, pause, postpone, attendre,
# patienter, warten, ruhen, zurückstellen, verschieben, esperar, aparcar, aplazar, aspettare, rimandare,
# sospendere, aguardar, adiar, wachten, uitstellen, (laten) liggen, czekać, wstrzymać się, odłożyć.
_WAITING = (
    *("wait", "hold off", "shelve", "park", "pause", "postpon", "put off", "attend", "attente", "patient"),
    *("wart", "ruh", "zurückstell", "aufschieb", "verschieb", "esper", "aparc", "aplaz", "pospon", "aspett"),
    *("rimand", "rinvi", "sospend", "aguard", "adie", "adiar", "wacht", "uitstel", "liggen"),
)
_WAITING_PL = ("czek", "poczek", "wstrzym", "odłóż", "odłoż")
_UNTIL = _set("until till jusqu jusque bis hasta finché fino até tot aż dopóki")
# What points at the list: this, these, all of it.
# (Not the articles and conjunctions "das", "die", "dat", "that", "to": "Wait to reset it until ...".)
_THE_LIST = _set(
    """this these those all everything every ceci cela ça tout tous toutes dies diese alles damit davon esto
    eso estos estas todo todos questo questi queste tutto tutti isto isso estes estas tudo todos dit deze
    allemaal hiermee daarmee tym tego tych wszystkim wszystko tymi"""
)
_THEN = _set("then so dann also puis alors luego entonces poi quindi depois então dan dus potem więc")


def _defers(sentence: str) -> bool:
    """Does the line put its list off until later ("Shelve all of this until the new element ships",
    "Alles davon ruht, bis ...", "Fica tudo em espera até ...", "Z tym wszystkim proszę poczekać do
    ...")? Something must point at the list before the "until", and nothing may lead on after it ("Wait
    until the light blinks, then:" introduces steps)."""
    words = _words(sentence)
    for at, word in enumerate(words):
        polish = word.startswith(_WAITING_PL)
        pair = f"{word} {words[at + 1]}" if at + 1 < len(words) else word
        if not (polish or word.startswith(_WAITING) or pair.startswith(_WAITING)) or not _free(words[:at]):
            continue
        until = _UNTIL | ({"do"} if polish else set())
        ends = [k for k, w in enumerate(words) if w.split("'")[0] in until]  # "jusqu'à"
        if ends and not _THE_LIST.isdisjoint(words[: ends[0]]) and _THEN.isdisjoint(words[ends[0] :]):
            return True
    return False


@lru_cache(maxsize=1024)
def keeps(text: str) -> bool:
    """Does this introducing line tell the reader not to leave its list out ("Don't skip these:", "N'oubliez
    pas ces étapes :", "Sla deze stappen niet over:", "Proszę nie pomijać tych kroków:")? A negated verb of
    leaving out asks for what follows; the line's negation must not be read as negating the list."""
    line = text.strip()
    if len(line) > _LINE_CHARACTERS:
        return False
    clause = _last_clause(line)[1]
    words = _words(clause)
    if not any(_bare(w).startswith(_LEAVING_OUT) for w in words) and not _LEAVING_OUT_PHRASE.search(
        _folded(clause)
    ):
        return False
    return any(_negated(w) or _negated_word(w) for w in words)


def _last_clause(line: str) -> tuple[str, str]:
    """The line's last sentence and that sentence's last clause: the one that introduces the list."""
    sentence = _SENTENCE_CUT.split(line.rstrip(":").strip())[-1]
    return sentence, _CLAUSE_CUT.split(sentence)[-1]


def _folded(text: str) -> str:
    return text.casefold().replace("\u2019", "'")


def _forbids(clause: str, words: list[str]) -> bool:
    at = next((i for i, w in enumerate(words) if _bare(w).startswith(_FORBIDDING)), None)
    if at is not None:
        return _free(words[:at])
    found = _FORBIDDING_PHRASE.search(clause)
    return found is not None and _free(_words(clause[: found.start()]))


def _leaves_out(words: list[str]) -> bool:
    for at, word in enumerate(words):
        if _bare(word).startswith(_LEAVING_OUT) and _free(words[:at]) and not _negated_word(word):
            return not _MOVING_ON.intersection(words[at + 1 : at + 2])
    return False


def _leaves_out_in_words(clause: str) -> bool:
    found = _LEAVING_OUT_PHRASE.search(_folded(clause))
    return found is not None and _free(_words(clause[: found.start()]))


def _free(before: list[str]) -> bool:
    """No negation before the word: "Don't skip these:", "Nothing here is off-limits:"."""
    return not any(_negated(w) for w in before)


def _negated(word: str) -> bool:
    """A negator in any of the eight languages ("don't", "nicht", "nie", "não")."""
    return _negator(word, "en") or word in ALL_NEGATORS


def _negated_word(word: str) -> bool:
    """French elides its negation into the verb: "n'oubliez", "n'ignorez"."""
    return word.startswith("n'")
