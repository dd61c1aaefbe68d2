"""German and Dutch phrases whose verb cluster ends the clause: "te", "zu", a modal or a negation before the
verb, and a short phrase between the object and the verb."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from assay_runner.text.match.verb_first import _DUTCH_PARTICLES, _particle_of
from assay_runner.text.match.words import phrase_tokens
from assay_runner.text.tokens import Token

_MAX_GAP = (
    4  # "die Verschlüsselung | auf der Testfreigabe kurz | deaktivieren": a phrase between object and verb
)


def _verb_final(tokens: Sequence[Token], phrase: str, language: str) -> list[tuple[int, int]]:
    """A verb-final phrase whose object and verb (cluster) stand up to `_MAX_GAP` words apart, the verb
    ending the clause ("Sie können die Verschlüsselung auf der Testfreigabe deaktivieren", "Je kunt de
    versleuteling op de testmap uitschakelen"). `tokens` are one clause's words."""
    wanted = phrase_tokens(phrase, language)
    if len(wanted) < 2 or not tokens:
        return []
    head = [t.stem for t in wanted[:-1]]
    tails = {tuple(t.stem for t in cluster[len(head) :]) for cluster in _clusters(phrase, language)}
    tails.add((wanted[-1].stem,))
    last = [t.stem for t in tokens]
    # The verb cluster ends the clause, or is followed by "und"/"en" and another verb ("... ausschalten
    # und dann wieder einschalten"), or by the predicate of the phrase it ends ("Die SIM-Karte für zehn
    # Sekunden zu entfernen hilft meistens", "De simkaart tien seconden verwijderen helpt").
    stops = range(1, len(tokens) + 1)
    ends = [
        (stop, len(tail))
        for tail in tails
        if tail and _ANY_WORD.stem not in tail
        for stop in stops
        if tuple(last[stop - len(tail) : stop]) == tail
    ]
    spans = []
    for stop, size in ends:
        verb = stop - size
        for gap in range(2, _MAX_GAP + 1):
            start = verb - gap - len(head)
            between = last[max(0, start + len(head)) : verb]
            nearer = head[-1] in between  # the object (the head's last word) said again closer
            if (
                start >= 0
                and last[start : start + len(head)] == head
                and not nearer
                and _GAP_STOPS.isdisjoint(t.text for t in tokens[max(0, start + len(head)) : verb])
            ):
                spans.append((start, stop))
    return spans


def _clause_ends(tokens: Sequence[Token]) -> list[int]:
    """Where a verb-final clause may end: at its last word, or before "und", "en", "oder", "of"."""
    return [len(tokens), *(k for k, t in enumerate(tokens) if k and t.text in _COORDINATING)]


_COORDINATING = frozenset({"und", "oder", "en", "of"})


# What a gap may not hold: a nearer object, or a word that starts another phrase ("Start de telefoon
# opnieuw op zonder opnieuw te installeren": "zonder" governs the second "opnieuw", not the first).
_GAP_STOPS = frozenset(
    {"zonder", "ohne", "statt", "anstatt", "und", "en", "of", "oder", "om", "um", "dan", "dann"}
)


# Dutch puts "te" or a modal between an infinitive and its object, and "te" inside a separable verb:
# "de app opnieuw installeren" is also "de app opnieuw te installeren", "het apparaat moeten wissen",
# "de firewall uitschakelen" also "de firewall uit te schakelen". German puts "zu" there ("neu zu
# installieren"; written together in a separable verb, "zurückzusetzen", which its key joins).
# A negation stands there too ("den Router nie zurücksetzen", "de router nooit mag resetten"): the match
# is found, and the clause's negation (`negation.german_negation`) then reads it.
_CLUSTER = {
    "nl": (
        *("te", "moeten", "kunnen", "mogen", "willen", "gaan", "laten", "niet", "nooit"),
        *(f"{n} {m}" for n in ("niet", "nooit") for m in ("moeten", "kunnen", "mogen")),
    ),
    "de": ("zu", "nicht", "nie", "niemals", "nicht zu", "nie zu"),
}


@lru_cache(maxsize=1024)  # asked for every clause of an answer, for each phrase
def _clusters(phrase: str, language: str) -> tuple[tuple[Token, ...], ...]:
    wanted = phrase_tokens(phrase, language)
    if len(wanted) < 2:
        return ()
    head, verb = " ".join(t.text for t in wanted[:-1]), wanted[-1].text
    clusters = [f"{head} {word} {verb}" for word in _CLUSTER[language]]
    particle = _particle_of(verb, _DUTCH_PARTICLES) if language == "nl" else None
    if particle is not None:
        clusters.append(f"{head} {particle} te {verb[len(particle) :]}")
    built = [phrase_tokens(cluster, language) for cluster in clusters]
    # One word of any kind before the verb cluster, an adverb mostly ("de firewall even uit te schakelen",
    # "die App vorher zu deaktivieren", "den Router kurz zurücksetzen"): the object keeps its verb.
    at = len(phrase_tokens(head, language))
    # A negation inside the object ("den Treiber nicht neu zu installieren", "het stuurprogramma niet
    # opnieuw installeren") the same way: the clause's negation then reads it.
    built.extend(
        [(*cluster[:p], _ANY_WORD, *cluster[p:]) for cluster in [*built, wanted] for p in range(1, at + 1)]
    )
    return tuple(built)


_ANY_WORD = Token("", "", 0, 0)  # stands for one word in a cluster (`_match_words`)
