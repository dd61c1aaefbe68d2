"""A negated action as the subject of a predicate that judges the omission, however far the predicate
stands after the action's own modifiers: "Not replacing the wiper blades before a winter on the motorway
would be a real mistake", "Ne pas purger les freins avant la descente serait vraiment imprudent", "Die
Wischerblätter vor dem Winter nicht zu wechseln kommt nicht in Frage". Calling the omission wrong, or
denying that it is an option or wise, is a double negative: the answer advises the action. Calling it
harmless or sensible, or denying that it is a mistake, leaves it rejected.

`polarity.rejected_subject` reads the predicate a few words after the action; this reads it across the
action's modifiers, but only where the action is said as a subject (a gerund, "ne pas" and an infinitive,
an infinitive with its negation) and the predicate's verb has no subject of its own: "Don't replace them:
it would be a waste" and "No cambie las escobillas: sería un gasto" are instructions with a reason."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from assay_runner.text.stance.replies import reassures
from assay_runner.text.stance.words import _SUBORDINATORS, _WRONG, _bare, _negator, _set, _words

__all__ = ["judged_omission", "judged_predicate"]


def judged_omission(before: Sequence[str], matched: Sequence[str], rest: str, language: str) -> bool | None:
    """When the negated action `matched`, with only the words `before` it in its clause, is the subject
    of a predicate in `rest` (the sentence after the action) that judges the omission: True when the
    predicate rejects the omission (the answer advises the action), False when it accepts it; else None."""
    if not _negated_subject(before, matched, language):
        return None
    judged = judged_predicate(rest, language)
    if judged is None and _costs_nothing(rest, language):
        return False  # "Not removing the battery won't cause any harm", "... won't cost you anything"
    return judged


def _costs_nothing(rest: str, language: str) -> bool:
    """Does the clause after a negated subject deny that leaving it undone costs, harms or breaks
    anything ("... won't cost you anything", "... won't break anything", "... nie szkodzi")?"""
    words = _words(_clause_after(rest, language))[:_REACH]
    if any(w.startswith(_RISK) for w in words):
        return False  # "... non è un rischio che si possa correre": a risk denied may be one not to run
    for at, word in enumerate(words):
        if _negator(word, language) or word.endswith("n't"):
            said = [w for w in words[at + 1 : at + 1 + _COST_REACH] if not _bare(w).startswith(_GOOD)]
            return reassures(said)  # (not "n'est pas très malin", whose "mal" is no cost)
    return False


_COST_REACH = 4  # "won't cause any harm", "doesn't cost you anything"


def judged_predicate(rest: str, language: str) -> bool | None:
    """Does the clause in `rest`, the sentence after an action named as not done, go on to a predicate
    that rejects the omission ("... przed zimą na autostradzie byłoby poważnym błędem": True) or accepts
    it ("... would be no mistake at all": False)? None when it judges it in no words the reader knows."""
    predicate = _predicate(rest, language)
    return None if predicate is None else _rejects_omission(*predicate, language)


def _negated_subject(before: Sequence[str], matched: Sequence[str], language: str) -> bool:
    """The action said as a negated subject: a negation and particles before it (or a negation inside a
    German or Dutch verb-final phrase), and the verb in a form that cannot be an instruction."""
    if not matched or len(before) > _HEAD or not all(w in _BEFORE or _negator(w, language) for w in before):
        return False
    negated_before = any(_negator(w, language) for w in before)
    if language in ("de", "nl"):
        # "Die Wischerblätter ... nicht zu wechseln": the infinitive closes the phrase, its negation inside
        return (negated_before or any(_negator(w, language) for w in matched)) and matched[-1].endswith("n")
    if not negated_before:
        return False
    first = matched[0]
    if language == "en":
        return first.endswith("ing")  # "Not replacing", never "Don't replace"
    if language == "fr":
        return before[-1] in _FRENCH_SECOND  # "Ne pas remplacer", never "Ne remplacez pas"
    return _INFINITIVE[language].search(first) is not None if language in _INFINITIVE else False


_HEAD = 3  # "Ne pas", "Not", "De ne jamais": the negation stands right before the action
_BEFORE = _set("de d' zu te di to the il lo la l' le el o a het das die der den")
_FRENCH_SECOND = _set("pas jamais plus")
# The infinitive, with a clitic pronoun after it where the language writes one on the verb.
_INFINITIVE = {
    "es": re.compile(r"(?:ar|er|ir)(?:l[aeo]s?|se|me|te|nos)?$"),
    "pt": re.compile(r"(?:ar|er|ir|or)$"),
    "it": re.compile(r"(?:are|ere|ire|rre|(?:ar|er|ir)(?:l[aeio]|ne|si|ci|vi))$"),
    "pl": re.compile(r"(?:ć|c)$"),
}


def _predicate(rest: str, language: str) -> tuple[list[str], int] | None:
    """The words of the clause that goes on after the action, and where its verb ("would be", "serait",
    "kommt") is among them, when that verb has no subject of its own."""
    words = _words(_clause_after(rest, language))[:_REACH]
    copulas = _COPULAS.get(language, _COPULAS["en"])
    for i, word in enumerate(words):
        if word in _SUBORDINATORS:
            return None  # "Don't replace them when the rubber is fine": the verb is the condition's
        if word in copulas:
            if i and words[i - 1] in _PRONOUNS:
                return None  # "..., it would be a waste": a subject of its own, a reason of its own
            return words, i
    return None


def _clause_after(rest: str, language: str) -> str:
    """The sentence after the action up to the end of its clause. German and Dutch put a comma between
    a subject infinitive and its verb ("..., wäre leichtsinnig"): there the comma does not end it."""
    comma = rest.find(",")
    stop = _STOP.search(rest)
    end = stop.start() if stop else len(rest)
    if 0 <= comma < end:
        after = _words(rest[comma + 1 : comma + 1 + _COPULA_CHARS])
        if not (language in ("de", "nl") and after and after[0] in _COPULAS[language]):
            end = comma
        else:
            return rest[:comma] + " " + rest[comma + 1 : end]
    return rest[:end]


_STOP = re.compile(r"[;:.!?()\u2013\u2014]|\s-\s")
_COPULA_CHARS = 16
_REACH = 16  # the action's modifiers ("before a winter of motorway driving") and the verb
_COPULAS = {
    "en": _set("is isn't was wasn't would wouldn't will won't 's makes amounts"),
    "fr": _set("est n'est serait sera était reviendrait revient a n'a"),
    "de": _set("ist wäre war wird kommt käme hat macht"),
    "es": _set("es sería será era fue tiene equivaldría"),
    "it": _set("è sarebbe sarà era ha equivarrebbe"),
    "pt": _set("é seria será era foi tem faz equivaleria"),
    "nl": _set("is zou was wordt komt heeft"),
    "pl": _set("jest byłoby byłby byłaby będzie ma"),
}
_PRONOUNS = _set(
    """it this that which ce c' cela ça es das dies esto eso ello lo questo ciò isso isto dat dit het to
    wat was"""
)


def _rejects_omission(words: Sequence[str], copula: int, language: str) -> bool | None:
    """Does the predicate (the verb at `copula` and the words after it) call the omission wrong, or deny
    that it is an option or wise? The first judging word decides; a negation denies it."""
    near = words[max(0, copula - 1) : copula + 1 + _JUDGED_REACH]
    negated = any(_negator(w, language) or w.endswith("n't") or w in _ANYTHING_BUT for w in near) or any(
        pair in _ANYTHING_BUT_PAIRS for pair in pairwise(near)
    )
    for i, word in enumerate(near):
        bare = _bare(word)
        if bare.startswith(_RISK):
            return True if not negated else None  # "not a risk one can run" still calls it one
        if bare.startswith(_BAD):
            return not negated  # "would be a mistake"; not "would be no mistake at all"
        if bare.startswith(_GOOD) or bare in _BETTER:
            if not _MEANS.isdisjoint(near[i + 1 : i + 3]):
                return None  # "a good way to ruin the glass": irony, or a means to an end
            return negated  # "isn't wise"; not "is perfectly sensible" or "would be better"
        if bare.startswith(_OPTION) or bare in _OPTION_WORDS:
            return negated  # "isn't an option", "kommt nicht in Frage"
    return None


# "anything but unwise", "allesbehalve onverstandig": a denial of the judgement that follows.
_ANYTHING_BUT = _set("allesbehalve tutt'altro keineswegs nullement aucunement bynajmniej")
_ANYTHING_BUT_PAIRS = frozenset(
    {("anything", "but"), ("tout", "sauf"), ("todo", "menos"), ("tudo", "menos"), ("alles", "andere")}
    | {("by", "no"), ("far", "from"), ("loin", "d'être"), ("lungi", "dall'essere"), ("wszystko", "tylko")}
)
_JUDGED_REACH = 10  # "wäre bei einem angeschmorten Stecker auf dem Dach schlicht fahrlässig"
# Calling a choice wrong, reckless, risky or a shame (`words._WRONG` and its nouns).
_BAD = (
    *_WRONG,
    *("imprudenc", "imprudenz", "imprudênc", "shame", "pity", "schade", "dommage", "peccato", "jammer"),
    *("szkoda", "lástima", "dangerous", "gefährlich"),
    *("dangereu", "pericolos", "peligros", "perigos", "gevaarlijk", "niebezpieczn", "worst", "pire"),
    *("schlimmst", "peor", "peggio", "pior", "ergst", "najgorsz", "asking"),
    *("senseless", "sinnlos", "zinloos", "bezsens"),  # read before "sense", whose stem they share
)
# Calling it a risk: said, the omission is wrong; denied, it may still be one not to run.
_RISK = ("risk", "rischi", "risqu", "riesgo", "arriesgad", "arriscad", "ryzyk", "ryzykown")
# Calling it wise or good: denied, the omission is unwise.
_GOOD = (
    *("wise", "good", "sensible", "smart", "advisable", "reasonable", "klug", "sinnvoll", "ratsam", "gut"),
    *("vernünftig", "sage", "judicieux", "raisonnable", "bon", "conseillé", "buen", "sensat", "recomendable"),
    *("malin", "maligne", "futé", "astucieux", "furb", "listo", "esperto"),
    *("razonable", "saggi", "buon", "consigliabil", "ragionevol", "bom", "boa", "aconselháv", "razoáv"),
    *("verstandig", "goed", "slim", "raadzaam", "dobr", "rozsądn", "mądr", "wskazan"),
    # sense: "makes no sense", "n'a aucun sens", "no tiene ningún sentido", "macht keinen Sinn"
    *("sense", "sens", "sentido", "senso", "sinn", "zin", "sensu"),
)
# "better", "best", said as whole words ("bestimmt" is no "best").
_BETTER = _set(
    """better best mieux meilleur meilleure besser beste mejor meglio migliore melhor beter lepiej
    najlepiej"""
)
# A means to an end after a good word: "a good way to", "un bon moyen de", "ein guter Weg, um".
_MEANS = _set(
    """way recipe moyen manière façon recette weg rezept mittel manera forma receta modo ricetta maniera
    receita jeito manier recept sposób przepis"""
)
# Calling it an option or a possibility: denied, the action must be done.
_OPTION = (
    *("option", "opción", "opcion", "opzion", "opção", "opcao", "optie", "opcj", "alternativ", "possib"),
    *("posib", "possív", "mogelijk", "möglich", "możliw", "acceptab", "akzeptab", "aceptab", "accettab"),
    *("aceitáv", "akceptowaln"),
)
# "out of the question": the noun of each language's idiom.
_OPTION_WORDS = _set("question frage infrage discusión discussione questão aanmerking grę")
