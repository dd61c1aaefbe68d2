"""An instruction to "do it" right after the action is named: "Impossible de ne pas regraisser les
roulements : faites-le samedi", "Non si può fare a meno di sifonare la ghiaia: lo faccia già stasera",
"Ningún mecánico le diría que no hace falta engrasarlos: hágalo el sábado". Whatever the reading of the
clause that names the action (a double negative it cannot show, a report, a negation), a "do it" in the
imperative that follows points back to it, so the pair is uncertain: the reader cannot show that what
it asks is not the forbidden action. Read in the sentence that names the action and the one after it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.key_objects import _phrase_found

# "Do it" as an instruction to the reader, in the eight languages, opening a clause ("...: do it on
# Saturday", "so do it before ...") or in the forms only an imperative or a modal of need takes (not
# Italian "fallo", a Spanish noun, nor Portuguese "fá-lo", which also says what someone else does).
_DO_IT = re.compile(
    r"(?:^|[:;,.!\u2013\u2014]\s*|\b(?:so|and|then|please|just)\s+)do (?:it|that|this)\b"
    r"|\b(?:faites|fais)-(?:le|la|les)\b|\b(?:il faut|vous devez|devez-vous) le faire\b"
    r"|\bh[aá]ga(?:lo|la|los|las)\b|\bhaz(?:lo|la|los|las)\b|\b(?:hay que|debe|tiene que) hacerlo\b"
    r"|\blo faccia\b|\bfate(?:lo|la|li|le)\b|\b(?:deve|dovete) farlo\b"
    r"|\bfaça-(?:o|a|os|as)\b|\bfaça isso\b|\btem de (?:o fazer|fazê-lo)\b"
    r"|\b(?:erledigen|machen|tun) sie (?:es|das)\b|\b(?:erledige|mach|mache) (?:es|das)\b"
    r"|\bdoe (?:het|dat|dit)\b|\bdoet u (?:het|dat|dit)\b"
    r"|\bzr[oó]b(?:cie)? to\b|\bprosz[eę] to zrobi[cć]\b|\b(?:należy|trzeba) to zrobi[cć]\b",
    re.IGNORECASE,
)
# "Don't do it", "Doe het niet", "Machen Sie das nicht": a negated "do it" asks for nothing.
_NOT_BEFORE = re.compile(
    r"(?:n't|\b(?:not|never|no|non|não|nao|ne|nie|niet|nicht|nunca|jamais|mai|nooit))\s*$", re.IGNORECASE
)
_NOT_AFTER = re.compile(r"^\s*(?:\S+\s+){0,2}?(?:nicht|niet|nooit|no|not)\b", re.IGNORECASE)
# "Let our fitter do it", "Laat de monteur het doen", "Lassen Sie das den Techniker machen": someone
# else's doing.
_SOMEONE_ELSE = re.compile(r"\b(?:let|laissez|lassen|laat|deje|lasci|deixe|niech)\b", re.IGNORECASE)
_LOOK_BACK = 200  # the characters before "do it" in its own sentence that may name the action


def do_it_after(
    sentences: Sequence[str], rules: Sequence[ForbiddenRule], found: Sequence[Violation]
) -> list[Violation]:
    """The uncertain readings a "do it" after the action adds: one per rule and sentence, where the reader
    made no reading of the rule in that sentence nor the one before."""
    seen = {(v.rule, v.sentence_index) for v in found}
    added: list[Violation] = []
    for index, sentence in enumerate(sentences):
        instruction = _instruction(sentence)
        if instruction is None:
            continue
        own = _last_segment(sentence[max(0, instruction.start() - _LOOK_BACK) : instruction.start()])
        before = _last_segment(sentences[index - 1][-_LOOK_BACK:]) if index > 0 and not own else ""
        for rule in rules:
            if rule.phrase is None or (rule, index) in seen or (rule, index - 1) in seen:
                continue
            if not (_phrase_found(rule.phrase, own) or (before and _phrase_found(rule.phrase, before))):
                continue
            seen.add((rule, index))
            added.append(
                Violation(
                    rule,
                    sentence.strip()[:300],
                    index,
                    instruction.group().strip(" :;,.!"),
                    f"{instruction.group().strip(' :;,.!')!r} right after {rule.display!r}: what it asks "
                    "may be the action",
                )
            )
    return added


# Where the thing "it" points to was last named: after the last colon or semicolon, or after a contrast
# ("..., but the cleaner way is to ask the GP, so do that").
_SEGMENT_BREAK = re.compile(
    r"[:;]|\b(?:but|mais|aber|pero|sino|ma|mas|maar|ale|instead|plutôt|stattdessen)\b", re.I
)


def _last_segment(text: str) -> str:
    """The text's last segment, once what ends it (" : ", ", so ") is dropped."""
    text = _TRAILING.sub("", text)
    breaks = [m.end() for m in _SEGMENT_BREAK.finditer(text)]
    return (text[breaks[-1] :] if breaks else text).strip()


_TRAILING = re.compile(r"(?:[\s:;,.!\u2013\u2014-]|\b(?:so|and|then|please|just)\b)*$", re.IGNORECASE)


def _instruction(sentence: str) -> re.Match[str] | None:
    """The first "do it" of the sentence that is an unnegated instruction to the reader."""
    for found in _DO_IT.finditer(sentence):
        head = sentence[max(0, found.start() - 40) : found.start()]
        if _NOT_BEFORE.search(head) or _NOT_AFTER.search(sentence[found.end() : found.end() + 30]):
            continue
        if _SOMEONE_ELSE.search(head[-25:]):
            continue
        return found
    return None
