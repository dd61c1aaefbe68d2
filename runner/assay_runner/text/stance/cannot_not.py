"""A negated possibility over a negated action: "You can't not wax it", "il n'est pas pensable de ne pas
farter le snowboard", "no hay forma de no encerarlo", "non c'è modo di non sciolinarlo", "não há hipótese
de não o encerar", "nie ma mowy, żeby nie woskować deski", "es ist undenkbar, das Snowboard nicht zu
wachsen", "pas question de partir sans farter le snowboard". The two negations cancel: it must be done.
So does a negated saying that it is not to be done ("No instructor would tell you not to rinse it",
"Ningún monitor le diría que no hace falta enjuagarlo"), but not one that it was not done ("Nobody would
say you haven't rinsed it often enough"). A negation that denies a cause ("Ce n'est pas parce que vous
n'avez pas farté ...") is no possibility, and the action's own negation ("not to", "de ne pas", "sans",
"no hace falta") must stand right before it (or, in German and Dutch, inside the match, before the verb
at its end)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay_runner.text.stance.words import _WINDOW, _negator, _set, _words

# What is possible, thinkable, a way, an option or a reason, in the eight languages ("no reason not to").
_POSSIBLE = _set(
    """way can could can't cannot couldn't possible option choice question conceivable thinkable imaginable
    pouvez peut pouvons peux possible moyen façon question pensable envisageable imaginable concevable
    kann können kannst möglich denkbar frage weg anders
    puede puedes podemos posible forma manera modo opción cabe
    può puoi possiamo possibile modo maniera pensabile opzione
    pode podes podemos possível hipótese maneira modo como opção
    kunt kan kunnen mogelijk denkbaar optie manier sprake anders
    może możesz możemy można da mowy sposób opcji wyjścia
    reason sense point raison sens grund sinn motivo razón sentido ragione senso razão reden zin powodu
    powód sensu"""
)
# What is itself impossible or unthinkable: one word carries the outer negation.
_UNTHINKABLE = re.compile(
    r"\b(?:impossible|unthinkable|inconceivable|impensable|inconcevable|unmöglich|undenkbar|ausgeschlossen|"
    r"imposible|inconcebible|impossibile|impensabile|inconcepibile|impossível|impensável|inconcebível|"
    r"onmogelijk|ondenkbaar|uitgesloten|niemożliwe|niemożliwy|nie do pomyślenia|wykluczone|"
    r"out of the question|hors de question|fuera de cuestión|fuori discussione|fora de questão|"
    r"nie wchodzi w grę|geen sprake)\b"
)
# A cause denied ("not because you didn't ..."): what follows it is no possibility.
_CAUSE = _set("because parce weil porque perché omdat doordat dlatego bo por faute")
# Saying it was not done ("Nobody could say you haven't waxed it", "Nadie diría que no lo ha encerado")
# denies a reproach: no possibility of doing it is negated.
_SAYING = _set(
    """say said tell told claim dire dit dira diront dirait sagen sagt gesagt behaupten decir dice diría
    dicho direbbe detto dizer diz diria dito zeggen zegt gezegd powiedzieć powie mówić twierdzić"""
)
# Words that may stand between the action's negation and the outer one's end ("de ne pas", "not to").
_LINKS = _set("de d' di to zu te om żeby że que of à a para per da")
_LAST_PART = re.compile(r"[.;:!?\u00bb\u201d]")  # the outer negation is in the same sentence and part
_OUTER_WORDS = 8  # "Bei so ausgetrocknetem Belag ist es undenkbar"


def cannot_not(head: str, match: Sequence[str], language: str) -> bool:
    """Is the action (`match`, after the sentence's text `head`) negated right before it ("not to", "de ne
    pas", "sans", "no hace falta"), or inside it in German or Dutch, under a negated possibility or an
    unthinkable in the words before ("no way", "pas question", "undenkbar"), or under a negated saying
    that it is not to be done ("No instructor would tell you not to ...", "Ningún monitor le diría que no
    hace falta ...")?"""
    words = _words(_LAST_PART.split(head[-_WINDOW:])[-1])
    inner = _negation_at_end(words, language)
    if inner is None:
        if language not in ("de", "nl") or sum(_negator(w, language) for w in match[1:-1]) % 2 == 0:
            return False
        inner = _Inner(len(words), infinitive=True)  # "..., das Snowboard nicht zu wachsen"
    outer = words[max(0, inner.at - _OUTER_WORDS) : inner.at]
    if not outer or not _CAUSE.isdisjoint(outer):
        return False
    if any(w.startswith(_LOSS) or w.startswith(_WRONG) for w in outer):
        return False  # "You can't go wrong without resetting it": a third negation, it reassures
    negated = [at for at, w in enumerate(outer) if _negator(w, language)]
    if not _SAYING.isdisjoint(outer):
        # "Nobody would say you haven't waxed it" denies a reproach; "... tell you not to wax it" advises
        return bool(negated) and inner.infinitive
    if _UNTHINKABLE.search(" ".join(outer)):
        return True
    if inner.without and not _NOTHING.isdisjoint(outer[:1]):
        return True  # "Nada de freír huevos sin curar antes la sartén": nothing of it without the action
    return bool(negated) and any(w in _POSSIBLE for w in outer[negated[0] :])


@dataclass(frozen=True)
class _Inner:
    at: int
    """Where the action's own negation starts among the head's words."""
    infinitive: bool
    """Does it negate an infinitive or a need ("not to", "de ne pas", "no hace falta"), not a finite verb
    ("que vous n'avez pas")?"""
    without: bool = False
    """Is it "without" ("sans", "sin", "ohne")?"""


# Nothing, opening the clause: "Nada de ... sin ...", "Rien de tout ça sans ...", "Nothing of the sort
# without ...".
_NOTHING = _set("nada niente nothing rien nichts niets nic nulla")
# "Without", in the eight languages: it negates the action after it.
_WITHOUT = _set("without sans ohne sin senza sem zonder bez")
# A need, negated before the action: "no need to", "no hace falta", "não é preciso", "nie trzeba".
_NEED = _set(
    """need needs needed necessary besoin faut nécessaire falta hace necesario preciso necessário bisogno
    bisogna serve nötig notwendig brauchen braucht hoeft hoeven nodig trzeba potrzeba musi"""
)
_REACH = 2  # "de ne pas", "no hace falta", "not to"


def _negation_at_end(words: Sequence[str], language: str) -> _Inner | None:
    """The negation right before the action ("... de ne pas", "... not to", "... żeby nie", "... sans",
    "... no hace falta"), or None."""
    at, linked = len(words), False
    while at > 0 and words[at - 1] in _LINKS and len(words) - at < _REACH:
        at, linked = at - 1, True
    needs = at
    while at > 0 and words[at - 1] in _NEED and needs - at < _REACH:
        at -= 1
    end = at
    if at > 0 and words[at - 1] in _WITHOUT:
        return _Inner(at - 1, infinitive=True, without=True)
    run = _REACH if language == "fr" else 1  # "ne pas"; elsewhere one word ("You cannot not ...")
    while at > 0 and end - at < run and (_negator(words[at - 1], language) or words[at - 1] == "pas"):
        at -= 1
    if at == end:
        return None
    if language == "en" and words[at].endswith("n't") and needs == end:
        return None  # "... you haven't waxed it": an auxiliary's negation, a statement of what was done
    link_before = at > 0 and words[at - 1] in _LINKS
    return _Inner(at, infinitive=linked or link_before or needs > end)


# "Unless", in the eight languages.
_UNLESS = re.compile(
    r"\b(?:unless|à moins que?|à moins de|es sei denn|außer wenn|a menos que|salvo que|a meno che|a meno di|"
    r"a não ser que|salvo se|tenzij|chyba że|chyba ze)\b",
    re.IGNORECASE,
)
_UNLESS_STEMS = _set("unless moins denn außer menos meno ser salvo tenzij chyba")
_UNLESS_REACH = 4  # "unless you | tune", "a não ser que o | afine", "chyba że Pan | nastroi"
# Going wrong, failing: a third negation ("You can't go wrong without ...", "Sie machen nichts falsch,
# ohne ...").
_WRONG = (
    "wrong",
    "fail",
    "hurt",
    "mistak",
    "falsch",
    "fehl",
    "faux",
    "tort",
    "error",
    "sbagli",
    "fout",
    "źle",
)
# A loss or a harm the main clause says will not happen ("Your settings won't be lost unless you reset
# it", "Le garanzie non decadono a meno che ..."): the action is what would cause it, a warning (stems).
_LOSS = (
    *("lose", "losing", "loss", "lost", "delet", "eras", "wip", "void", "laps", "expir", "damag", "harm"),
    *("break",),
    *("broke", "corrupt", "perd", "supprim", "effac", "annul", "endommag", "verlor", "lösch", "gelösch"),
    *("erlisch", "verfäll", "verfall", "beschädig", "borr", "elimin", "caduc", "dañ", "cancell", "decad"),
    *("scad", "dannegg", "apag", "danific", "gewis", "vervall", "beschadig", "strac", "utrac", "usun"),
    *("skasow", "wygas", "uszkodz"),
)


def unless_needed(head: str, language: str) -> bool:
    """Is the action what a negated main clause says nothing works without ("It will never hold a tune
    unless you tune the ukulele", "Le hub ne le trouvera pas à moins de le dissocier")? `head`: the
    sentence's text before the action; the main clause stands before "unless", in the same part."""
    part = _LAST_PART.split(head[-_WINDOW:])[-1]
    if not _UNLESS_STEMS.intersection(_words(part)):
        return False  # most heads hold no "unless": the regex is not run
    found = max(_UNLESS.finditer(part), key=lambda m: m.start(), default=None)  # the last "unless"
    if found is None or len(_words(part[found.end() :])) > _UNLESS_REACH:
        return False
    main = _words(part[: found.start()])
    if any(w.startswith(_LOSS) for w in main):
        return False  # "Your settings won't be lost unless you reset the router": a warning
    return any(_negator(w, language) for w in main) and _CAUSE.isdisjoint(main)
