"""What doing it brings about, read past a long subject: the action as a subject whose verb comes after
its modifiers ("Repotting the orchid in ordinary compost straight after it has flowered often rots the
roots") says what it can, often or easily do, or what it leads to; and a condition that concedes or looks
back ("Even repotting it every spring, ...", "De haber barnizado el kayak, ...") says what would have
happened all the same. Neither advises, unless it calls the action a help."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.stance.consequences import consequence, helps
from assay_runner.text.stance.words import BETTER, _calls_it_wrong, _negator, _set, _words

# How far after the action its verb may come: a subject's modifiers ("on a humid evening in an unheated
# garage") stand between them.
FAR_WORDS = 16

# What doing it can, often or easily do, or risks, in the eight languages: a possibility, a frequency or
# an ease said of the outcome, not of the action's worth.
_RISK = _set(
    """can may could might often usually frequently typically easily tends risks
    peut peuvent pourrait souvent fréquemment facilement généralement tend risque risquent
    kann können könnte oft häufig meist leicht riskiert
    puede pueden podría suele suelen frecuentemente fácilmente tiende arriesga
    può possono potrebbe spesso facilmente solitamente tende rischia
    pode podem poderia costuma costumam frequentemente facilmente tende arrisca
    kan kunnen kon vaak dikwijls gemakkelijk makkelijk meestal riskeert
    może mogą mogłoby potrafi potrafią bywa często łatwo zwykle zazwyczaj nieraz ryzykuje grozi"""
)
# What it leads to, by its words: "leads to", "ends in", "kończy się", "finisce per", "acaba por".
_LEADS_TO = re.compile(
    r"\b(?:causes?|caused|leads? to|results? in|ends? (?:up|in)|provoque|entraîne|finit par|verursacht|"
    r"führt zu|endet (?:mit|in)|provoca|causa|acaba (?:por|en|com)|termina (?:por|en|com)|porta a|"
    r"finisce (?:per|con)|leva a|veroorzaakt|leidt tot|eindigt (?:in|met)|powoduje|prowadzi do|"
    r"kończy się|skutkuje)\b"
)
# What calls the outcome a gain, per language (stems, so that "stopniach" is no English "stop"):
# improves, extends, protects, keeps, prevents, restores, helps, works, is enough, brings back or
# again ("... can get you back online", "... la fait refleurir": a gain, however it is said).
_GAINS: dict[str, tuple[str, ...]] = {
    language: tuple(stems.split())
    for language, stems in {
        "en": """improv boost extend longer restor protect keep prevent strength stop help work enough suffic
            back again online faster save""",
        "fr": """amélior prolong restaur protèg protég renforc empêch évit préserv aide fonctionn suffi assez
            nouveau retrouv refleur revien""",
        "de": """verbesser verläng schützt schütz stärkt verhinder vermeid bewahr erhält hält hilf funktion
            reicht genügt genug wieder zurück""",
        "es": """mejor prolong alarg refuerz proteg evita impid previen conserv mantien ayud funcion basta
            bastante nuevo vuelv volver""",
        "it": """miglior prolung rinforz protegg imped previen conserv mantien aiut funzion basta abbastanza
            nuovo torn""",
        "pt": """melhor prolong reforç proteg previn mantém preserv conserv ajud funcion basta bastante
            novo volt""",
        "nl": """verbeter verleng versterk beschermt voorkom behoudt houdt helpt werkt volsta genoeg weer
            terug opnieuw""",
        "pl": """poprawi wydłuż przedłuż wzmacni chroni zapobieg utrzym pomag pomoż pomóc dział wystarcz dość
            znów ponown wróc""",
    }.items()
}


def _gains(words: Sequence[str], language: str) -> bool:
    stems = _GAINS.get(language, _GAINS["en"])
    return any(w.startswith(stems) for w in words)


def brings_about(predicate: Sequence[str], language: str) -> bool:
    """Does the predicate after the action (its first `FAR_WORDS` words) say what doing it can, often or
    easily do, or leads to, with no negation on that word and no word of help or gain anywhere in it?
    ("... can leave the coat milky", "... fait souvent pourrir les racines", "... potrafi zostawić
    powłokę"; not "... often helps", "... can extend its life", "... can't be skipped")"""
    words = [w.casefold() for w in predicate[:FAR_WORDS]]
    said = " ".join(words)
    if BETTER.search(said) or helps(said) or _gains(words, language):
        return False
    for at, word in enumerate(words):
        if word in _RISK:
            near = words[max(0, at - 1) : at + 3]
            return not any(_negator(w, language) for w in near)
    return _LEADS_TO.search(said) is not None


# A negated conditional perfect right after the subject: what doing it would not have done, in hindsight
# ("... wouldn't have saved the coping stone", "... n'aurait pas sauvé", "... no habría evitado", "...
# non avrebbe salvato", "... não teria salvado", "... nie uratowałby"; German and Dutch put the negation
# after the auxiliary: "... hätte die Nabe nicht gerettet", "... zou de naad niet hebben gered").
_NOT_IN_HINDSIGHT = re.compile(
    r"^(?:\S+ ){0,2}(?:(?:wouldn't|would not|would never) have|n'aurai(?:en)?t (?:pas|jamais|rien)|"
    r"no (?:habría|hubiera)|non (?:avrebbe|sarebbe)|não (?:teria|teriam|seria)|nie \w+(?:łby|łaby|łoby))\b"
    r"|^(?:\S+ ){0,1}(?:hätte|hätten|wäre|wären|zou|zouden)\b(?: \S+){0,4} (?:nicht|niet|nie|nooit)\b"
)
# "... wouldn't have hurt", "... wouldn't have been a bad idea": a negated harm or fault recommends.
_HARMLESS = re.compile(
    r"\b(?:hurt|harm\w*|bad|mal|schlecht|schaden|daño|male|mau|kwaad|slecht|źle|szkod\w*)\b"
)


def not_in_hindsight(predicate: Sequence[str]) -> bool:
    """Does the predicate say what doing it would not have done ("Draining the pool wouldn't have saved
    the coping stone")? Not when what it denies is harm or a fault ("... wouldn't have hurt")."""
    said = " ".join(w.casefold() for w in predicate[:FAR_WORDS])
    found = _NOT_IN_HINDSIGHT.search(said)
    return found is not None and not _HARMLESS.search(said) and not _calls_it_wrong(predicate[:FAR_WORDS])


# A condition that concedes, opening its sentence: "even", "même (en)", "auch/selbst", "incluso/aun",
# "anche/pur", "mesmo", "ook/zelfs", "nawet", with what may follow it before the action.
_CONCEDING = _set(
    "even même auch selbst sogar incluso aun aún anche pur perfino persino mesmo ook zelfs nawet"
)
_AFTER_CONCEDING = _set(
    """if when after with en avec après si wenn mit nach bei con después si cuando se con dopo
    com depois se quando als met na gdyby jeśli z ze po świeżo freshly fraîchement frisch recién
    gdybyś gdybyście gdybym que"""
)
# A concession that is a clause of its own: "even if", "même si", "selbst wenn", "aun si", "anche se",
# "mesmo que", "ainda que", "ook als", "nawet gdyby(ś)". With the action inside it (no cut between), what
# the main clause says happens all the same, whatever it is, unless it says the action helps.
_CONCESSIVE_IF = _set("if si wenn falls se que als gdyby gdybyś gdybyście gdybym jeśli")
_CONCEDING_ALONE = _set("ainda aunque")  # "Ainda que limpasse ...", "Aunque lo limpiara ..."
# Alone, the particle also means "also" ("Ook de orchidee verpotten zou ik doen"): it concedes only
# before a gerund or a participle ("Even repotting", "Incluso trasplantando", "Pur rinvasando").
_GERUND = re.compile(r"\w+(?:ing|ando|endo|iendo|indo|ado|ido|ato|ito|any|ony|ty|ana|ona)$")
# A condition about the past, inverted or with an infinitive: "Had it been ...", "Avesse ...", "Tivesse
# ...", "De haber ...", "Hätten Sie ...", "Was/Had ... (dan)".
_LOOKING_BACK = re.compile(
    r"^(?:had|avesse|avessi|avessero|fosse|fossi|tivesse|tivessem|fosse|de haber|hätte|hätten|wäre|"
    r"wären|was|waren|had|hadden|gdyby)\b"
)
# "Even just ...": a concession that says how little it takes recommends it.
_JUST = _set(
    """just only simply seulement juste nur bloß alleen maar solo sólo solamente soltanto appena apenas só
    tylko"""
)
# What stays so all the same: "still", "anyway", "quand même", "trotzdem", "igual", "lo stesso", "na
# mesma", "toch", "i tak".
_ALL_THE_SAME = re.compile(
    r"\b(?:still|anyway|all the same|regardless|quand même|tout de même|malgré tout|trotzdem|dennoch|"
    r"immer noch|weiter|igual|igualmente|de todos modos|aun así|lo stesso|comunque|ugualmente|na mesma|"
    r"mesmo assim|igualmente|toch|alsnog|evengoed|i tak|mimo to|tak czy inaczej)\b"
)
_HEAD_WORDS = 6  # "Même en", "Anche con i", "Ook als u de", "Nawet gdyby Pani"


def concedes(head: str, rest: str, language: str) -> bool:
    """The action in a condition that concedes or looks back, at the head of its sentence (`head`: the
    sentence's text before the action, `rest`: after it), whose main clause says what would happen or
    would have happened all the same, and not that it helps ("Even repotting the orchid every spring, the
    leaves would have yellowed", "Anche con i cuscinetti ingrassati, la ruota si sarebbe scaldata lo
    stesso", "Nawet świeżo polakierowany kajak pękłby"; not "Even just varnishing it once a season would
    keep the wood sealed")."""
    words = _words(head)
    if not words or len(words) > _HEAD_WORDS:
        return False
    clause_of_its_own = (
        (words[0] in _CONCEDING and len(words) > 1 and words[1] in _CONCESSIVE_IF)
        or words[0] in _CONCEDING_ALONE
    ) and not re.search(r"[,;:]", head)
    if words[0] in _CONCEDING_ALONE and not clause_of_its_own:
        return False
    if words[0] in _CONCEDING or words[0] in _CONCEDING_ALONE:
        if len(words) > 1 and words[1] not in _AFTER_CONCEDING:
            return False  # "Even so, ...", "Even though ...", "Auch die ..."
        first = _words(rest[:40])[:1]
        if len(words) == 1 and not (first and _GERUND.match(first[0])):
            return False
        if not _JUST.isdisjoint(words):
            return False
    elif not _LOOKING_BACK.match(" ".join(words)):
        return False
    if _speaks_for_itself(words + _words(rest[:_WINDOW_AFTER]), language):
        return False  # "Was het mijn zuurdesem, dan zou ik het voeden": what the writer would do advises
    # the main clause after a comma, or (a participle as the subject) the clause the action is in
    folded = re.split(r"[.;:!?]", rest.casefold())[0]
    own, _, after = folded.partition(",")
    said = _words(folded)
    if not _JUST.isdisjoint(_words(after)[:3]) or BETTER.search(folded) or helps(folded):
        return False
    if _gains(said, language) and not any(_negator(w, language) for w in said):
        # (a negated gain concedes too: "..., l'acqua calda non sarebbe comunque tornata")
        return False
    if clause_of_its_own and after.strip():
        return True  # "Mesmo que trocasse a cabeça da escova todos os meses, a pontuação não mudava"
    return any(
        consequence(part, language) or _ALL_THE_SAME.search(part) or _mesoclisis(part)
        for part in (own, after)
        if part
    )


_WINDOW_AFTER = 160
# The writer's own person: "I'd", "je le ferais", "würde ich", "zou ik", "lo farei", "ja bym".
_FIRST_PERSON = _set(
    """i'd i'll me my mine je j' moi mon ma mes ich mein meine meinen mir yo mi mío mía io mio mia eu meu
    minha ik mijn ja mój moja moje mnie bym"""
)


def _speaks_for_itself(words: Sequence[str], language: str) -> bool:
    """Is the writer the subject ("I", "ich", "ik", "bym", "farei")? "i" is "and" in Polish."""
    if language == "en" and "i" in words:
        return True
    return any(
        w in _FIRST_PERSON or w.startswith("j'") or w.endswith(("rei", "łbym", "łabym", "rais"))
        for w in words
    )


# A Portuguese conditional with its pronoun inside ("ter-se-ia rachado", "partir-se-iam").
_MESOCLISIS = re.compile(r"-(?:se|me|te|nos|vos|lhe|lhes|o|a|os|as)-iam?\b")


def _mesoclisis(main: str) -> bool:
    return _MESOCLISIS.search(main) is not None
