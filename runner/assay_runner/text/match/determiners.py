"""Articles and possessives stand for one another inside a phrase, and one adverb may follow its verb: a
phrase's other words in order with only those between them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assay_runner.text.tokens import Token


def _set_of(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Articles and possessives stand for one another inside a phrase: "supprimer le compte" is also "Supprime
# ton compte", "eliminar la cuenta" "Elimina tu cuenta", "eliminare l'account" "Elimini il Suo account",
# "delete the account" "delete your account".
DETERMINERS = _set_of(
    """the a an your my his her their our this that
    le la les l' un une des ton ta tes mon ma mes votre vos son sa ses notre nos du
    el los las una tu tus su sus mi mis vuestro vuestra nuestro nuestra
    il lo i gli uno un' tuo tua tuoi tue suo sua suoi sue mio mia miei mie vostro vostra vostri vostre
    nostro nostra nostri nostre loro
    o as os um uma seu seus suas teu meu minha vosso vossa nosso nossa
    de het een je jouw uw zijn mijn ons onze
    der die das den dem des ein eine einen einem dein deine deinen ihr ihre ihren sein seine mein meine
    swój swoje swoją swojego twój twoje twoją twojego mój moje"""
)


_MAX_DETERMINERS = 2  # "il Suo account": an article and a possessive


# Adverbs of time or manner that stand between a Romance verb and its object ("Videz maintenant la file").
_AFTER_VERB = _set_of(
    """now first then simply just maintenant ensuite d'abord simplement immédiatement alors ahora luego
    primero simplemente inmediatamente ya ora poi prima semplicemente subito agora depois primeiro
    simplesmente imediatamente já"""
)


def _without_determiners(wanted: Sequence[Token]) -> list[str]:
    """The stems of a phrase's other words when it holds an article or a possessive (else nothing)."""
    core = [t.stem for t in wanted if t.text not in DETERMINERS]
    return core if 2 <= len(core) < len(wanted) else []


def _match_determiners(
    tokens: Sequence[Token], core: Sequence[str], starts: Iterable[int]
) -> list[tuple[int, int]]:
    """The phrase's other words in order, with only articles and possessives between them."""
    spans = []
    count = len(tokens)
    for i in starts:
        position = i + 1
        # One adverb of time or manner may follow the verb: "Videz maintenant la file", "Vacíe ahora la cola"
        if position < count and tokens[position].text in _AFTER_VERB and tokens[position].stem != core[1]:
            position += 1
        for wanted in core[1:]:
            skipped = 0
            while (
                position < count
                and skipped < _MAX_DETERMINERS
                and tokens[position].stem != wanted
                and tokens[position].text in DETERMINERS
            ):
                position, skipped = position + 1, skipped + 1
            if position >= count or tokens[position].stem != wanted:
                break
            position += 1
        else:
            spans.append((i, position))
    return spans
