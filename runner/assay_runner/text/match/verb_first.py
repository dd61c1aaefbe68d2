"""German and Dutch phrases in dictionary order matched as a clause that starts with the verb, and separable
verbs with their particle after the object."""

from __future__ import annotations

from collections.abc import Sequence

from assay_runner.text.language import GERMAN_PARTICLES, foreign_stem
from assay_runner.text.match.determiners import DETERMINERS, _set_of
from assay_runner.text.tokens import Token


def _particle_of(word: str, particles: Sequence[str]) -> str | None:
    return next((p for p in particles if word.startswith(p) and len(word) > len(p) + 3), None)


# German: words a clause may start with before its verb, and the particles of separable verbs.
# Dutch the same ("Installeer de app opnieuw" for "de app opnieuw installeren", "Zet het toestel terug").
VERB_FIRST = frozenset({"de", "nl"})


_LEAD = _set_of(
    "bitte am besten dann danach anschließend einfach zuerst jetzt nun sofort "
    "alstublieft dan daarna vervolgens gewoon eerst nu meteen"
)


_AND = frozenset({"en", "und"})


# "los", "vast": "Koppel de kabel los" for "de kabel loskoppelen"
_DUTCH_PARTICLES = (
    *("terug", "door", "weg", "uit", "aan", "mee", "over", "af", "op", "in", "om"),
    *("los", "vast"),
)


_PARTICLES = GERMAN_PARTICLES


def verb_first(
    tokens: Sequence[Token], wanted: Sequence[Token], language: str = "de"
) -> list[tuple[int, int]]:
    """A German phrase in dictionary order (objects, then the verb: "Profil löschen", "neu installieren",
    or a separable verb: "zurücksetzen") as a clause that starts with the verb and has the other words,
    in order, after it within ten words ("Löschen Sie das Profil", "Setzen Sie das Gerät zurück")."""
    verb = wanted[-1].stem
    rest = [t.stem for t in wanted[:-1] if t.text not in DETERMINERS]  # "Verwijder je account"
    word = wanted[-1].text
    particle = _particle_of(word, _PARTICLES if language == "de" else _DUTCH_PARTICLES)
    spans = _verb_first(tokens, verb, rest, anywhere=particle is None) if rest else []
    if particle is not None:  # "Schalten Sie die Firewall aus", "Schakel de firewall uit"
        verb_part = foreign_stem(word[len(particle) :], language)
        spans += _verb_first(tokens, verb_part, [*rest, particle])
        spans += _separated(tokens, verb_part, rest, particle)
    return spans


def _separated(
    tokens: Sequence[Token], verb: str, rest: Sequence[str], particle: str
) -> list[tuple[int, int]]:
    """A separable verb anywhere in its clause with its particle after it and the phrase's other words
    between them or fronted before the verb: a question ("Warum setzen Sie das Türschloss nicht einfach
    zurück?", "Waarom zet u het slot niet terug?"), a clause after a lead phrase ("In den Einstellungen
    schalten Sie ... aus"), an object put first ("De meldingen zet u uit via Instellingen"). The particle
    after the verb is what makes it the verb's (a bare "zet" or "setzen" is not enough)."""
    spans = []
    count = len(tokens)
    for i in range(count):
        if tokens[i].stem != verb:
            continue
        particle_at = next(
            (k for k in range(i + 1, min(count, i + _SEPARATED_REACH)) if tokens[k].text == particle), None
        )
        if particle_at is None:
            continue
        position = max(0, i - _FRONTED_REACH)
        first = None
        for wanted in rest:
            found = next(
                (k for k in range(position, particle_at) if k != i and tokens[k].stem == wanted), None
            )
            if found is None:
                break
            first = found if first is None else first
            position = found + 1
        else:
            spans.append((min(i, first if first is not None else i), particle_at + 1))
    return spans


_SEPARATED_REACH = 12  # words from a separable verb to its particle


_FRONTED_REACH = 5  # words of an object put before the verb ("Die Benachrichtigungen schalten Sie ... aus")


def _verb_first(
    tokens: Sequence[Token], verb: str, rest: Sequence[str], anywhere: bool = False
) -> list[tuple[int, int]]:
    spans = []
    # The verb heads the clause (after lead words), or a coordinated instruction ("... en wis daarna");
    # `anywhere`: a verb that is not separable, also after whatever a clause puts before it (its verb
    # second: "Waarom ontkoppelt u de headset niet?", "Danach deinstallieren Sie den Treiber").
    after_and = {k + 1 for k, t in enumerate(tokens) if t.text in _AND}
    starts = (
        range(len(tokens)) if anywhere else sorted({*range(min(4, len(tokens))), *after_and} - {len(tokens)})
    )
    for i in starts:
        token = tokens[i]
        if token.stem != verb:
            continue
        if not anywhere and i not in after_and and not all(t.text in _LEAD for t in tokens[:i]):
            continue
        position = i + 1
        for stem_wanted in rest:
            found = next(
                (k for k in range(position, min(len(tokens), i + 11)) if tokens[k].stem == stem_wanted), None
            )
            if found is None:
                break
            position = found + 1
        else:
            spans.append((i, position))
    return spans
