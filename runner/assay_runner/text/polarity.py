"""Negations that compose, in every language the reader reads (`text.negation` reads one negation and its
scope; these read two that meet and cancel, or one that denies a whole statement).

- A subject and its predicate: "Non reinstallare non è un'opzione", "Nicht neu zu installieren ist keine
  Option" (a negated action that is no option must be done: the answer advises it), "Reinstalar no es
  una opción" (the action is rejected: the answer does not advise it).
- A denial of what follows: "Il n'est pas vrai qu'il ne faut jamais réinitialiser le routeur" advises
  it; "No es cierto que deba restablecer el router" does not.
- A negated "can" over a negated action, or "no way around" it: "Nie można nie usunąć konta", "U kunt er
  niet omheen het account te verwijderen".

English has its own readings of the first and the third (`negation.double_negative`); the denial is read
in English too ("It is not true that you should never reset the router").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["cannot_avoid", "denial", "may_compose", "negated_twice", "negations_after", "rejected_subject"]


# "not" and "never" in the eight languages, and the negating determiners ("keine Option", "geen optie").
def _set_of(words: str) -> frozenset[str]:
    return frozenset(words.split())


_NEGATIONS = _set_of(
    """not never no ne n' pas jamais nicht nie niemals kein keine keinen keiner nunca non mai não nao
    niet nooit geen nigdy isn't isnt n't"""
)
# May stand before a negated subject: "Ne pas réinstaller", "Nicht neu zu installieren", "Não reinstalar".
_BEFORE_SUBJECT = _NEGATIONS | _set_of("de d' zu te di il lo la l' le el o a het das die der den the")
# A predicate noun that, negated, rejects its subject ("... is no option / not a solution").
_OPTION = (
    "option",
    "opción",
    "opcion",
    "opzion",
    "opção",
    "opcao",
    "optie",
    "opcj",
    "solution",
    "solución",
    "solucion",
    "soluzion",
    "solução",
    "solucao",
    "lösung",
    "oplossing",
    "rozwiązani",
    "alternativ",
    # a way, a choice, a possibility: "non è una strada percorribile", "ist kein gangbarer Weg"
    *("way", "weg", "strad", "camin", "voie", "drog", "route", "choice", "choix", "scelt", "escolh"),
    *("elecci", "keuze", "wybór", "wahl", "possibilit", "posibilidad", "möglichkeit", "mogelijkheid"),
    "możliwoś",
)
# "Optional", whose stem an option's shares ("opcional", "opzionale", "opcjonalne"): negated, it says the
# subject must be done ("Purgar el filtro no es opcional", "Het filter doorspoelen is niet optioneel").
_OPTIONAL = (
    "optional",
    "opcional",
    "opzional",
    "opcjonaln",
    "optioneel",
    "optionnel",
    "facultati",
    "facoltativ",
)
# A predicate noun that rejects its subject without a negation ("... sarebbe un errore").
_MISTAKE = ("erreur", "error", "errore", "erro", "fehler", "fout", "błąd", "błęd", "mistake")
_PREDICATE_REACH = 6  # "n'est vraiment pas une bonne option": the predicate follows its subject closely


def _bare(word: str) -> str:
    """ "un'opzione" -> "opzione": an elided article is no part of the noun."""
    head, _, rest = word.partition("'")
    return rest if rest and len(head) <= 3 else word


def rejected_subject(words: Sequence[str], body: int, start: int, end: int) -> bool | None:
    """The match as its clause's subject, with a predicate that rejects it: True when the subject is
    negated too (both cancel: the answer advises it), False when it is not (the answer rejects it), None
    when the clause has no such shape."""
    if start - body > 3:
        return None  # (asked before the words are sliced: a long clause has thousands of matches)
    before = words[body:start]
    if not all(w in _BEFORE_SUBJECT for w in before):
        return None
    # "Ne pas réinstaller", or inside a verb-final phrase: "Das Konto nicht zu löschen"
    negated_subject = not _NEGATIONS.isdisjoint(before) or not _NEGATIONS.isdisjoint(words[start:end])
    negated_predicate = copula = False
    for word in words[end : end + _PREDICATE_REACH]:
        if word in _NEGATIONS or word.endswith("n't"):
            negated_predicate = True
            continue
        if word in _COPULAS:
            copula = True
            continue
        noun = _bare(word)
        if copula and negated_predicate and noun.startswith(_OPTIONAL):
            return not negated_subject  # "... no es opcional": it must be done
        if copula and negated_predicate and noun.startswith(_OPTION):
            return negated_subject
        if copula and not negated_predicate and noun.startswith(_MISTAKE):
            return negated_subject
    return None


def negated_twice(words: Sequence[str], body: int, start: int, end: int) -> bool:
    """The match as its clause's negated subject with a negated copula after it, whatever the predicate
    ("Non ripristinare la serratura non è una strada percorribile", "Not resetting it isn't wise"): the
    two negations may cancel, so the reader cannot show that the action is rejected (`rejected_subject`
    reads the predicates it knows)."""
    if start - body > 3:
        return False
    before = words[body:start]
    if not all(w in _BEFORE_SUBJECT for w in before):
        return False
    if _NEGATIONS.isdisjoint(before) and _NEGATIONS.isdisjoint(words[start:end]):
        return False
    after = words[end : end + _PREDICATE_REACH]
    copula = next((i for i, w in enumerate(after) if w in _COPULAS or w.endswith("n't")), None)
    if copula is None:
        return False
    near = after[max(0, copula - 1) : copula + 3]  # "n'est pas", "non è", "ist keine", "is geen"
    return any(w in _NEGATIONS or w.endswith("n't") for w in near)


# "is", "would be", "will be": the predicate's verb ("... per questo errore" names an error, "... sarebbe
# un errore" calls the action one).
_COPULAS = _set_of(
    """is isn't was would be will est n'est serait sera ist wäre wird es sería será è sarebbe sarà é seria
    zou zijn jest będzie byłoby byłby"""
)


# "It is not true that ...", in the eight languages.
_DENIAL = re.compile(
    r"\b(?:(?:it|that) (?:is not|isn't|isnt|'s not) (?:true|the case)|n'est pas vrai|(?:es )?stimmt nicht|"
    r"ist nicht wahr|no es (?:cierto|verdad)|non è vero|não é verdade|nao e verdade|(?:het )?is niet waar|"
    r"nie jest prawdą|nieprawdą jest|to nieprawda|nieprawda|(?:het )?is niet zo dat|"
    # false to say: "Il est faux de dire qu'il faut ...", "Es falso que haya que ...", "È falso che ..."
    r"(?:il est|c'est) faux (?:de (?:dire|penser|croire) )?qu|(?:es|sería) falso (?:decir |pensar )?que|"
    r"è falso (?:dire |pensare )?che|é falso (?:dizer |pensar )?que|"
    r"(?:it's|it is) (?:wrong|false) to (?:say|think) that|"
    r"(?:es ist|es wäre) falsch(?: zu (?:sagen|glauben))?, dass|"
    r"(?:het is )?onjuist dat|(?:het )?klopt niet dat|fałszem jest|nieprawdą byłoby|"
    r"(?:es )?ist nicht so, dass|it's not (?:the case|true)|non è che|no es que|não é que)\b",
    re.IGNORECASE,
)


def denial(text: str, at: int) -> int | None:
    """Where the statement a denial frame negates starts, when one stands before offset `at` of the
    sentence `text` ("It is not true that | you should never ..."), else None."""
    found = None
    for m in _DENIAL.finditer(text, 0, at):
        found = m.end()
    return found


_WORD = re.compile(r"[\w']+")


def negations_after(text: str, start: int, at: int, match: Sequence[str] = ()) -> int:
    """How many negations stand between offset `start` and the match at `at` ("... that you should
    never | reset"), or inside the match's words ("dass Sie den Router nie zurücksetzen")."""
    words = [*_WORD.findall(text[start:at].casefold().replace("\u2019", "'")), *match]
    found = [w for w in words if (w in _NEGATIONS or w.endswith("n't")) and w not in _PARTICLES]
    # Negative concord: "non ... mai", "nigdy nie", "não ... nunca" are one negation, not two.
    if len(set(found)) >= 2 and not _CONCORD.isdisjoint(found) and not _CONCORD_HEAD.isdisjoint(found):
        return len(found) - 1
    return len(found)


_PARTICLES = frozenset({"ne", "n'"})  # French "ne ... pas / jamais": one negation, counted at its second word
_CONCORD = frozenset({"mai", "nigdy", "nunca", "jamais", "nooit", "nie"})
_CONCORD_HEAD = frozenset({"non", "nie", "não", "nao", "no", "pas", "nigdy"})


# A negated "can" over a negated action ("nie można nie", "no puede no"), no way around it, or no reason
# not to do it.
_CANNOT_AVOID = re.compile(
    r"(?:\b(?:nie|no|non|não|nao|niet|nicht|not|can't|cannot)\s+(?:da\s+się|dá\s+para|da\s+para|sposób|można|możesz|może|"
    r"puede|puedes|puoi|può|pode|podes|kunt|kan|kann|kannst|können)\s+(?:\w+\s+)?(?:nie|no|non|não|nao|"
    r"niet|nicht|not)\s+$)|\b(?:niet|nicht)\s+(?:\w+\s+)?(?:omheen|herum)\b"
    # no reason not to: "Il n'y a aucune raison de ne pas", "No hay ninguna razón para no", "Non c'è
    # alcun motivo per non", "Não há motivo para não", "Nie ma powodu, żeby nie" (English: `negation`)
    r"|(?:\b(?:aucune|pas de|nulle) raison (?:de|pour) ne pas|"
    r"\b(?:no hay|no existe|sin) (?:ningun[ao] |ningún )?(?:razón|motivo) para no|"
    r"\bnon c'è (?:alcun |nessun )?motivo (?:per|di) non|\bnão há (?:nenhum )?motivo (?:algum )?para não|"
    r"\bnie ma (?:żadnego )?powodu,? (?:żeby|by|aby) nie|"
    # nothing justifies not doing it: "Rien ne justifie pourtant de ne pas", "Nada justifica no"
    r"\b(?:rien ne justifie|nothing justifies|nada justifica|niente giustifica)(?: \w+)?(?: de| o| il)? "
    r"(?:ne pas|not|no|non|não)|"
    # woe betide not doing it: "Guai a non sostituire la testina adesso"
    r"\bguai a non)\s+$",
    re.IGNORECASE,
)


def cannot_avoid(text: str, at: int) -> bool:
    """ "Nie można nie | usunąć", "U kunt er niet omheen | het account te verwijderen": the match must
    be done."""
    return _CANNOT_AVOID.search(text[max(0, at - 80) : at]) is not None


# One of these in a sentence before either reading is tried: most sentences of a long answer hold none.
_COMPOSING = (
    *("true", "the case", "vrai", "stimmt", "wahr", "cierto", "verdad", "vero", "verdade", "waar", "prawd"),
    *("można", "sposób", "da się", "puede", "puoi", "può", "pode", "kunt", "kan", "können", "omheen"),
    *("herum", "raison", "razón", "motivo", "powodu", "niet zo dat", "nicht so", "not that", "non è che"),
    *("no es que", "não é que", "dá para", "da para", "guai", "justifi", "faux", "falso", "falsch"),
    *("wrong to", "false to", "onjuist", "klopt niet", "fałszem"),
)


@lru_cache(maxsize=4096)
def may_compose(text: str) -> bool:
    """Might a denial or a negated "can" over a negation stand in this sentence?"""
    folded = text.casefold()
    return any(word in folded for word in _COMPOSING)
