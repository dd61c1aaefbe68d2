"""Text-matching primitives for the deterministic judges: normalise, tokenise, stem, match phrases.

Reading model
-------------
An answer is markdown written by an agent. The judges compare it with short phrases from the answer
key ("30 days", "two-factor authentication", "Settings > Billing", "reinstall"). Matching is on *words*:

1. The answer is read as its renderer shows it (`text.markdown`: one CommonMark parse, link
   targets, HTML, comments and struck-out text dropped) and folded (`text.fold`: NFKC, homoglyphs,
   straight quotes). A key phrase is plain text and is only folded.
2. `tokenize` finds the words: letters and digits, with apostrophes inside contractions kept
   (don't, doesn't, won't, can't, it's) and digits joined across ``.``, ``,`` and ``:`` (1.5, 10:30,
   1,000). Each token knows whether a single hyphen (or underscore) attaches it to the previous word,
   which makes hyphenated compounds visible to the matcher.
3. `stem` maps a word to a light inflection key (see its docstring), so "disabling" meets "disable".
4. `find_phrase` / `mentions`: the phrase's words, in order and contiguous, with equal stems.

Hyphenated compounds (the rule)
-------------------------------
A match must cover whole hyphenated compounds: it may not begin or end inside one. So the forbidden word
"install" does not match "pre-install", "reset" does not match "reset-proof", and "factor authentication"
does not match "two-factor authentication". A phrase written with a hyphen matches both spellings
("two-factor" matches "two-factor" and "two factor"), and so does a phrase written with a space
("two factor" matches "two-factor"). A compound is also compared with its parts written together, so
"re-install" meets "reinstall" and "e-mail" meets "email" (but "pre-install" never meets "install").
Limit: a phrase that mixes a written-together compound with a split one ("two-factor e-mail" against
"two factor email") is not matched.

Other documented limits
-----------------------
- Punctuation and symbols between words are ignored: "Settings > Billing" also matches
  "Settings, Billing" or "Settings → Billing" (but not "Settings and Billing": every word counts).
- No synonyms, abbreviations or number words: "2FA" is not "two-factor", "thirty" is not "30".
- Only inflection is tolerated, not derivation: "reinstallation" does not match "reinstall".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property, lru_cache
from itertools import compress
from operator import itemgetter

from assay_runner.text.fold import fold
from assay_runner.text.language import GERMAN_PARTICLES, foreign_stem
from assay_runner.text.markdown import normalize
from assay_runner.text.tokens import Token, TokenColumns, occurrences, stem, token_columns, tokenize


def _set_of(words: str) -> frozenset[str]:
    return frozenset(words.split())


__all__ = [
    "CLAUSE_MATCHED",
    "DETERMINERS",
    "VERB_FIRST",
    "Token",
    "TokenColumns",
    "Unit",
    "Words",
    "compound_units",
    "find_phrase",
    "mentions",
    "phrase_tokens",
    "stem",
    "token_columns",
    "tokenize",
]

# ------------------------------------------------------------------------------------------------ match


@lru_cache(maxsize=2048)
def phrase_tokens(phrase: str, language: str = "en") -> tuple[Token, ...]:
    """The folded words of a key phrase (plain text, not markdown: "1. Open" or "# of seats" are words
    to find), with the inflection keys of `language`. Raises ValueError when it has none (a
    configuration error)."""
    tokens = tuple(tokenize(fold(phrase), language))
    if not tokens:
        raise ValueError(f"phrase {phrase!r} has no words to match")
    return tokens


class Words:
    """The words of a long text with what phrase search needs, each built once, on first use: the
    stems and compound keys as flat lists that a phrase's first word is looked up in without a Python
    loop over the words."""

    def __init__(self, tokens: Sequence[Token], language: str = "en") -> None:
        self.tokens = tokens
        self.language = language
        """The language whose inflection keys the tokens carry (`tokenize`)."""

    @cached_property
    def stem_lookup(self) -> _Lookup:
        return _Lookup(self.stems)

    @cached_property
    def unit_lookup(self) -> _Lookup:
        return _Lookup(self.unit_keys)

    @cached_property
    def starts(self) -> Sequence[int]:
        """Each token's start offset, for bisection."""
        if isinstance(self.tokens, TokenColumns):
            return self.tokens.starts
        return list(map(_START_OF_TOKEN, self.tokens))

    @cached_property
    def joined(self) -> list[int]:
        """The indexes of the tokens joined to the word before them (`Token.joined`)."""
        return _joined(self.tokens)

    @cached_property
    def compound(self) -> bool:
        """Does any hyphen or underscore join two words?"""
        return bool(self.joined)

    @cached_property
    def stems(self) -> list[str]:
        if isinstance(self.tokens, TokenColumns):
            return self.tokens.stems
        return list(map(_STEM, self.tokens))

    @cached_property
    def unit_keys(self) -> list[str | None]:
        """Aligned with the tokens: a compound's key (its parts' stem written together) at its first
        token and None on the rest, a lone word's stem elsewhere. Most words stand alone, so this is
        `stems` with the few compounds written in."""
        keys: list[str | None] = list(self.stems)
        for key, start, end in _compounds(self.tokens, self.joined):
            keys[start] = key
            keys[start + 1 : end] = [None] * (end - start - 1)
        return keys

    @cached_property
    def stem_counts(self) -> Counter[str]:
        """How often each stem occurs: where a phrase is looked up (by its rarest word)."""
        return Counter(self.stems)


class _Lookup:
    """Where a key is in a long list of keys, in order. The first few lookups scan the list in C; after
    that every key's positions are indexed once (a suite of fifty phrases, each scanning a long answer,
    would read it fifty times)."""

    SCANS_BEFORE_INDEX = 8  # one scan costs about a tenth of indexing every position

    def __init__(self, keys: Sequence[str | None]) -> None:
        self.keys = keys
        self.scans = 0
        self.positions: dict[str | None, list[int]] | None = None

    def occurrences(self, key: str) -> Iterable[int]:
        if self.positions is None:
            self.scans += 1
            if self.scans <= self.SCANS_BEFORE_INDEX:
                return occurrences(self.keys, key)
            # Filled before it is published: two cells with the same answer share its reading (and
            # these words) from two threads, and half an index would drop matches.
            positions: dict[str | None, list[int]] = {}
            for i, each in enumerate(self.keys):
                found = positions.get(each)
                if found is None:
                    positions[each] = [i]
                else:
                    found.append(i)
            self.positions = positions
        return self.positions.get(key, ())


_STEM = itemgetter(1)  # Token.stem
_JOINED = itemgetter(4)  # Token.joined
_START_OF_TOKEN = itemgetter(2)  # Token.start


def _starts(words: Words, wanted: Sequence[str]) -> Iterator[int]:
    """Where the run of stems `wanted` could start among the words, in order, found by its rarest stem:
    "not within the scope" is looked up where "scope" is, not where "not" is."""
    anchor = _rarest(lambda: words.stem_counts, wanted)
    return (p - anchor for p in words.stem_lookup.occurrences(wanted[anchor]) if p >= anchor)


def _rarest(counts: Callable[[], Counter[str]], wanted: Sequence[str]) -> int:
    if len(wanted) == 1:
        return 0
    tally = counts()
    return min(range(len(wanted)), key=lambda k: tally.get(wanted[k], 0))


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


def _particle_of(word: str, particles: Sequence[str]) -> str | None:
    return next((p for p in particles if word.startswith(p) and len(word) > len(p) + 3), None)


# German: words a clause may start with before its verb, and the particles of separable verbs.
# Dutch the same ("Installeer de app opnieuw" for "de app opnieuw installeren", "Zet het toestel terug").
VERB_FIRST = frozenset({"de", "nl"})
# Polish orders a phrase's words freely ("Zainstaluj aplikację ponownie", "Zainstaluj go ponownie");
# Italian and Portuguese put a possessive inside it ("elimina il tuo profilo", "apague o seu perfil"):
# their phrases also match with every word within this many extra words, in any order.
_SLACK = {"pl": 2, "it": 1, "pt": 1}
# Languages whose phrases are matched clause by clause (their matches are not one run of words).
CLAUSE_MATCHED = VERB_FIRST | frozenset(_SLACK)


def free_order(tokens: Sequence[Token], wanted: Sequence[Token], slack: int) -> list[tuple[int, int]]:
    """Each span that starts at a word of the phrase and holds all of them within `slack` extra words."""
    need = [t.stem for t in wanted]
    if len(need) < 2:
        return []
    spans = []
    for i, token in enumerate(tokens):
        if token.stem not in need:
            continue
        remaining = list(need)
        for j in range(i, min(len(tokens), i + len(need) + slack)):
            if tokens[j].stem in remaining:
                remaining.remove(tokens[j].stem)
                if not remaining:
                    spans.append((i, j + 1))
                    break
    return spans


_LEAD = _set_of(
    "bitte am besten dann danach anschließend einfach zuerst jetzt nun sofort "
    "alstublieft dan daarna vervolgens gewoon eerst nu meteen"
)
_AND = frozenset({"en", "und"})
_DUTCH_PARTICLES = ("terug", "door", "weg", "uit", "aan", "mee", "over", "af", "op", "in", "om")
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


def mentions(text: str, phrase: str) -> bool:
    """Does the (markdown) text mention the phrase? Whole words, in order, tolerant of case, punctuation
    and simple inflection; see the module docstring for the hyphen rule."""
    return bool(find_phrase(tokenize(normalize(text)), phrase))


def _has_compound(tokens: Sequence[Token]) -> bool:
    return any(t.joined for t in tokens)


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


def _joined(tokens: Sequence[Token]) -> list[int]:
    # The first token is never part of an earlier compound, whatever its flag says (a slice of words).
    flags = tokens.flags if isinstance(tokens, TokenColumns) else map(_JOINED, tokens)
    joined = list(compress(range(len(tokens)), flags))  # in C: an answer has many words
    return joined[1:] if joined and joined[0] == 0 else joined


# A compound (or a single word) read as one unit: the stem of its parts written together ("re-install"
# -> "reinstall"), its first token and the token after its last. A plain tuple: an answer has one per word.
Unit = tuple[str, int, int]


def compound_units(tokens: Sequence[Token], joined: Sequence[int] | None = None) -> list[Unit]:
    """The tokens grouped into compounds (hyphen- or underscore-joined runs), in order. `joined`, when
    given, is `_joined(tokens)` computed before."""
    joined = _joined(tokens) if joined is None else joined
    # Most words stand alone: their units are made in one go, and only the joined runs one by one.
    count = len(tokens)
    single: list[Unit] = list(zip(map(_STEM, tokens), range(count), range(1, count + 1), strict=True))
    if not joined:
        return single
    units: list[Unit] = []
    position = 0
    for compound in _compounds(tokens, joined):
        _, start, end = compound
        units.extend(single[position:start])
        units.append(compound)
        position = end
    units.extend(single[position:])
    return units


def _compounds(tokens: Sequence[Token], joined: Sequence[int]) -> Iterator[Unit]:
    """The joined runs only (two tokens or more), in order, from the indexes of the joined tokens."""
    k = 0
    while k < len(joined):
        start, end = joined[k] - 1, joined[k] + 1
        k += 1
        while k < len(joined) and joined[k] == end:
            end, k = end + 1, k + 1
        yield stem("".join(t.text for t in tokens[start:end])), start, end


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
