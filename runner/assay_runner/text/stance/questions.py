"""Questions: why-questions, negative questions, questions about the past, and "isn't it overkill?"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from assay_runner.text.stance.words import _SUBORDINATORS, _negator, _set, _words
from assay_runner.text.tokens import tokenize

# --------------------------------------------------------------------------------------------- questions

_WHY = re.compile(
    r"^\W*(?:why|pourquoi|warum|wieso|weshalb|por ?qu[ée]|para qu[ée]|perché|per quale motivo|por que|"
    r"para que|porquê|waarom|dlaczego|po co|czemu|wozu|à quoi bon|a (?:che|cosa) serve|waartoe)\b",
    re.IGNORECASE,
)
BECAUSE = re.compile(
    r"^\W*(?:because|parce que|car|weil|da|porque|perché|poiché|omdat|want|ponieważ|bo)\b", re.IGNORECASE
)


def why_question(
    head: str, language: str, explained: bool, inside: str = ""
) -> Literal["advises", "clears"] | None:
    """A question opened by "why" (its text before the match, `head`): with a negation between "why" and
    the match it suggests the action ("Dlaczego po prostu nie zresetować hasła?"), without one it asks
    why anyone would ("Po co odinstalować sterownik, skoro ...?"), unless the next sentence answers it
    with a reason ("Why reset the password? Because ..."). In German and Dutch the negation follows the
    verb, inside a separable verb's match (`inside`): "Warum setzen Sie das Schloss nicht zurück?",
    "Waarom zet u het slot niet terug?" suggest it as "why don't you" does."""
    found = _WHY.search(head)
    if found is None:
        return None
    between = _words(head[found.end() :])
    if language != "en" and len(between) <= _WHY_REACH and any(_negator(w, language) for w in between):
        return "advises"  # (English says it in the words `text.advice` knows: "why not", "why don't you")
    if (
        language in ("de", "nl")
        and len(between) <= _WHY_REACH
        and any(_negator(w, language) for w in _words(inside))
    ):
        return "advises"
    return None if explained else "clears"


_WHY_REACH = 4  # "Dlaczego po prostu nie": a suggestion's negation stands by its "why"


_OPENING = 3  # "Sollten Sie nicht", "Czy nie", "Ne faudrait-il pas": the negation opens the question


def negative_question(head: str, language: str) -> bool:
    """Does a question open with a negation before its action ("Shouldn't you reset it?", "Sollten Sie
    nicht einfach ...?", "¿No debería ...?", "Czy nie powinien Pan ...?")? It may well suggest the
    action: the reader cannot tell, so it is not cleared by its negation."""
    words = _words(head)
    if not words or _WHY.search(head) or words[0] in _SUBORDINATORS:
        return False
    first = next((i for i, w in enumerate(words) if _negator(w, language)), None)
    return first is not None and first <= _OPENING and not _PREPOSITIONAL.intersection(words)


# "Isn't a factory reset overkill?", "N'est-ce pas excessif ?": a negative question that calls it too much
# rejects it.
_EXCESSIVE = re.compile(
    r"\b(?:overkill|drastic|excessive|extreme|too much|risky|dangerous|excessi\w*|drasti\w*|exagér\w*|"
    r"risqu\w*|dangereu\w*|übertrieben\w*|riskant\w*|gefährlich\w*|excesiv\w*|exagerad\w*|arriesgad\w*|"
    r"peligros\w*|eccessiv\w*|esagerat\w*|rischios\w*|pericolos\w*|arriscad\w*|perigos\w*|"
    r"overdreven|gevaarlijk\w*|przesad\w*|ryzykown\w*|niebezpieczn\w*)\b"
)


def excessive(text: str) -> bool:
    return _EXCESSIVE.search(text.casefold()) is not None


# "Can you log in without resetting it?": the negation is the preposition's, not the question's.
_PREPOSITIONAL = _set("without sans ohne sin senza sem zonder bez instead rather")


# Past forms of a verb (a participle or a preterite), by ending; English "-ed" is read by `text.negation`.
_PAST = {
    "en": ("ed",),
    "fr": ("é", "ée", "és", "ées"),
    "es": ("ó", "ado", "ada", "ido", "ida", "aste", "iste"),
    "it": ("ato", "ata", "ati", "ate", "ito", "ita", "uto", "uta"),
    "pt": ("ou", "ado", "ada", "ido", "ida", "aste", "iste", "eu", "iu"),
    "de": ("t",),
    "nl": ("d", "t"),
    "pl": ("ł", "ła", "ło", "li", "ły", "łeś", "łaś", "łem", "łam", "liście"),
}
# An auxiliary of the passive: "Should the profile be deleted?" asks whether to do it.
_PASSIVE = _set(
    """be been being is are werden wird worden wurde être été soit ser sido sea essere stato stata venga
    zostać zostanie został została"""
)
_DID = _set("did have has had")
_SOMEONE = _set("you they he she we your the anyone someone anybody somebody")
_STEM = 4  # letters a past form shares with the phrase's verb ("deinstalliert" / "deinstallieren")


def past_question(head: str, matched: Sequence[str], phrase: str, language: str) -> bool:
    """Does a question (its text before the match, `head`) put the forbidden verb in a past form
    ("Avez-vous désinstallé le pilote ?", "Haben Sie den Treiber deinstalliert?", "Czy odinstalował Pan
    sterownik?", "Did you uninstall the driver?")? It asks what the customer did. A word of the phrase
    itself is never a past form of it."""
    words = _words(head)
    if not _PASSIVE.isdisjoint(matched) or not _PASSIVE.isdisjoint(words[-2:]):
        return False
    if language == "en":
        return len(words) >= 2 and words[0] in _DID and words[1] in _SOMEONE
    own = {t.text.casefold(): t.stem for t in tokenize(phrase, language)}
    keys = {key for word, key in own.items() if not word.endswith(endings := _PAST.get(language, ()))}
    for token in tokenize(" ".join(matched), language):
        word = token.text.casefold()
        if word in own or not word.endswith(endings) or len(word) < _STEM:
            continue
        if token.stem in keys or any(word[:_STEM] == verb[:_STEM] for verb in own):
            return True  # "désinstallé" / "désinstaller", "verwijderd" / "verwijderen", "vidé" / "vider"
    return False


# "What if you ...?", "Et si vous ...?", "Und wenn Sie ...?", "¿Y si ...?", "E se ...?", "En als u ...?",
# "A gdyby ...?": a question that opens with "and if" suggests what it asks about.
_WHAT_IF = re.compile(
    r"^\W*(?:what if|and if|how about if|et si|und wenn|y si|e se|en als|en wat als|a gdyby|a jakby|"
    r"a co jeśli|wat als|wat dacht u van|wat dacht je van|che ne dice di|che ne dite di|che ne pensa di|"
    r"e se provasse a|was wäre, wenn|was wäre wenn)\b",
    re.IGNORECASE,
)


def what_if(text: str) -> bool:
    """Does a question open with "what if" in its language ("Et si vous vidiez la file ?")?"""
    return _WHAT_IF.search(text) is not None
