"""Where a phrase occurs in words (`find_phrase`) and whether a text mentions it (`mentions`): word by word,
compound by compound, and in each language's other orders."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assay_runner.text.markdown import normalize
from assay_runner.text.match.determiners import DETERMINERS, _match_determiners, _without_determiners
from assay_runner.text.match.free_order import _SLACK, free_order
from assay_runner.text.match.gaps import (
    _PASSIVE_MODALS,
    _ROMANCE,
    after_verb_gap,
    modal_passive,
    particle_shifted,
)
from assay_runner.text.match.verb_final import _ANY_WORD, _clusters, _verb_final
from assay_runner.text.match.verb_first import VERB_FIRST, verb_first
from assay_runner.text.match.words import (
    Unit,
    Words,
    _has_compound,
    _rarest,
    _starts,
    compound_units,
    phrase_tokens,
)
from assay_runner.text.tokens import Token, TokenColumns, tokenize


def find_phrase(text: Words | Sequence[Token], phrase: str, language: str = "en") -> list[tuple[int, int]]:
    """Where the phrase occurs in the words, as sorted (start, end) token-index spans, end exclusive.

    Two readings are tried (see the module docstring): word by word with stems equal and the span on
    compound boundaries, and compound by compound with each compound's parts written together. A long
    text is best given as `Words` (indexed once for many phrases; its own language counts); a short one
    as its tokens, read in `language`. In German, a phrase in its dictionary order ("Profil löschen",
    "neu installieren", "zurücksetzen") also matches a clause that starts with its verb ("Löschen Sie das
    Profil", "Installieren Sie die App neu", "Setzen Sie das Gerät zurück"): `verb_first`.
    """
    if isinstance(text, Words):
        language = text.language
    wanted = phrase_tokens(phrase, language)
    core = _without_determiners(wanted)
    if isinstance(text, Words):
        spans = set(_match_stems(text, [t.stem for t in wanted]))
        if _has_compound(wanted) or text.compound:
            spans.update(_match_unit_keys(text, [unit[0] for unit in compound_units(wanted)]))
        if core:
            spans.update(_match_determiners(text.tokens, core, text.stem_lookup.occurrences(core[0])))
        if language in _ROMANCE:
            spans.update(after_verb_gap(text.tokens, wanted, text.stem_lookup.occurrences(wanted[0].stem)))
        if language == "en":
            spans.update(particle_shifted(text.tokens, wanted, text.stem_lookup.occurrences(wanted[0].stem)))
        verb_object = [t.stem for t in wanted if t.text not in DETERMINERS]
        if language in _PASSIVE_MODALS and len(verb_object) >= 2:
            spans.update(
                modal_passive(text.tokens, verb_object, text.stem_lookup.occurrences(verb_object[1]))
            )
        return sorted(spans)
    spans = set(_match_words(text, wanted))
    if core:
        spans.update(_match_determiners(text, core, (i for i, t in enumerate(text) if t.stem == core[0])))
    if language in _ROMANCE:
        spans.update(
            after_verb_gap(text, wanted, (i for i, t in enumerate(text) if t.stem == wanted[0].stem))
        )
    if language == "en":
        spans.update(
            particle_shifted(text, wanted, (i for i, t in enumerate(text) if t.stem == wanted[0].stem))
        )
    verb_object = [t.stem for t in wanted if t.text not in DETERMINERS]
    if language in _PASSIVE_MODALS and len(verb_object) >= 2:
        spans.update(
            modal_passive(text, verb_object, (i for i, t in enumerate(text) if t.stem == verb_object[1]))
        )
    if _has_compound(wanted) or _has_compound(text):
        spans.update(_match_units(compound_units(text), compound_units(wanted)))
    if language in VERB_FIRST:
        spans.update(verb_first(text, wanted, language))
    if language in _SLACK:
        spans.update(free_order(text, wanted, _SLACK[language]))
    if language in VERB_FIRST:
        for cluster in _clusters(phrase, language):
            spans.update(_match_words(text, cluster))
        spans.update(_verb_final(text, phrase, language))
    return sorted(spans)


def mentions(text: str, phrase: str) -> bool:
    """Does the (markdown) text mention the phrase? Whole words, in order, tolerant of case, punctuation
    and simple inflection; see the module docstring for the hyphen rule."""
    return bool(find_phrase(tokenize(normalize(text)), phrase))


def _match_stems(words: Words, wanted: list[str]) -> list[tuple[int, int]]:
    """`_match_words` over indexed words: tried where the rarest stem is, compared as list slices."""
    tokens, stems = words.tokens, words.stems
    flags = tokens.flags if isinstance(tokens, TokenColumns) else [t.joined for t in tokens]
    n, count = len(wanted), len(tokens)
    spans = []
    for i in _starts(words, wanted):
        if i + n > count:
            break
        if flags[i] or (i + n < count and flags[i + n]):
            continue  # starts or ends inside a compound
        if stems[i : i + n] == wanted:
            spans.append((i, i + n))
    return spans


def _match_words(tokens: Sequence[Token], wanted: Sequence[Token]) -> list[tuple[int, int]]:
    """`wanted` word by word wherever its first stem is, on compound boundaries."""
    n = len(wanted)
    first = wanted[0].stem
    spans = []
    for i in [i for i, token in enumerate(tokens) if token.stem == first]:
        if i + n > len(tokens):
            break
        starts_inside = tokens[i].joined
        ends_inside = i + n < len(tokens) and tokens[i + n].joined
        if starts_inside or ends_inside:
            continue
        if all(tokens[i + k].stem == wanted[k].stem or wanted[k] is _ANY_WORD for k in range(n)):
            spans.append((i, i + n))
    return spans


def _match_unit_keys(words: Words, wanted: Sequence[str]) -> list[tuple[int, int]]:
    """`wanted` (compound keys) unit by unit in the words' `unit_keys`, as token spans. Found from the
    rarest key (a compound's key is not counted: it is rare) and checked unit by unit on either side,
    stepping over the None a compound leaves on its later tokens."""
    keys = words.unit_keys
    anchor = _rarest(lambda: words.stem_counts, wanted)
    spans = []
    for p in words.unit_lookup.occurrences(wanted[anchor]):
        first = p
        for k in range(anchor - 1, -1, -1):  # the units before the anchor, last first
            first -= 1
            while first >= 0 and keys[first] is None:
                first -= 1
            if first < 0 or keys[first] != wanted[k]:
                break
        else:
            end = _unit_end(keys, p)
            for k in range(anchor + 1, len(wanted)):  # the units after it
                if end >= len(keys) or keys[end] != wanted[k]:
                    break
                end = _unit_end(keys, end)
            else:
                spans.append((first, end))
    return spans


def _unit_end(keys: Sequence[str | None], start: int) -> int:
    """The token after the unit that starts at `start`."""
    end = start + 1
    while end < len(keys) and keys[end] is None:
        end += 1
    return end


def _match_units(
    units: Sequence[Unit], wanted: Sequence[Unit], at: Iterable[int] | None = None
) -> list[tuple[int, int]]:
    n, first = len(wanted), wanted[0][0]
    return [
        (units[i][1], units[i + n - 1][2])
        for i in ([i for i, unit in enumerate(units) if unit[0] == first] if at is None else at)
        if i + n <= len(units) and all(units[i + k][0] == wanted[k][0] for k in range(n))
    ]
