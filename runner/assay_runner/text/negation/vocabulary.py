"""The English words negation reads a clause by: contractions, auxiliaries, the words a negation passes
through to its head, the heads that reverse it and the predicates that reject a subject."""

from __future__ import annotations

from functools import lru_cache

from assay_runner.text.match import stem


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
    recommandons recommande conseillons conseille y en peine
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
    postpone procrastinate neglect skip optional
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


@lru_cache(maxsize=65536)  # asked of every word after a cue or before a match: a long answer repeats words
def _transparent(word: str) -> bool:
    return word in _TRANSPARENT or _is_adverb(word)


def _is_adverb(word: str) -> bool:
    return word in {"really", "ever", "even", "actually", "still"} or (
        len(word) > 4 and word.endswith(("ly", "mente")) and word not in _NOT_ADVERBS
    )


def _is_verb_group(word: str) -> bool:
    return word in _COPULA_AUX or word in _NT_ALL or word.endswith("n't")
