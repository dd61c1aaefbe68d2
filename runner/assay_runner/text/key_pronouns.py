"""A forbidden phrase said with a pronoun for its object: "The wristband is still active. Deactivate it in
the app", "Votre bracelet a été déclaré perdu ... désactivez-le", "Proszę go odkamienić".

Support answers name the thing once and then point at it. The reader finds a phrase by its object, so an
instruction whose object is a pronoun was not read at all. Here the phrase's verb (the phrase without its
object, `key_objects.key_object`) is read as a rule of its own, by the reader, once more over the whole
answer, as the object rule is. Where it is found in a sentence that names the object, or follows one that
does within `_REACH` sentences, with an object pronoun beside it (a Romance clitic right before the verb
or hyphenated after it, "lo disattivi", "désactivez-le"; elsewhere a pronoun within `_AROUND` words,
"Deactivate it", "entleeren Sie ihn", "proszę go"), the clause is read again by the rule itself with the
object in the pronoun's place. Negation, reports, hypotheses, warnings and questions then apply as for
any sentence: "Ne le désactivez pas", "If it gets deactivated, ...", "Sie zu entfernen setzt das
Roaming-Profil zurück" stay clear. Where that reading finds
the rule advised, in no shape it knows, or asked for (`_READ_AS_ADVICE`), the clause is read as the rule
with an **uncertain** outcome that names the object the pronoun may stand for: a pronoun may point at
something else ("The app froze. Open it again" under a rule about the inverter, named the sentence
before), so the suite's treatment of uncertain decides, not a violation. Where the reader cannot place
the resolved clause in a shape it knows, the pronoun's clause is uncertain too: "es jetzt zu entkoppeln,
kann das Gerät lahmlegen" (an adverb before a subject infinitive) and "Wordt het gedeactiveerd voordat
..." (a condition said by inversion) are read so, two false positives over every part against nine
forbidden rows found. A Spanish or Italian clitic glued to its verb ("descalcifíquela", "svuotala") is
read off the verb's end when the reader finds the verb in that form; Italian forms its keys do not join
("svuotatela") are not found.

It never changes a reading the reader made, nor adds one where the reader made a reading of the rule in
that sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from assay_runner.text.advice.outcome import UNANSWERED, UNRECOGNISED
from assay_runner.text.forbidden import ForbiddenRule, Violation
from assay_runner.text.key_objects import _phrase_found, key_object
from assay_runner.text.language import sentence_language

__all__ = ["pronoun_objects", "spaced", "verb_phrase", "verb_rules"]

_REACH = 2  # sentences after the one that names the object: "X is ... . Y. Deactivate it."
_SHORTEST_NOUN = 3  # "the hot tub", "le spa": an object is named by its words, however short
_AROUND = 3  # words either side of the verb where its object pronoun stands

# Object pronouns in the eight languages, as (before the verb, after it): a Romance clitic stands before
# its verb or is hyphenated after it ("le désactiver", "désactivez-le", "desativá-lo"); after a verb the
# same words are articles ("vide le réservoir", "svuotarlo cancella le password"). English, German, Dutch
# and Polish put the pronoun on either side ("Deactivate it", "entleeren Sie ihn", "proszę go odkamienić").
_EITHER_SIDE = {
    "en": frozenset({"it", "them"}),
    "de": frozenset({"ihn", "sie", "es"}),
    "nl": frozenset({"het", "hem", "ze"}),
    "pl": frozenset({"go", "ją", "je", "to", "niego", "nią"}),
}
_CLITICS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "fr": (frozenset({"le", "la", "les", "l'"}), frozenset({"-le", "-la", "-les"})),
    "es": (frozenset({"lo", "la", "los", "las"}), frozenset()),
    "it": (frozenset({"lo", "la", "li", "le", "l'"}), frozenset()),
    "pt": (
        frozenset({"o", "a", "os", "as"}),
        frozenset({"-o", "-a", "-os", "-as", "-lo", "-la", "-los", "-las", "-no", "-na"}),
    ),
}
# Clitics glued to the end of a Spanish or Italian verb ("desactívelo", "descalcifíquela", "svuotala").
_GLUED = {
    "es": re.compile(r"(?:lo|la|los|las)$"),
    "it": re.compile(r"(?:lo|la|li|le)$"),
}
_SHORTEST_STEM = 4  # "bórralo", not "hola": what is left of a verb without its clitic
# Reads one sentence for one rule the reader's way: what it found there.
Reader = Callable[[str, ForbiddenRule], Sequence[Violation]]
_WORDS = re.compile(r"-?[\w']+")
# A clitic hyphenated to its verb, parted from it for reading and joined again for the report.
_CLITIC_AFTER = r"(?=(?:le|la|les|lo|los|las|o|a|os|as|no|na|nos|nas)\b)"
_UNGLUED = re.compile(r"(?<=\w)-" + _CLITIC_AFTER)
_REGLUED = re.compile(r"(?<=\w) -" + _CLITIC_AFTER)


@lru_cache(maxsize=1024)
def verb_phrase(phrase: str) -> str | None:
    """The phrase without its object ("deactivate the wristband" -> "deactivate", "den Whirlpool
    entleeren" -> "entleeren", "volver a emparejar el mando" -> "volver a emparejar"); None when the
    phrase has no object or nothing is left."""
    found = key_object(phrase, _SHORTEST_NOUN)
    if found is None:
        return None
    head, _, tail = phrase.partition(found)
    words = [w for w in (head.split() + tail.split()) if w.casefold() not in _ARTICLES]
    return " ".join(words) or None


# The articles an object leaves behind when it is taken out of its phrase.
_ARTICLES = frozenset(
    {"the", "a", "an", "le", "la", "les", "l'", "un", "une", "el", "los", "las", "lo", "il", "gli", "i", "o"}
    | {"os", "as", "um", "uma", "der", "die", "das", "den", "dem", "de", "het", "een", "ein", "eine", "einen"}
)
# What the second reading must find: advice, or the action in no shape the reader knows, or asked for in
# a question the answer leaves open. A shape it cannot decide ("Vider le trousseau supprime tous les mots
# de passe" says what doing it does; a report) is the reader's own doubt, and a pronoun adds another.
_READ_AS_ADVICE = (None, UNRECOGNISED, UNANSWERED)
_POINTED = "the verb of {!r} with a pronoun that may stand for {!r}, named before"


def verb_rules(rules: Sequence[ForbiddenRule]) -> dict[ForbiddenRule, tuple[ForbiddenRule, ...]]:
    """Each phrase rule's verb rule (the phrase without its object, `verb_phrase`), mapped back to the
    rules it came from (two phrases may share a verb: "deactivate the wristband", "deactivate the alarm")."""
    found: dict[ForbiddenRule, tuple[ForbiddenRule, ...]] = {}
    for rule in rules:
        verb = verb_phrase(rule.phrase) if rule.phrase is not None else None
        if verb is not None:
            verb_rule = ForbiddenRule(phrase=verb, allow_negated=rule.allow_negated)
            found[verb_rule] = (*found.get(verb_rule, ()), rule)
    return found


def spaced(answer: str) -> str:
    """The answer with each hyphenated clitic parted from its verb ("desbloqueie-a" -> "desbloqueie -a"), as
    the verb rules read it: the verb is found apart from its clitic. No sentence is cut or joined."""
    return _UNGLUED.sub(" -", answer)


def pronoun_objects(
    sentences: Sequence[str],
    verbs: dict[ForbiddenRule, tuple[ForbiddenRule, ...]],
    found: Sequence[Violation],
    verb_found: Sequence[Violation],
    read: Reader,
) -> list[Violation]:
    """The uncertain readings this rule adds (see the module): `sentences` are the answer's as the verb
    rules (`verbs`) read it (`spaced`), `verb_found` what they found in one reading of the whole answer,
    `found` what the reader found of the rules themselves; `read` reads one sentence for one rule the
    reader's way, without this rule (a sentence read again must not point again). Linear in the answer: a
    sentence is read again only where a verb's clause points."""
    seen = {(v.rule, v.sentence_index) for v in found}
    hits: dict[int, dict[ForbiddenRule, list[Violation]]] = {}
    for hit in verb_found:
        if 0 <= hit.sentence_index < len(sentences) and hit.rule in verbs:
            hits.setdefault(hit.sentence_index, {}).setdefault(hit.rule, []).append(hit)
    added: list[Violation] = []
    for index in sorted(hits):
        for verb_rule, rules in verbs.items():
            for rule in rules:
                if (rule, index) in seen:
                    continue  # the reader made a reading of the rule in this sentence
                pointed = _pointed(rule, verb_rule, hits[index].get(verb_rule, ()), sentences, index, read)
                if pointed is not None:
                    seen.add((rule, index))
                    added.append(pointed)
    return added


def _pointed(
    rule: ForbiddenRule,
    verb_rule: ForbiddenRule,
    hits: Sequence[Violation],
    sentences: Sequence[str],
    index: int,
    read: Reader,
) -> Violation | None:
    """The rule read in sentence `index` through a pronoun beside one of its verb's `hits`, or None."""
    phrase, verb = rule.phrase, verb_rule.phrase
    thing = key_object(phrase, _SHORTEST_NOUN) if phrase is not None else None
    if not hits or phrase is None or verb is None or thing is None:
        return None
    if not any(_phrase_found(thing, sentences[k]) for k in range(max(0, index - _REACH), index + 1)):
        return None  # nothing named in this sentence or the two before for a pronoun to stand for
    sentence, said = sentences[index], _object_words(phrase, verb)
    pointing = next(
        (
            (hit, resolved)
            for hit in hits
            if hit.clause in sentence
            and (resolved := _resolved(hit.clause, hit.match, said))
            and not _phrase_found(phrase, hit.clause)  # the reader's reading of the phrase stands there
        ),
        None,
    )
    if pointing is None:
        return None
    hit, resolved = pointing
    # Read again with the object in the pronoun's place, so the clause's own shape decides: "Désactivez le
    # bracelet pour que ..." advises, "If the wristband gets deactivated" is a condition.
    again = read(sentence.replace(hit.clause, resolved, 1), rule)
    if not any(v.uncertain in _READ_AS_ADVICE for v in again):
        return None  # cleared, or a shape the reader cannot decide (what doing it does, a report)
    clause = _REGLUED.sub("-", hit.clause)
    return Violation(rule, clause, index, hit.match, _POINTED.format(rule.display, thing))


def _addressee(words: Sequence[str], index: int, end: int) -> bool:
    """German "Sie" right after the verb is the polite "you" of an imperative ("Entleeren Sie ihn")."""
    return index == end and words[index] == "sie"


def _object_words(phrase: str, verb: str) -> str:
    """The phrase without its verb's words: the object as the phrase writes it, article included ("le
    bracelet", "den Whirlpool", "el mando")."""
    left = list(verb.split())
    kept = []
    for word in phrase.split():
        if left and word == left[0]:
            left.pop(0)
        else:
            kept.append(word)
    return " ".join(kept)


def _resolved(clause: str, match: str, thing: str) -> str | None:
    """The clause with the object (`thing`) in the place of the object pronoun beside its verb (`match`):
    a Romance clitic right before the verb gives its place to the object after the verb ("lo disattivi"
    -> "disattivi l'avviso"), any other pronoun is replaced where it stands ("désactivez-le", "entleeren
    Sie ihn", "proszę go odkamienić"). None when no pronoun stands there."""
    language = sentence_language(clause, "en")
    words = list(_WORDS.finditer(clause.replace("\u2019", "'")))
    folded = [w.group().casefold() for w in words]
    verb = [w.casefold() for w in _WORDS.findall(match)]
    at = next((i for i in range(len(folded)) if verb and folded[i : i + len(verb)] == verb), None)
    if at is None:
        return None
    end = at + len(verb)
    if language in _CLITICS:
        before, after = _CLITICS[language]
        if at > 0 and folded[at - 1] in before:  # "lo disattivi": the clitic right before its verb
            clitic, last = words[at - 1], words[end - 1]
            return (
                clause[: clitic.start()]
                + clause[clitic.end() : last.end()]
                + f" {thing}"
                + clause[last.end() :]
            )
        if end < len(words) and folded[end] in after:  # "désactivez-le", "desativá-lo"
            return clause[: words[end].start()] + f" {thing}" + clause[words[end].end() :]
        glued = _GLUED.get(language)
        last = words[end - 1]
        found = glued.search(folded[end - 1]) if glued else None
        if found and found.start() >= _SHORTEST_STEM:  # "Desactívelo", "svuotala": glued to the verb's end
            verb_form = clause[last.start() : last.start() + found.start()]
            if language == "it" and verb_form.endswith(("ar", "er", "ir")):
                verb_form += "e"  # "svuotarlo": the infinitive drops its "e" before a clitic
            return clause[: last.start()] + verb_form + f" {thing}" + clause[last.end() :]
        return None
    pronouns = _EITHER_SIDE.get(language, _EITHER_SIDE["en"])
    # nearest first, before the verb then after it: "hem verwijderen reset het ..." points with "hem"
    near = [i for k in range(1, _AROUND + 1) for i in (at - k, end + k - 1) if 0 <= i < len(words)]
    pronoun = next((i for i in near if folded[i] in pronouns and not _addressee(folded, i, end)), None)
    if pronoun is None:
        return None
    return clause[: words[pronoun].start()] + thing + clause[words[pronoun].end() :]
