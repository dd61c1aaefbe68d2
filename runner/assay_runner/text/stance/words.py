"""The closed word classes the stance shapes share, in the eight languages: negators, the words that
call something better or wrong, restarting conjunctions, and how far around the action a shape reads."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache, partial


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_WORD = re.compile(r"[\w']+")

# Words that open a subordinate clause (a condition, a time, a reason), in the eight languages.
_SUBORDINATORS = _set(
    """if when unless once until because although while since whether si quand lorsque sauf tant wenn falls
    sobald solange weil obwohl ob cuando mientras aunque porque se quando finché perché sebbene caso
    enquanto embora als wanneer indien zodra tenzij omdat hoewel jeśli jeżeli gdy kiedy dopóki ponieważ
    chyba"""
)

# The words that negate a predicate, per language (determiners and pronouns of negation included).
NEGATORS: dict[str, frozenset[str]] = {
    "en": _set("not never no nothing none nobody cannot neither nor"),
    "fr": _set("ne n' pas jamais rien aucun aucune personne ni"),
    "de": _set("nicht nie niemals nichts kein keine keinen keinem keiner keines weder"),
    "es": _set("no nunca jamás nada ninguno ninguna ningún tampoco ni"),
    "it": _set("non mai nulla niente nessuno nessuna nessun né"),
    "pt": _set("não nao nunca jamais nada nenhum nenhuma nem"),
    # (Dutch writes a stressed negation with accents: "níet", "níét", "nóóit", "géén")
    "nl": _set("niet nooit niets geen niemand noch níet níét nóóit géén"),
    "pl": _set("nie nigdy nic niczego niczym żaden żadne żadna żadnych ani"),
}
ALL_NEGATORS = frozenset().union(*NEGATORS.values())
"""The negating words of every language read, in one set."""


def _negator(word: str, language: str) -> bool:
    if language == "en" and (word.endswith("n't") or (word.endswith("nt") and word[:-2] in _EN_AUX)):
        return True
    if language == "fr" and word.startswith("n'"):
        return True
    return word in NEGATORS.get(language, NEGATORS["en"])


@lru_cache(maxsize=64)
def _negator_of(language: str) -> Callable[[str], bool]:
    """`_negator` for one language, one function per language (`text.head_words` keeps counts by it)."""
    return partial(_negator, language=language)


_EN_AUX = _set("don do doesn does didn did won wouldn couldn can isn aren wasn weren shouldn haven hasn")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold().replace("\u2019", "'"))


# What calls an action a fix or the right thing, in the eight languages (`text.advice` reads it after a
# conditional too: "Reinstalar sería lo mejor").
BETTER = re.compile(
    r"\b(?:best|better|fix|solve|help|mejor|meglio|migliore|melhor|mieux|meilleur|besser|besten|beter|best|"
    r"lepiej|najlepiej|ideal|ideale|idéal|idéale|solution|solución|soluzione|solução|lösung|oplossing|"
    r"rozwiązanie|rozwiązaniem|resolvería|risolverebbe|resolveria|résoudrait|lösen|oplossen|rozwiązałoby|"
    r"wise|smart|good|sensible|advisable|recommended|worth|safest|sage|judicieux|conseillé|sensato|"
    r"conveniente|recomendable|consigliabile|opportuno|aconselhável|recomendável|sinnvoll|ratsam|gut|"
    r"verstandig|raadzaam|goed|wskazane|zalecane|dobrze|dobry|dobre|buena|buono|buona|bom|boa|bonne|bon|"
    r"help|helps|résoudre|régler|corriger|aider|arreglar|solucionar|resolver|ayudar|risolvere|sistemare|"
    r"aiutare|ajudar|corrigir|oplossen|verhelpen|helpen|beheben|helfen|naprawić|rozwiązać|pomóc|work|works|"
    r"fixes)\b"
)


# A predicate that calls doing something wrong, in the eight languages ("a mistake", "falsch", "un
# errore", "błędem"): the stems of one evaluative class, not of the actions it is said of.
_WRONG = (
    *("mistake", "wrong", "error", "erreur", "faux", "fausse", "erroné", "fehler", "falsch", "irrtum"),
    *("errore", "sbagliat", "erro", "errad", "equivoca", "incorrect", "fout", "verkeerd", "vergissing"),
    *("błąd", "błęd", "niewłaściw", "niesłuszn"),
    # unwise, in the eight languages: calling a choice reckless is calling it wrong
    *("unwise", "imprudent", "foolish", "careless", "reckless", "irresponsib", "unklug", "unvernünftig"),
    *("leichtsinnig", "fahrlässig", "déraisonnable", "insensat", "sconsiderat", "onverstandig"),
    *("onverantwoord", "nierozsądn", "nieostrożn", "lekkomyśln", "nieodpowiedzialn"),
)


def _calls_it_wrong(words: Sequence[str]) -> bool:
    return any(_bare(word).startswith(_WRONG) for word in words)


def _bare(word: str) -> str:
    """A word without an elided article ("d'autre" -> "autre", "l'erreur" -> "erreur")."""
    head, _, rest = word.partition("'")
    return rest if rest and len(head) <= 2 else word


# How far around the action these shapes look (characters): each is read within a few words of it, and a
# bounded window keeps a long clause with a match per word linear (`tests/unit/test_policy_cost.py`).
_WINDOW = 240


_RESTART = _set(
    """but so then however mais donc alors aber also dann daher deshalb pero entonces así ma quindi allora
    mas então portanto maar dus daarom ale więc zatem"""
)
# Words that restart the answer's own voice after a report: "..., so reset it", "..., bitte ...".
_SPEAKS_AGAIN = _RESTART | _set("please just bitte einfach proszę")
