"""Words a phrase's verb stands apart from its object by: a Romance adverbial after the verb, a modal and
a participle after the object, an English particle after the object."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assay_runner.text.match.determiners import _MAX_DETERMINERS, DETERMINERS, _match_determiners, _set_of
from assay_runner.text.tokens import Token

# A Romance verb may be followed by a short adverbial before its object ("Désactivez pour l'instant la
# sauvegarde", "Desactive por ahora la copia", "Restablezca usted mismo la cerradura", "Disattivi per ora
# il backup"): up to this many words, within the sentence and its clause (no punctuation between them),
# a negation only after one before the verb ("Ne supprimez-vous pas le cache ?", "No borre nunca la ...").
_ROMANCE = frozenset({"fr", "es", "it", "pt"})


_MAX_AFTER_VERB = 3


_POLITE = _set_of("por favor s' il vous plaît per favore please")


# ... and up to this many when the verb opens its clause ("Ma suggestion : désactivez seulement pour ce
# site le bloqueur", "desactive solo para la web del banco el bloqueador")
_MAX_AFTER_OPENING_VERB = 7


_GAP_NEGATIONS = _set_of(
    "ne n' pas jamais plus no nunca jamás non mai não nunca nem ni né sin sans senza sem"
)


def after_verb_gap(
    tokens: Sequence[Token], wanted: Sequence[Token], starts: Iterable[int]
) -> list[tuple[int, int]]:
    """A phrase whose first word (its verb) stands up to `_MAX_AFTER_VERB` words before the rest, the rest
    in order with only articles and possessives between its words (`_match_determiners`)."""
    core = [t.stem for t in wanted if t.text not in DETERMINERS]
    if len(core) < 2 or wanted[0].text in DETERMINERS:
        return []
    spans: list[tuple[int, int]] = []
    count = len(tokens)
    for i in starts:
        opens = i == 0 or tokens[i].start - tokens[i - 1].end > 1  # after punctuation: an imperative
        for gap in range(1, (_MAX_AFTER_OPENING_VERB if opens else _MAX_AFTER_VERB) + 1):
            last = i + gap  # the gap's last word
            if last + 1 >= count:
                break
            skipped = tokens[last]
            polite = skipped.text in _POLITE  # "Desative, por favor, o filtro": a parenthetical please
            if skipped.start - tokens[last - 1].end > (2 if polite else 1):
                break  # punctuation (a clause or sentence boundary) in the gap
            if skipped.text in _GAP_NEGATIONS and not (i and tokens[i - 1].text in _GAP_NEGATIONS):
                break  # a negation after the verb is read only as the second part of one before it
                # ("Ne supprimez pas le cache", "No borre nunca la caché": the clause's negation reads it)
            at = last + 1
            while at < min(count, last + 1 + _MAX_DETERMINERS) and tokens[at].text in DETERMINERS:
                at += 1
            if (
                at < count
                and tokens[at].stem == core[1]
                and tokens[last + 1].start - skipped.end <= 1 + polite
            ):
                rest = _match_determiners(tokens, core[1:], (at,)) if len(core) > 2 else [(at, at + 1)]
                spans.extend((i, end) for _, end in rest)
                break
    return spans


# The object first, then a modal of necessity and the verb's participle: "The history should be
# cleared", "L'historique doit être vidé", "O histórico tem de ser apagado", "El historial debe ser
# borrado", "The history needs clearing". A negation in between leaves it unmatched (it is negated).
_PASSIVE_MODALS = {
    "en": _set_of("should must needs need has have ought"),
    "fr": _set_of("doit doivent devrait devraient faut"),
    "es": _set_of("debe deben debería deberían tiene tienen hay"),
    "pt": _set_of("deve devem deveria deveriam tem têm precisa precisam"),
    "it": _set_of("deve devono dovrebbe dovrebbero va vanno"),
    # Polish puts the object first and the infinitive after the modal: "Blokadę ... trzeba na chwilę wyłączyć"
    "pl": _set_of("trzeba należy musi musisz powinien powinna powinno warto proszę"),
}


_PASSIVE_ALL_MODALS = frozenset().union(*_PASSIVE_MODALS.values())


_PASSIVE_GAP = 4  # "should | be | cleared", "tem | de | ser | apagado"


def modal_passive(
    tokens: Sequence[Token], core: Sequence[str], starts: Iterable[int]
) -> list[tuple[int, int]]:
    """The phrase's object (`core[1:]`, in order, determiners between) followed within `_PASSIVE_GAP`
    words by a modal of necessity and then its verb (`core[0]`, by key: "cleared", "vidé", "apagado")."""
    count = len(tokens)
    spans = []
    for i in starts:
        found = _match_determiners(tokens, core[1:], (i,)) if len(core) > 2 else [(i, i + 1)]
        for _, end in found:
            modal = False
            for k in range(end, min(count, end + _PASSIVE_GAP + 1)):
                if tokens[k].start - tokens[k - 1].end > 1 or tokens[k].text in _PASSIVE_STOPS:
                    break  # punctuation, or a negation ("should not be cleared")
                if tokens[k].text in _PASSIVE_ALL_MODALS:
                    modal = True
                elif modal and tokens[k].stem == core[0]:
                    spans.append((i, k + 1))
                    break
    return spans


_PASSIVE_STOPS = _set_of("not never n't ne n' pas jamais no nunca non mai não nunca nem")


# An English phrasal verb's particle may follow its object: "turn off automatic backup" is also "turn
# automatic backup off" (and "turn the automatic backup off").
_ENGLISH_PARTICLES = _set_of("off on up down out back over in away")


def particle_shifted(
    tokens: Sequence[Token], wanted: Sequence[Token], starts: Iterable[int]
) -> list[tuple[int, int]]:
    """A phrasal verb's phrase ("turn off X") written with its particle after the object ("turn X off")."""
    if len(wanted) < 3 or wanted[1].text not in _ENGLISH_PARTICLES:
        return []
    shifted = [wanted[0].stem, *(t.stem for t in wanted[2:] if t.text not in DETERMINERS), wanted[1].stem]
    return _match_determiners(tokens, shifted, starts)
