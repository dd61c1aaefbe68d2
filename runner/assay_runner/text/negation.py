"""Negation scope inside one clause: does a "not", "never", "without" or "avoid" govern the matched words?

The rules are described in `text.policy_reader` (the reading model); this module holds the
vocabulary and the reading of one clause (`ClauseView`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from assay_runner.text.clauses import Clause
from assay_runner.text.head_words import ClauseWords, head_of, words_of
from assay_runner.text.match import Token, stem, tokenize
from assay_runner.text.reversers import reverses

__all__ = [
    "ClauseView",
    "carried_negation",
    "clause_tokens",
    "double_negative",
    "encouraged",
    "german_negation",
    "may_hold_cues",
    "negated",
    "reported",
    "reversed_negation",
]


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _stemset(words: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words.split())


_NT_DIRECTIVE = frozenset(
    {"don't", "dont", "shouldn't", "shouldnt", "mustn't", "mustnt", "needn't", "neednt"}
)
_NT_BARE = frozenset(
    {"cannot", "cant", "wont", "isnt", "arent", "wasnt", "werent", "doesnt", "didnt", "hasnt", "havent"}
    | {"hadnt", "couldnt", "wouldnt", "aint"}
)
_NT_ALL = _NT_BARE | _NT_DIRECTIVE
# "not" after these describes a state ("it is not", "will not help"); after do/should/must it directs.
_DESCRIPTIVE_BEFORE_NOT = frozenset(
    {"is", "are", "was", "were", "be", "been", "am", "does", "did", "has", "have", "had", "will", "would"}
    | {"could", "can", "may", "might", "it's", "that's", "there's", "here's", "what's", "i'm", "you're"}
    | {"we're", "they're", "he's", "she's"}
)
_COPULA_AUX = frozenset(
    {"is", "are", "was", "were", "be", "will", "would", "should", "does", "do", "did", "can", "could"}
    | {"may", "might", "must"}
)
# Words the negation passes through to reach its head: auxiliaries, modals, pronouns, determiners,
# necessity and attempt ("do not need to try to reinstall", "no need to", "not necessary to").
_TRANSPARENT = _wordset(
    """
    do does did doing done will would shall should can could may might must ought
    have has had having be been being is are was were am get gets got
    need needs needed needing necessary necessarily required require requires recommended recommend
    advisable advised advise wise safe reason point benefit worth good idea use anything
    a an the any your this that these those my our their its some
    it you we i they them yourself yourselves one anyone anybody someone
    to in for of at all ever even actually really yet again still now first please
    try tries tried trying attempt attempts attempted attempting bother go going want wants wish plan
    able allowed supposed expected meant ahead
    est pas de d' la le les l' un une des vous nous il faut devez pouvez avez besoin nécessaire jamais plus
    recommandons recommande conseillons conseille y en
    es el los las lo le hace falta necesario usted se recomendamos recomiendo debe debería hay que
    sie die das den dem der es ist nötig notwendig erforderlich müssen sollten bitte zu einen eine ein
    grund
    è necessario bisogno serve servirà c' deve devi dovete puoi può potete più il lo gli un una l' di
    é necessário preciso precisa precisam você vocês deve devem pode podem o os as um uma mais
    hoeft hoeven hoef moet moeten nodig noodzakelijk kunt kan mag je jij u het de een te ooit meer om
    trzeba należy musisz musi musicie potrzeba warto sensu go ją ich tego tej się już więcej
    """
)
_NOT_ADVERBS = frozenset(
    {"apply", "reply", "supply", "rely", "comply", "family", "only", "early", "fly", "ally"}
)
# A negation whose head is one of these does not negate what follows: it encourages it.
_REVERSERS = _stemset(
    """
    hard difficult complicated tricky hesitate forget forgot fail worry worries panic fret wait delay
    afraid only just merely matter doubt problem big much long sure hurt harm lose lost break broke
    damage affect mind wrong beat bad take takes took cost short alternative substitute rule
    """
)
# Predicates that, negated, reject the subject: "reinstalling is not necessary / won't help".
_PREDICATES = _stemset(
    """
    necessary needed required recommended advised advisable helpful useful warranted option solution
    fix answer supported allowed permitted safe wise idea work solve resolve help worth appropriate way
    guaranteed possible
    """
)
# Predicates that reject their subject without a "not": "reinstalling is unnecessary".
_REJECTING = _stemset(
    """
    unnecessary pointless useless unhelpful futile discouraged prohibited forbidden unsupported waste
    mistake risky dangerous harmful unwise inadvisable bad
    """
)
_COORDINATORS = frozenset({"or", "nor", "and"})
_JOINING = frozenset({"and", "but", "so", "or"})
# A "not" after these states a fact ("does not sync", "is not responding"), and so do these contractions.
_STATE_AUX = frozenset({"does", "did", "is", "are", "was", "were"})
_STATE_NEGATIONS = frozenset(
    {"doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "doesnt", "didnt", "isnt", "arent"}
    | {"wasnt", "werent"}
)
# Verbs that take another verb or an action as their object: "does not require / help / mean reinstall".
_TAKES_A_VERB = _stemset(
    """
    require need mean involve include support allow permit recommend advise suggest help let make want
    use cover fix solve replace cause affect prevent stop mind try bother dare seem appear
    """
)
_MAX_ADVERBS = 4  # "is really not": adverbs between a verb and its "not", read no further than this
_MAX_CHAIN = 8  # negations stacked on one another ("not not not ...") are read no further back than this
_RESTARTS = _wordset("just simply please so then")
_ALREADY = frozenset({"already", "già", "já", "al", "już", "déjà", "ya", "schon", "bereits"})
_POSITIONED = {
    "restart": _RESTARTS,
    "coordinator": _COORDINATORS,
    "why": frozenset({"why", "reason"}),
    "already": _ALREADY,
}
_FORBIDDING = _wordset(
    "forbid forbids forbade forbidding prohibit prohibits prohibited ban bans disallow disallows"
) | _wordset(  # advising against: Italian, Portuguese, Polish, Dutch, French, Spanish, German
    """sconsiglio sconsigliamo sconsiglia sconsigliato sconsigliata sconsigliabile desaconselho
    desaconselhamos desaconselha desaconselhado desaconselhável odradzam odradzamy odradza odradzane
    ontraden ontraad ontraadt afgeraden déconseille déconseillons déconseillé déconseillée
    desaconsejo desaconsejamos desaconseja desaconsejado desaconsejable abgeraten abzuraten"""
)
_ADVISING = _stemset("recommend advise caution warn argue decide")
# Dutch "afraden" (advise against) split: "We raden af de firewall uit te schakelen".
# German "abraten" likewise: "Wir raten davon ab, ...".
_ADVISE_AGAINST = frozenset({"raden", "raad", "raadt", "rate", "raten", "rät"})
# "Already" before a match reports what was done: "you already reinstalled", "hai già reinstallato".
# Subjects whose past-tense verb reports what happened rather than advising it.
_REPORTERS = _wordset("you they i we he she customer user users customers already")


class _Cue(NamedTuple):
    start: int
    end: int
    strict: bool
    """Prepositional (without, instead of, avoid...): governs only the phrase it introduces."""
    directive: bool
    """Tells the reader not to do something (don't, never, avoid): may carry over a list."""


class ClauseView:
    """A clause (or a whole sentence) ready for matching: its words and negation cues.

    `tokens` may be a slice of a longer text's words (`AnswerView.tokens`): their offsets are in that
    text, where this view's `text` starts at offset `base`.
    """

    def __init__(
        self,
        text: str,
        tokens: list[Token],
        base: int = 0,
        opener: str | None = None,
        subordinate: bool = False,
        language: str = "en",
    ) -> None:
        self.text = text
        self.language = language
        self.tokens = tokens
        self.base = base
        self.opener = opener
        self.subordinate = subordinate
        self.words = words = list(map(_word, tokens))
        self.cues = cues = find_cues(words) if may_hold_cues(text, words) else []
        # Cues by kind with their ends, so each match finds the cues before it by bisection: a clause
        # with thousands of negated matches stays linear.
        self.verbal = [c for c in cues if not c.strict]
        self.verbal_ends = [c.end for c in self.verbal]
        self.prepositional = [c for c in cues if c.strict]
        self.prepositional_ends = [c.end for c in self.prepositional]
        opener_words = opener.split() if opener and opener[:1].isalpha() else []
        self.body_start = len(opener_words) if words[: len(opener_words)] == opener_words else 0

        # Every question a match asks of its clause is answered from these, each built once per clause
        # on first use, so a clause with thousands of matches stays linear ("It won't open reinstall
        # reinstall ..."). Plain attributes, not cached properties: a long answer has many clauses.
        self._opaque: dict[int, int] = {}
        self._positions: dict[str, list[int]] = {}
        self._first_opaque: int | None = None
        self._cancelled: dict[int, int] = {}
        self._clause_words: ClauseWords | None = None
        self.not_only = words[self.body_start : self.body_start + 2] == ["not", "only"]

    def clause_words(self) -> ClauseWords:
        """The words from the body on, indexed once for what each match asks of the words before it."""
        if self._clause_words is None:
            self._clause_words = ClauseWords(self.words, self.body_start)
        return self._clause_words

    def cancelled(self, index: int) -> int:
        """How many negations the verbal cue `index` cancels: those it heads ("no reason not to") or
        one before a "why" ("I don't see why you shouldn't"). Asked once per cue, however many matches
        follow it."""
        found = self._cancelled.get(index)
        if found is None:
            found = self._cancelled[index] = _double_negations(self, index) or _why_not(self, index)
        return found

    @property
    def first_opaque(self) -> int:
        """The first word after the opener that is not transparent (`len(words)` if none)."""
        if self._first_opaque is None:
            self._first_opaque = self.opaque_from(self.body_start)
        return self._first_opaque

    @property
    def subject_start(self) -> int:
        """Where the clause's subject may start: its first opaque word, after a conjunction that joins
        the clause to the one before ("..., and deleting the mailbox is never required")."""
        first = self.first_opaque
        if first < len(self.words) and self.words[first] in _JOINING:
            return self.opaque_from(first + 1)
        return first

    def opaque_from(self, position: int) -> int:
        """The first word at or after `position` that is not transparent (`len(words)` if none)."""
        found = self._opaque.get(position)
        if found is None:
            words = self.words
            found = len(words)
            for i in range(position, len(words)):
                if not _transparent(words[i]):
                    found = i
                    break
            self._opaque[position] = found
        return found

    def positions(self, kind: str) -> list[int]:
        """Where the words of one kind are, in order: "restart" (just, simply, please, so, then: they
        restart advice in a run-on), "coordinator" (or, nor, and), "why" (why, reason) or "already"."""
        found = self._positions.get(kind)
        if found is None:
            vocabulary = _POSITIONED[kind]
            found = self._positions[kind] = [i for i, w in enumerate(self.words) if w in vocabulary]
        return found


def _any_between(positions: list[int], after: int, before: int) -> bool:
    """Is any of the sorted `positions` in the open interval (after, before)?"""
    k = bisect_right(positions, after)
    return k < len(positions) and positions[k] < before


_word = itemgetter(0)  # Token.text, read without the attribute lookup: a long clause has many


def clause_tokens(
    sentence: Sequence[Token], starts: Sequence[int], base: int, clause: Clause, language: str = "en"
) -> tuple[list[Token], int]:
    """The words of one clause and the offset its text starts at in their frame, taken from its
    sentence's words rather than read again (`sentence` has offsets where the sentence starts at `base`,
    `starts` are those offsets made the sentence's own). `tokenize(clause.text)` exactly, which a word
    crossing the cut falls back to."""
    first, stop = bisect_left(starts, clause.start), bisect_left(starts, clause.end)
    inside = list(sentence[first:stop])
    crossing = (inside and inside[-1].end - base > clause.end) or (
        first and sentence[first - 1].end - base > clause.start
    )
    if crossing:
        return tokenize(clause.text, language), 0
    if inside and inside[0].joined:
        # The first word of a clause is never joined to a word before it: that word is in another clause.
        inside[0] = inside[0]._replace(joined=False)
    return inside, base + clause.start


# Every word that can be (or start) a negation cue: the others are skipped without a look at neighbours.
# French, Spanish and German cues: "ne ... pas", "sans", "au lieu de", "évitez de"; "nunca", "sin", "en
# lugar de", "evite"; "nicht", "nie", "kein", "ohne", "statt" (German "nicht" after the verb is read
# clause-wide: `german_negation`).
# Italian "non", "mai", "senza", "invece di", "evita"; Portuguese "não", "nunca", "sem", "em vez de",
# "evite"; Dutch "niet", "nooit", "geen", "zonder", "in plaats van", "vermijd" (clause-wide, as German);
# Polish "nie", "nigdy", "bez", "zamiast", "unikaj".
_FOREIGN_VERBAL = (
    frozenset({"ne", "n'", "jamais", "inutile", "nunca", "jamás", "jamas", "nie", "niemals"})
    | frozenset({"kein", "keine", "keinen", "keinem", "keiner", "keinesfalls", "nicht"})
    | frozenset({"non", "mai", "não", "nao", "niet", "nooit", "geen", "nigdy", "żadnym", "zadnym"})
    | frozenset({"nessun", "nessuna", "nessuno", "nemmeno", "neanche", "nem", "nenhum", "nenhuma"})
    | frozenset({"niets", "żaden", "żadna", "żadne", "ani"})
    | frozenset({"ni", "né", "weder"})  # neither ... nor: "Ni supprimer ... ni ...", "Weder ... noch ..."
    | frozenset({"nadie", "niemand", "ninguém", "ninguem", "nikt"})  # nobody
)
_FOREIGN_PREPOSITIONAL = frozenset(
    {"sans", "sin", "ohne", "statt", "anstatt", "senza", "sem", "zonder", "bez", "zamiast"}
)
_FOREIGN_AVOID = frozenset(
    {"évitez", "évite", "éviter", "evite", "evita", "evitar", "vermeiden", "evitate", "evitare", "eviti"}
    | {"evitem", "vermijd", "vermijden", "unikaj", "unikać", "unikajcie", "unikac"}
)
# "Unnecessary to", in every language: it governs only the action it introduces ("Es innecesario
# desactivar ...", "Het is onnodig om ... uit te schakelen"), not a noun it describes.
_NEEDLESS = frozenset(
    {"unnecessary", "needless", "pointless", "useless", "innecesario", "desnecessário", "desnecessario"}
    | {"onnodig", "nutteloos", "zinloos", "unnötig", "sinnlos", "überflüssig", "inútil", "inutil"}
    | {"superflu", "superflue", "superfluo", "zbędne", "niepotrzebne", "bezcelowe", "zbyteczne"}
)
# Two-word and three-word prepositional cues: "instead of" in French, Spanish, Italian, Portuguese, Dutch.
_FOREIGN_INSTEAD = frozenset(
    {("au", "lieu", "de"), ("en", "lugar", "de"), ("em", "vez", "de"), ("in", "plaats", "van")}
    | {("ao", "invés", "de")}
)
_INTERJECTIONS = frozenset({"no", "non", "não", "nao", "nee", "nein"})  # "No, ..." answers, not a ban
_GERMAN_NEGATION = frozenset({"nicht", "nie", "niemals", "keinesfalls"})
# German and Dutch "without", "instead of" take a phrase that ends with its verb: they govern the clause.
_VERB_FINAL = frozenset({"ohne", "statt", "anstatt", "zonder", "plaats"})
_DUTCH_NEGATION = frozenset({"niet", "nooit", "geen", "geenszins"})


_WITHOUT = frozenset({"without", "sans", "sin", "ohne", "senza", "sem", "zonder", "bez"})
_PLAIN_NEGATIONS = _FOREIGN_VERBAL | frozenset({"not", "never", "no", "nothing", "cannot", "nowhere"})
_WITHOUT_REACH = 4  # "zonder de headset te ontkoppelen": "without" opens the phrase the match is in
_STRETCH = 160  # characters after the match read for the other negation (bounded: linear in the answer)


def without_beside_negation(text: str, at: int) -> bool:
    """A match introduced by "without" in a stretch of its sentence (up to a ";" or ":") that holds
    another negation: "Zonder de headset te ontkoppelen komt u er niet", "Ohne das Gehäuse zu öffnen,
    lässt sich der Akku nicht tauschen", "You won't get anywhere without ...": the negations may cancel
    (the action may be required), so the "without" alone does not show that the action is rejected."""
    before = head_of(text, at).last(_WITHOUT_REACH + 8)
    near = before[-_WITHOUT_REACH:]
    if _WITHOUT.isdisjoint(near):
        return False
    after = text[at : at + _STRETCH]
    cut = min((k for k in (after.find(";"), after.find(":"), after.find(". ")) if k >= 0), default=len(after))
    lead = [w for w in before[: len(before) - _WITHOUT_REACH]]
    window = [*lead, *(w for w in near if w not in _WITHOUT), *words_of(after[:cut])]
    return any(w in _PLAIN_NEGATIONS or w.endswith("n't") for w in window)


def german_negation(words: Sequence[str], language: str = "de") -> bool:
    """A German (or Dutch) clause with "nicht", "nie", "niemals", "keinesfalls" or "auf keinen Fall"
    ("niet", "nooit", "geen") anywhere: the negation follows the verb it negates ("Installieren Sie die
    App nicht neu", "Installeer de app niet opnieuw")."""
    if language == "nl":
        return not _DUTCH_NEGATION.isdisjoint(words)
    return not _GERMAN_NEGATION.isdisjoint(words) or "keinen" in words


_AFTER_THE_VERB = frozenset({"de", "nl"})  # a negation follows the verb it negates


def _after_reversing(view: ClauseView, at: int) -> bool:
    """Does a verb that the negation at `at` reverses stand right before it ("Zögern Sie | nicht") or,
    verb-final, right after it ("kann | nicht schaden", "kan | geen kwaad")?"""
    around = [*range(max(0, at - 2), at), *range(at + 1, min(len(view.words), at + 2))]
    return any(_reversing(view, k) for k in around)


def encouraged(view: ClauseView, start: int, end: int) -> bool:
    """Does a negated reversing verb stand right before the match, in a language other than English
    ("N'hésitez pas à | réinitialiser", "Nie wahaj się | zresetować", "Aarzel niet om | de router ...")?
    Such a clause advises the match as "Don't hesitate to" does."""
    if view.language == "en":
        return False
    words = view.words
    for k in range(max(0, start - _ENCOURAGING_REACH), start):
        if _reversing(view, k):  # "oublier | de réinstaller", "wahaj się | zresetować"
            near = words[max(0, k - _ENCOURAGING_REACH) : k + 3]
            # German and Dutch negate the reversing verb after it ("Vergeet niet"): skip that one
            # and French closes its "ne" after it ("N'hésitez pas à")
            own = k + 3 if view.language in _AFTER_THE_VERB else k + 1
            if words[k + 1 : k + 2] in (["pas"], ["jamais"], ["plus"]):
                own = k + 2
            if not _ENCOURAGING_NEGATIONS.isdisjoint(words[own:end]):
                return False  # "Non dimenticare di non reinstallare": the action itself is negated
            if not _ENCOURAGING_NEGATIONS.isdisjoint(near):  # "Il ne faut surtout pas oublier de ..."
                return True
    return False


_ENCOURAGING_REACH = 4  # "N'hésitez pas à" / "No dude en": the verb's complement follows closely
_ENCOURAGING_NEGATIONS = _FOREIGN_VERBAL | {"pas", "no", "not", "never"}


def reversed_negation(view: ClauseView) -> bool:
    """A German or Dutch clause whose every negation follows a verb it reverses ("Aarzel niet om de router
    te resetten", "Zögern Sie nicht ..."): the negation encourages the rest, it does not negate it."""
    words = view.words
    negations = [i for i, w in enumerate(words) if w in _GERMAN_NEGATION or w in _DUTCH_NEGATION]
    return bool(negations) and all(_after_reversing(view, i) for i in negations)


_CUE_WORDS = (
    _FOREIGN_VERBAL
    | _FOREIGN_PREPOSITIONAL
    | _FOREIGN_AVOID
    | _NEEDLESS
    | frozenset({"lieu", "lugar", "plutôt", "invece", "vez", "plaats", "invés"})
    | frozenset({"instead", "rather", "refrain", "without", "avoid", "avoiding", "stop", "stopping"})
    | frozenset({"against", "impossible", "unable", "not", "never", "neither", "no"})
    | frozenset({"nor", "nothing", "none", "nobody", "af", "ab", "noch"})
    | _FORBIDDING
    | _NT_ALL
)


def may_hold_cues(text: str, words: Iterable[str]) -> bool:
    """Can `text` (whose words are `words`) hold a negation cue? A cheap test that most clauses fail:
    without an apostrophe in the text no word ends in "n't"."""
    return "'" in text or "\u2019" in text or not _CUE_WORDS.isdisjoint(words)


def find_cues(words: Sequence[str]) -> list[_Cue]:
    cues: list[_Cue] = []
    count = len(words)
    for i in [i for i, w in enumerate(words) if w in _CUE_WORDS or w.endswith("n't")]:
        w = words[i]
        prev = words[i - 1] if i else ""
        nxt = words[i + 1] if i + 1 < count else ""
        # The second word of a two-word cue ("of", "than", "from") is never a cue word itself.
        if w in _NE and _restrictive(words, i):
            continue  # "Vous n'avez qu'à supprimer ...": French "ne ... que" is "only", no negation
        if (w, nxt) in {("instead", "of"), ("rather", "than"), ("refrain", "from"), ("plutôt", "que")}:
            cues.append(_Cue(i, i + 2, strict=True, directive=w == "refrain"))
        elif (prev, w, nxt) in _FOREIGN_INSTEAD or (w, nxt) == ("invece", "di"):
            cues.append(_Cue(i, i + 2, strict=True, directive=False))
        elif w in _FOREIGN_PREPOSITIONAL:
            cues.append(_Cue(i, i + 1, strict=True, directive=False))
        elif w in _FOREIGN_AVOID:
            cues.append(_Cue(i, i + 1, strict=True, directive=True))
        elif w in _NEEDLESS:
            cues.append(_Cue(i, i + 1, strict=True, directive=False))
        elif w in _FOREIGN_VERBAL:
            cues.append(_Cue(i, i + 1, strict=False, directive=True))
        elif w == "noch" and ("weder" in words[:i] or words.count("noch") > 1):
            # "Weder ... noch ...", Dutch "Noch ... noch ...": not German "noch" (still, yet)
            cues.append(_Cue(i, i + 1, strict=False, directive=True))
        elif w in {"without", "avoid", "avoiding", "stop", "stopping"}:
            cues.append(_Cue(i, i + 1, strict=True, directive=w in {"avoid", "stop"}))
        elif (
            w in _FORBIDDING
            or (w == "against" and stem(prev) in _ADVISING)
            or (w in {"af", "ab"} and not _ADVISE_AGAINST.isdisjoint(words[max(0, i - 3) : i]))
        ):
            cues.append(_Cue(i, i + 1, strict=True, directive=True))  # "policy forbids", "advise against"
        elif w in {"impossible", "unable"}:
            cues.append(_Cue(i, i + 1, strict=False, directive=False))
        elif w == "not" and prev != "or":  # "whether or not" negates nothing
            cues.append(_Cue(i, i + 1, strict=False, directive=prev not in _DESCRIPTIVE_BEFORE_NOT))
        elif w in {"never", "neither"}:
            cues.append(_Cue(i, i + 1, strict=False, directive=True))
        elif w == "no":
            cues.append(_Cue(i, i + 1, strict=False, directive=nxt == "need"))
        elif w in {"nor", "nothing", "none", "nobody"} or w in _NT_ALL or w.endswith("n't"):
            cues.append(_Cue(i, i + 1, strict=False, directive=w in _NT_DIRECTIVE))
    return cues


_NE = frozenset({"ne", "n'"})
_NE_PARTNERS = frozenset(
    {"pas", "jamais", "plus", "rien", "aucun", "aucune", "personne", "guère", "point", "ni"}
)
_RESTRICTIVE_REACH = 4  # "n'avez | qu'à", "ne vous reste | que", "ne faut | que"


def _restrictive(words: Sequence[str], i: int) -> bool:
    """Is the French "ne" at `i` the first half of "ne ... que" (only), with no "pas", "jamais", ... of
    its own before the "que"?"""
    for w in words[i + 1 : i + 1 + _RESTRICTIVE_REACH]:
        if w in _NE_PARTNERS:
            return False
        if w in {"que", "qu'"}:
            return True
    return False


@lru_cache(maxsize=65536)  # asked of every word after a cue or before a match: a long answer repeats words
def _transparent(word: str) -> bool:
    return word in _TRANSPARENT or _is_adverb(word)


def _head(view: ClauseView, cue: _Cue, stop: int | None = None) -> int | None:
    """The first word after the cue that is not transparent (before `stop`), if any."""
    head = view.opaque_from(cue.end)
    return head if head < (len(view.words) if stop is None else stop) else None


def _governs(view: ClauseView, cue: _Cue, start: int, *, strict: bool) -> bool:
    head = _head(view, cue, start)
    if not strict and view.language in _AFTER_THE_VERB and _after_reversing(view, cue.start):
        return False  # "Aarzel niet om de router te resetten": the negation follows the verb it reverses
    if head is None:
        return True  # only transparent words between the cue and the match: the match is its head
    if not strict:
        if not cue.directive and _any_between(view.positions("restart"), head, start):
            return False  # a run-on: "It won't open just reinstall it" starts new advice at "just"
        if _describes_then_directs(view, cue, head, start):
            return False
        if view.words[head] == "way" and view.words[head + 1 : head + 2] == ["around"]:
            return False  # "There is no way around reinstalling"
        return not _reversing(view, head)
    if view.words[cue.end - 1] in _VERB_FINAL:
        return True  # "ohne das Gerät zurückzusetzen": the verb ends the phrase the cue introduces
    return _coordinated(view, cue, start)


def _reversing(view: ClauseView, index: int) -> bool:
    """Is the word at `index` one whose negation encourages what follows ("hesitate", "hésitez")?"""
    if stem(view.words[index]) in _REVERSERS:
        return True
    return view.language != "en" and reverses(view.tokens[index].stem, view.language)


def _describes_then_directs(view: ClauseView, cue: _Cue, head: int, start: int) -> bool:
    """A run-on without a comma: "The sync does not work reinstall the app", "It is not responding
    disable the firewall". A negation that describes a state ("does not", "is not", "isn't") governs its
    verb; a bare verb right after that verb is new advice, unless the first verb takes it as an object
    ("does not require reinstalling", "does not help reinstall")."""
    words = view.words
    word, before = words[cue.start], words[cue.start - 1] if cue.start else ""
    stating = (word == "not" and before in _STATE_AUX) or word in _STATE_NEGATIONS
    if not stating or head != cue.end or start != head + 1:
        return False
    return not (words[start].endswith(("ing", "ed", "s")) or stem(words[head]) in _TAKES_A_VERB)


def _coordinated(view: ClauseView, cue: _Cue, start: int) -> bool:
    """Strict scope reaching a later conjunct: "without reinstalling or resetting"."""
    words = view.words
    coordinators = view.positions("coordinator")
    k = bisect_left(coordinators, start) - 1
    if k < 0 or coordinators[k] < cue.end:
        return False
    last = coordinators[k]  # the last "or"/"nor"/"and" between the cue and the match
    if view.opaque_from(last + 1) < start:
        return False
    head = _head(view, cue, last)
    if head is None or _reversing(view, head):
        return False
    if words[last] == "and":  # "and" only joins -ing forms here; else it starts new advice
        return words[head].endswith("ing") and start < len(words) and words[start].endswith("ing")
    return True


def _double_negations(view: ClauseView, index: int) -> int:
    """How many earlier cues have the verbal cue `index` as their head ("no reason not to", "can't not")."""
    count, current = 0, view.verbal[index]
    for earlier in reversed(view.verbal[max(0, index - _MAX_CHAIN) : index]):
        fresh = view.words[current.start - 1] in _FRESH_BEFORE if current.start else True
        if fresh or view.words[current.start] not in _NOT_NEVER or _head(view, earlier) != current.start:
            break
        count, current = count + 1, earlier
    return count


_FRESH_BEFORE = frozenset({"do", "does", "did", "please"})  # "do not" starts a negation of its own
_NOT_NEVER = frozenset({"not", "never"})


def _predicate_negated(view: ClauseView, start: int, end: int) -> bool:
    """ "Disabling the firewall is not necessary" / "is unnecessary": the match is the subject of a
    predicate that rejects it."""
    words = view.words
    # Only transparent words before the match: a clause with thousands of matches asks once.
    if start >= len(words) or (start > view.subject_start and not _negated_subject(view, start)):
        return False
    nominal = words[start].endswith("ing") or (
        start > 0 and words[start - 1] in {"a", "an", "the", "to", "any"}
    )
    reach = min(len(words), end + (5 if nominal else 1))  # the verb follows the subject closely
    verb = next((k for k in range(end, reach) if _is_verb_group(words[k])), None)
    if verb is None:
        return False
    after = verb + 1
    while after < min(len(words), verb + 1 + _MAX_ADVERBS) and _is_adverb(words[after]):
        after += 1  # "will definitely not", "is really not"
    negated = words[verb] in _NT_ALL or words[verb].endswith("n't")
    if not negated and after < len(words) and words[after] in {"not", "never", "neither"}:
        negated, after = True, after + 1
    for later in words[after : after + 3]:
        key = stem(later)
        if key in (_PREDICATES if negated else _REJECTING):
            return True
        if key in _REVERSERS:
            return False
    return False


def double_negative(view: ClauseView, start: int, end: int) -> bool:
    """ "Not reinstalling is not an option", "Not wiping it would be a mistake": both negations cancel,
    and the clause says the action must be done."""
    return _negated_subject(view, start) and _predicate_negated(view, start, end)


def _negated_subject(view: ClauseView, start: int) -> bool:
    """ "Not reinstalling is not an option": a subject negated by a "not"/"never" that opens its clause,
    with only transparent words around it. Its predicate's own negation (or rejection) flips it back:
    a double negative recommends the action."""
    first = view.first_opaque
    return (
        first < start <= first + 2
        and view.words[first] in _NOT_NEVER
        and all(_transparent(w) for w in view.words[first + 1 : start])
    )


def _is_adverb(word: str) -> bool:
    return word in {"really", "ever", "even", "actually", "still"} or (
        len(word) > 4 and word.endswith(("ly", "mente")) and word not in _NOT_ADVERBS
    )


def _is_verb_group(word: str) -> bool:
    return word in _COPULA_AUX or word in _NT_ALL or word.endswith("n't")


def negated(view: ClauseView, start: int, end: int, carried: bool) -> bool:
    flips = 0
    verbal_count = bisect_right(view.verbal_ends, start)
    if verbal_count:
        index = verbal_count - 1
        if _governs(view, view.verbal[index], start, strict=view.subordinate):
            flips += 1 + view.cancelled(index)
    elif carried:
        flips += 1
    if view.prepositional:
        prepositional_count = bisect_right(view.prepositional_ends, start)
        if prepositional_count and _governs(
            view, view.prepositional[prepositional_count - 1], start, strict=True
        ):
            flips += 1
    # A match after the clause's first opaque word is no predicate's subject ("_predicate_negated").
    if (
        (start <= view.subject_start or _negated_subject(view, start))
        and _predicate_negated(view, start, end)
    ) or (view.not_only and _not_only_rejected(view, end)):
        flips += 1
    return flips % 2 == 1


def _why_not(view: ClauseView, index: int) -> int:
    """ "I don't see why you shouldn't reinstall": a negation before "why"/"reason" cancels the one after."""
    why = view.positions("why")
    if index == 0 or not why:
        return 0
    before, after = view.verbal[index - 1].end - 1, view.verbal[index].start
    return 1 if _any_between(why, before, after) else 0


def _not_only_rejected(view: ClauseView, end: int) -> bool:
    """ "Not only is a reinstall unnecessary, ...": the rejecting word follows the subject (in a clause
    that opens with "not only", `ClauseView.not_only`)."""
    return any(stem(word) in _REJECTING for word in view.words[end : end + 4])


def reported(view: ClauseView, start: int, end: int, question: bool) -> bool:
    """A past-tense match after a reporting subject ("you reinstalled", "the customer already
    reinstalled", "have you reinstalled?") tells what happened; it does not advise it."""
    words = view.words
    already = view.positions("already")
    if already and already[0] < start:
        return True  # "Você já reinstalou", "Je hebt de app al opnieuw geïnstalleerd"
    if not words[start].endswith("ed"):
        return False
    before = [w for w in words[max(0, start - 3) : start] if w not in {"have", "has", "had", "just"}]
    return bool(before) and (before[-1] in _REPORTERS or (question and before[-1] in {"it", "that"}))


def carried_negation(views: Sequence[ClauseView], clauses: Sequence[Clause]) -> list[bool]:
    """Which clauses continue a directive negation across commas: a negated list ("Do not reinstall,
    reset(,) or disable it") or an interrupted one ("Do not, under any circumstances, reinstall it")."""
    carried = [False] * len(views)
    for k, view in enumerate(views):
        directive = [c for c in view.cues if c.directive]
        if view.subordinate or not directive:
            continue
        head = _head(view, directive[-1])
        # "Do not, under any circumstances, ...": not "No, reinstall it", nor a negation after its verb
        # ("Werkt het niet, schakel dan ..." negates "werkt")
        cue = directive[-1]
        dangling = (
            head is None
            and view.words[cue.start] not in _INTERJECTIONS
            and (
                all(_transparent(w) for w in view.words[: cue.start])
                or view.words[cue.start] in {"ab", "af"}  # "Wir raten davon ab, die Firewall zu ..."
            )
        )
        if not dangling and (head is None or _reversing(view, head)):
            continue
        run: list[int] = []
        for j in range(k + 1, len(views)):
            item = views[j]
            own = [c for c in item.cues if not (c.start == 0 and item.words[0] == "nor")]
            if clauses[j].opener != "," or item.subordinate or own:
                break
            run.append(j)
            if dangling:
                carried[j] = True
            elif any(w in {"or", "nor"} for w in item.words[:4]):
                for r in run:
                    carried[r] = True
                break
            elif len(item.words) > 4:
                break
    return carried
