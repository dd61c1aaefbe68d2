"""Lines that call their whole list futile: a heading or an introducing line that says no item of the list
it introduces helps ("### None of these gets rid of the smell", "The beeping won't stop with any of these:",
"Gegen die Kuhle hilft leider keiner dieser Punkte", "Żadna z tych metod nie usunie zapachu") or that the
problem stays whichever item is tried ("The smell stays, whichever of these you try", "L'odeur restera,
quelle que soit la solution", "De geur blijft, welke oplossing u ook kiest"). Such a line negates its list
like "Do not:" does (`sentences.negating_intro`).

Both shapes are read narrowly, because a line that still introduces advice must not clear its list:
- the "none of these" shape needs a verb of fixing or getting rid of something in the line's last clause
  ("None of these takes more than a minute:" and "Nada disto exige a oficina:" introduce steps), and not
  one whose object is the customer's own ("None of these erases your photos" reassures);
- the "whichever" shape needs the problem said to stay before the concessive ("The smell stays,
  whichever ..."); a line that opens with it ("Whichever model you have, do this:") is not read.
A question ("None of these worked?") or a condition ("If none of that helped, ...:") is neither.

The other way round, a line that opens with "none of these" may reassure about its list instead of
negating it (`reassures_of_list`): "None of these takes long:", "Nada disto exige a oficina:", "None of
these erases your photos:" introduce steps.
"""

from __future__ import annotations

import re
from functools import lru_cache

from assay_runner.text.stance.words import _SUBORDINATORS, _bare, _set, _words

# "None of", "nothing of", "not one of" what the line points at, anywhere in the clause ("mit keinem dieser
# Schritte", "con nessuna di queste operazioni", "po żadnym z tych kroków", "rien de tout cela").
_NONE_OF = re.compile(
    r"\b(?:none|neither|nothing|not\s+(?:a\s+single\s+)?one|keine[mnrs]?|keins|nichts|aucune?|rien|ningun[oa]|"
    r"nada|nessun[oa]?|niente|nulla|nenhum[a]?|geen|niets|żaden|żadn\w*|nic)\s+(?:of|de|des|du|d'|di|della|delle|"
    r"dei|degli|van|von|davon|hiervon|daarvan|hiervan|ervan|dieser|diesen|disto|disso|destes|destas|desses|"
    r"dessas|do|da|dos|das|z|ze|spośród|quanto|lo|ce|tout)\b",
    re.IGNORECASE,
)
# English says the same with a negated verb and "any of these" ("won't budge for any of these", "isn't
# something either of them fixes").
_ANY_OF = re.compile(r"\b(?:any|either)\s+(?:one\s+)?of\s+(?:these|those|them|this|the\s+following)\b", re.I)
_ENGLISH_NEGATION = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)
# Verbs of fixing, ending or getting rid of something, by stem, in the eight languages.
_FIXING = (
    *("help", "fix", "solv", "resolv", "cure", "cures", "improv", "budg", "restor", "undo", "work", "stop"),
    *("disappear", "vanish", "eras", "remov", "eliminat", "get rid", "gets rid", "go away", "goes away"),
    *("aid", "répar", "résou", "résol", "régl", "arrêt", "cess", "supprim", "effac", "enlèv", "enlev"),
    *("dispar", "march", "fonctionn", "amélior", "corrig", "élimin", "partir"),
    *("hilf", "helf", "beheb", "behob", "lös", "bring", "beseitig", "entfern", "stopp", "reparier"),
    *("verschwind", "wirk", "funktionier", "verbesser", "aufhör", "hört"),
    *("arregl", "solucion", "resuelv", "quit", "elimin", "irá", "desaparec", "funcion", "sirve", "ayud"),
    *("mejor", "acab", "parar"),
    *("aiut", "risolv", "sistem", "ripar", "togli", "toglie", "togl", "spari", "funzion", "serve", "serva"),
    *("corregg", "miglior", "smett"),
    *("ajud", "repar", "tirar", "tira", "tirará", "melhor"),
    *("oplos", "lost", "verhelp", "haalt", "haal", "neemt", "verwijder", "stopt", "houdt", "werkt"),
    *("verbeter", "verdwijn", "repareer"),
    *("pomo", "napraw", "rozwiąż", "rozwiąz", "usun", "znik", "zlikwid", "dział", "popraw", "ustan"),
    *("zdejm", "przestan", "lecz", "wylecz", "heal", "guér", "guer"),
)
# The customer's own things after the verb: "None of these erases your photos" reassures, it does not
# call the list futile.
_OWNERS = _set(
    """your vos votre ton tes ihre ihren ihrem ihrer dein deine deinen su sus tu tus suo sua suoi seu sua
    seus suas uw je jouw twoje twój pana pani"""
)
_OWNER_WORDS = 3  # how far after the verb the owner is looked for
# Saying that whatever is tried changes nothing: whichever, no matter which, quelle que soit, egal welche,
# sea cual sea, qualunque, seja qual for, welke ... ook, którykolwiek, bez względu na.
_WHICHEVER = re.compile(
    r"\b(?:whichever|whatever|no\s+matter\s+(?:which|what|how)|regardless\s+of|quel(?:le)?s?\s+que\s+soi|"
    r"peu\s+importe|quoi\s+que|n'importe\s+(?:le|la|quel)|egal\s+(?:welch|was|ob)|gleich(?:gültig)?\s+welch|"
    r"ganz\s+gleich|sea[n]?\s+(?:cual|cuales)\s+sea|haga\s+lo\s+que\s+haga|da\s+igual|no\s+importa|"
    r"qualunque|qualsiasi|non\s+importa|seja[m]?\s+(?:qual|quais)\s+(?:for|forem)|faça\s+o\s+que\s+fizer|"
    r"não\s+importa|welk\w*\s+(?:\w+\s+){0,5}ook|wat\s+(?:\w+\s+){0,5}ook|ongeacht|\w+kolwiek|"
    r"bez\s+względu|niezależnie\s+od)",
    re.IGNORECASE,
)
# Staying, going on, still: the problem the concessive says nothing changes.
_STAYING = (
    *("stay", "remain", "keep", "persist", "continu", "still", "reste", "rester", "restera", "toujours"),
    *("encore", "bleib", "weiter", "besteh", "immer", "segui", "sigue", "qued", "riman", "rimarr", "resta"),
    *("ancora", "fica", "ficar", "ficará", "mantém", "manter"),
    *("permanec", "blijf", "blijv", "aanhoud", "zostan", "zostaje", "pozosta", "dalej", "nadal", "wciąż"),
)
_CLAUSE_CUT = re.compile(r"[,;(\u2014\u2013]|\s-\s")
_SENTENCE_CUT = re.compile(r"[.!?]\s+")
_LINE_CHARACTERS = 120  # a heading or an introducing line, not a paragraph that ends in a colon


@lru_cache(maxsize=1024)
def calls_futile(text: str, heading: bool = False) -> bool:
    """Does this line (a heading when `heading`) say that no item of the list it introduces helps?"""
    line = text.strip().replace("\u2019", "'")
    if len(line) > _LINE_CHARACTERS or not (line.endswith(":") or heading) or "?" in line:
        return False
    sentence = _SENTENCE_CUT.split(line.rstrip(":").strip())[-1]
    words = _words(sentence)
    if not words or words[0] in _SUBORDINATORS:
        return False
    clauses = [c for c in _CLAUSE_CUT.split(sentence) if _words(c)]
    while len(clauses) > 1 and _sentence_adverb(clauses[-1]):
        clauses.pop()  # "None of these stops the sag, sadly"
    last = clauses[-1]
    said_of_all = _NONE_OF.search(last) or (_ANY_OF.search(last) and _ENGLISH_NEGATION.search(last))
    if said_of_all and _fixes(last) and not reassures_of_list(last):
        return True  # not "None of these requires any work:"
    return _stays_whichever(sentence)


def _sentence_adverb(clause: str) -> bool:
    """A last clause that only comments ("sadly", "leider", "I'm afraid"), not one that leads on ("so",
    "donc", "więc") or tells what to do ("try this"): "None of the usual fixes worked, so:" and "None of
    these helps, try this:" introduce what to do next."""
    words = _words(clause)
    return bool(words) and all(w in _COMMENTS for w in words)


# Words that comment on a line rather than add to it: regret, frankness.
_COMMENTS = _set(
    """sadly unfortunately alas regrettably honestly frankly really i'm i am afraid fear leider ehrlich
    gesagt hélas malheureusement franchement purtroppo sinceramente lamentablemente desgraciadamente
    infelizmente helaas jammer eerlijk gezegd niestety szczerze mówiąc"""
)


def _fixes(clause: str) -> bool:
    """A verb of fixing or getting rid of something whose object is not the customer's own."""
    words = [_bare(w) for w in _words(clause)]
    folded = " ".join(words)
    for at, word in enumerate(words):
        pair = f"{word} {words[at + 1]}" if at + 1 < len(words) else word
        if word.startswith(_FIXING) or pair.startswith(_FIXING):
            return _OWNERS.isdisjoint(words[at + 1 : at + 1 + _OWNER_WORDS])
    return any(phrase in folded for phrase in _FIXING if " " in phrase)


def _stays_whichever(sentence: str) -> bool:
    """ "The smell stays, whichever of these you try": the concessive after a clause that says it stays."""
    found = _WHICHEVER.search(sentence)
    if found is None:
        return False
    before = _words(sentence[: found.start()])
    # not the line's first word, nor after "please" alone: "Keep these in order, whatever you do:" advises
    return any(_bare(w).startswith(_STAYING) for w in before[1:]) and before[0] not in _POLITE


_POLITE = _set("please bitte proszę alstublieft graag just simply then dann puis luego poi depois dan potem")


# What a "none of these" line says the list does not cost or need, by stem: time, money, effort, a
# requirement, risk, or being optional (then every item is needed): takes, lasts, costs, needs, requires,
# exige, nécessite, dauert, kostet, braucht, nötig, lleva, cuesta, necesita, richiede, costa, demora,
# precisa, duurt, kost, vereist, nodig, trwa, kosztuje, wymaga, potrzeba; risky, hard, optional.
_EASE = (
    *("take", "last", "cost", "need", "requir", "demand", "skip", "void", "harm", "damag", "risk"),
    *("danger", "hard", "difficult", "complicat", "optional", "exig", "nécessit", "prend", "coût"),
    *("dangereu", "compliqu", "facultati", "optionnel", "dauer", "koste", "brauch", "erforder", "nötig"),
    *("gefähr", "schwer", "schwierig", "kompliziert", "lleva", "cuest", "necesit", "requier", "peligr"),
    *("difícil", "opcional", "richied", "costa", "pericol", "opzional", "facoltativ", "demor", "precis"),
    *("leva", "custa", "perig", "duurt", "kost", "vereist", "nodig", "gevaar", "moeilijk", "ingewikkeld"),
    *("optioneel", "trwa", "koszt", "wymag", "potrzeb", "niebezpiecz", "trudn", "skomplikowan"),
    *("opcjonaln",),
)


# A copula just before the word makes it say the items are not needed: "is needed", "ist nötig".
_COPULAS = _set("is are be been ist sind est sont es son è sono é são jest są zijn wird werden")
_COPULA_WORDS = 2  # "ist hier nötig", "nie jest potrzebne"


@lru_cache(maxsize=1024)
def reassures_of_list(text: str) -> bool:
    """Does a line that says "none of these" say it of what the list costs, needs or risks, or of the
    customer's own things ("None of these takes long:", "Keiner dieser Schritte dauert lange:", "None of
    these erases your photos:")? Then the line introduces the list; it does not negate it."""
    words = [_bare(w) for w in _words(text)]
    for at, word in enumerate(words):
        if word.startswith(_EASE):
            # "None of the following is needed:", "Nic z tego nie jest potrzebne:": no item is needed
            return _COPULAS.isdisjoint(words[max(0, at - _COPULA_WORDS) : at])
        if word.startswith(_FIXING) and not _OWNERS.isdisjoint(words[at + 1 : at + 1 + _OWNER_WORDS]):
            return True
    return False
