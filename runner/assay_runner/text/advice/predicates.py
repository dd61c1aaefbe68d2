"""What the rest of a clause says of its subject, the match: that doing it helps, that it costs something
(a warning), what it would or could do, or nothing that decides."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.advice.cues import _cues
from assay_runner.text.advice.facts import Facts
from assay_runner.text.advice.outcome import ADVISES, CLEARS, Outcome
from assay_runner.text.advice.stance_reading import _stance_of
from assay_runner.text.reversers import reversed_frame
from assay_runner.text.stance import BETTER, consequence, helps

# What a subject's predicate says about doing it.
_POSITIVE = _cues(
    r"\b(?:fix|fixes|fixed|solve|solves|solved|resolve|resolves|resolved|help|helps|helped|works?|worked|"
    r"cures?|clears? (?:it|this|that) up|does the trick|sorts? (?:it|this) out)\b",
    r"\b(?:is|are|was|would be|remains) (?:the |your |a |an |our )?(?:fix|solution|answer|way forward|"
    r"best|only|quickest|easiest|simplest|safest|recommended|right|next step|trick|cure|way to go|"
    r"necessary|required|needed|safe|fine|ok|okay|the way)\b",
    r"\b(?:recommended|necessary|required|needed|advisable|your best bet)\b",
)
_WARNING = _cues(
    r"\b(?:los(?:e|es|ing)|lost|eras(?:e|es|ing)|delet(?:e|es|ing)|remov(?:e|es|ing)|wip(?:e|es|ing)|"
    r"resets?|resetting|signs? you out|logs? you out|signs? out|voids?|expos(?:e|es|ing)|exposed|"
    r"weakens?|bricks?|breaks?|destroys?|undone|permanent|irreversible|destructive|dangerous|risky|"
    r"drastic|full access|cannot be reversed|can'?t be reversed|wipes? out|clears? (?:all|your|every)|"
    r"effacera|supprimera|perdrez|perdra|perderá|perderás|eliminará|borrará|entfernen|entfernt|"
    r"cancellerà|eliminerà|perderai|perderà|perderete|cancella|apagará|vai (?:eliminar|apagar|perder)|"
    r"wist|verwijdert|verlies|verliest|kwijt|skasuje|usunie|stracisz|utracisz|straci|"
    r"apaga|cancella|efface|löscht|usuwa|kasuje|borra|"
    r"verlieren|gelöscht|"
    # what it means losing: "... implica perder el descuento", "... significa perder o desconto"
    r"(?:implica|significa|signifie|bedeutet|betekent|oznacza|means) (?:\w+ )?(?:perder|perdere|perdre|"
    r"verlieren|verliezen|utrat\w*|stra\w+|losing))\b"
)


_PREDICATE_WORDS = 12  # what a warning says of the action follows it closely


def _said_to_help(predicate: Sequence[str]) -> bool:
    after = " ".join(predicate)
    return _POSITIVE.search(after) is not None or helps(after)


_NEGATED_BEFORE = re.compile(
    r"\b(?:not|never|won'?t|doesn'?t|don'?t|isn'?t|ne|n'|non|não|nao|niet|nie|nicht|no|nunca|mai)\b"
)


_NEGATED_ANYWHERE = re.compile(
    r"\b(?:ne|n'|pas|non|não|nao|niet|nie|nicht|kein\w*|geen|no|nunca|nooit|nie|mai|jamais|nada|niets|nichts|"
    r"rien|niente|nic)\b"
)


# A conditional right after the subject, in the eight languages: "would", "réintroduirait", "volvería",
# "riaprirebbe", "reabriria", "zou", "würde", "otworzyłoby".
_CONDITIONAL = re.compile(
    r"^(?:\S+ )?(?:would|'d|würde|würden|wäre|wären|zou|zouden|\w+(?:rait|raient|ría|rían|rebbe|rebbero|ria|"
    r"riam|łoby|łby|łaby|liby))\b"
)
# "can", "may" right after the subject (a few words between: "en cours de route peut"): what doing it
# can do, a risk unless it helps ("Forcer l'arrêt ... peut corrompre le registre", "Den Installer zu
# beenden kann ... beschädigen"; not "Reinstalar puede solucionar el problema").
_POSSIBLE = re.compile(
    r"^(?:\S+ ){0,4}(?:can|may|could|might|peut|peuvent|pourrait|kann|können|könnte|puede|pueden|podría|"
    r"può|possono|potrebbe|pode|podem|poderia|kan|kunnen|kon|może|mogą|mogłoby)\b"
)
_NO_HARM = re.compile(
    r"\b(?:can'?t|cannot|can not|won'?t|wouldn'?t|would not|will not|doesn'?t|does not) (?:hurt|harm)\b"
)
# What a conditional says when it advises: "would be best", "sería lo mejor", "wäre am besten".
_BETTER = BETTER


# Dutch "oplossen" split: "lost het probleem (niet) op"
_DUTCH_SOLVES = re.compile(r"^(?:\S+ )?lost\b(?: \S+){0,5}? op\b")
_DUTCH_NOT = re.compile(r"\b(?:niet|nooit|geen)\b")


def _predicate(words: Sequence[str], end: int, text: str, at: int, facts: Facts) -> Outcome:
    """A match that is its clause's subject: what the rest of the clause says about doing it."""
    after = " ".join(words[end : end + 8])
    solves = _DUTCH_SOLVES.search(after) if facts.language == "nl" else None
    if solves:  # "lost ... op" solves (English "lost" is a warning): "De headset ontkoppelen lost dit op"
        return CLEARS if _DUTCH_NOT.search(solves.group()) else ADVISES
    warning = _WARNING.search(after)
    if warning:
        # "won't delete your notes" reassures: a negated consequence encourages it.
        negated_warning = re.search(
            r"\b(?:won'?t|will not|doesn'?t|does not|can'?t|cannot|never)\b", after[: warning.start()]
        )
        if not negated_warning:
            return CLEARS
        if "undone" not in warning.group() and "reversed" not in warning.group():
            return ADVISES
        return CLEARS
    positive = _POSITIVE.search(after)
    if positive and not _NEGATED_BEFORE.search(after[: positive.start()]):
        return ADVISES  # "Reinstalling fixes it", not "Reinstalar não resolve nada"
    if _NO_HARM.search(after) or reversed_frame(after, facts.language):
        return ADVISES  # "... can't hurt", "... ne peut pas faire de mal", "... kann nicht schaden"
    if _CONDITIONAL.search(after) or _POSSIBLE.search(after) or consequence(after, facts.language):
        better = _BETTER.search(after)
        if better is None:
            return CLEARS  # "Annuler la mise à jour réintroduirait la faille": what it would do, a warning
        # "Reinstalar sería lo mejor", "Neu installieren wäre sinnvoll"; not "no sería lo mejor"
        return CLEARS if _NEGATED_BEFORE.search(after[: better.start()]) else ADVISES
    if facts.language != "en" and helps(after):  # "... helpt meestal", "... hilft fast immer"
        return CLEARS if _NEGATED_ANYWHERE.search(after) else ADVISES  # not "... hilft nicht"
    stance = _stance_of(text[at:]) or facts.reply
    if stance in ("yes", "endorse"):
        return ADVISES
    if stance in ("no", "reject"):
        return CLEARS
    return Outcome("uncertain", "says what it is or does, not whether to do it")
