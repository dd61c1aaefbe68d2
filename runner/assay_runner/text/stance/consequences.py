"""What doing it would bring about: a condition whose main clause is a future or a conditional, the
action as the subject of a that-clause, and a warning word before a colon or dash state a consequence."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assay_runner.text.match import DETERMINERS
from assay_runner.text.stance.avoiding import _POLITE
from assay_runner.text.stance.double_negation import _CUT, _EFFECT
from assay_runner.text.stance.words import _WINDOW, BETTER, _bare, _negator, _set, _words

# ------------------------------------------------------------------- what doing it would bring about

# A future or conditional verb form, per language: what doing something will or would do. The Romance
# futures and conditionals by their endings; the others by their auxiliaries.
_CONSEQUENCE = {
    "en": re.compile(r"\b(?:will|'ll|would|'d|shall)\b"),
    "fr": re.compile(r"\b(?:\w{2,}(?:ra|ront|rait|raient)|sera|seront|serait)\b"),
    "es": re.compile(r"\b\w+(?:rá|rán|ría|rían)\b"),
    "it": re.compile(r"\b\w+(?:rà|ranno|rebbe|rebbero)\b"),
    "pt": re.compile(r"\b\w+(?:rá|rão|ria|riam)\b"),
    "de": re.compile(
        r"\b(?:wird|werden|würde|würden|wäre|wären|hätte|hätten|hiesse|müsste|müssten|bliebe|blieben|"
        r"ginge|gingen|käme|kämen|gäbe|könnte|könnten|dürfte|dürften)\b"
    ),
    "nl": re.compile(r"\b(?:zal|zullen|zou|zouden|worden|wordt)\b"),
    "pl": re.compile(r"\b(?:by|będzie|będą|zostanie|zostaną|\w+(?:łoby|łby|łaby|łyby|liby))\b"),
}


def consequence(text: str, language: str) -> bool:
    """Does a clause say what something will or would bring about (a future or a conditional form) without
    calling it a fix ("toutes les intégrations cesseraient de fonctionner", "werden ... storniert";
    not "that would fix it")?"""
    folded = text.casefold()
    found = _CONSEQUENCE.get(language, _CONSEQUENCE["en"]).search(folded)
    return found is not None and BETTER.search(folded) is None


# What opens a condition: a conditional conjunction, or (inverted) a modal before its subject ("Should
# you ...", "Sollten Sie ...", "Mocht u ...", "Were you to ...").
_IF = _set(
    """if si wenn falls se caso qualora als indien jeśli jeżeli gdyby mocht mochten sollte sollten
    würden würde should were"""
)
# Conditions opened by several words: "in case", "au cas où", "en caso de que", "nel caso in cui"; and
# concessive ones, "even if", "même si", "selbst wenn", "aunque", "anche se", "mesmo que", "zelfs als",
# "nawet gdyby" (what follows says what would happen all the same).
_SEVERAL_WORD_IF = re.compile(
    r"^(?:in case|au cas où|dans le cas où|im fall,? dass|en caso de que|nel caso (?:in cui|che)|"
    r"caso|no caso de|em caso de|in het geval dat|w przypadku gdy|even if|même si|selbst wenn|auch wenn|"
    r"aunque|incluso si|anche se|mesmo que|mesmo se|zelfs als|zelfs indien|nawet gdyby|nawet jeśli|"
    # a supposition: "Suppose you ...", "Imaginons que ...", "Stel dat u ...", "Załóżmy, że ..."
    r"suppose(?: that)?|supposing(?: that)?|imagine(?: that)?|say|imaginons que|supposons que|"
    r"imaginez que|supongamos que|imaginemos que|pongamos que|supponiamo che|immaginiamo che|"
    r"mettiamo che|suponha que|suponhamos que|imagine que|imaginemos que|stel dat|stel je voor dat|"
    r"angenommen|nehmen wir an|stellen sie sich vor|stell dir vor|"
    r"załóżmy,? że|przypuśćmy,? że|wyobraźmy sobie,? że)\b\s*",
    re.IGNORECASE,
)
_INVERTED_IF = _set("sollte sollten würden würde should were mocht mochten")
_CONDITION_SUBJECTS = _set("you sie u je pan pani")
_CONDITION_REACH = 8  # "Si un jour vous décidiez de", "Gdyby kiedyś zdecydował się Pan"


def conditional_consequence(head: str, rest: str, language: str) -> bool:
    """The action inside a condition at the head of its sentence ("If you were to X, ...", "Should you X,
    ...", "Sollten Sie X, ...", "Mocht u X, dan ...", "Gdyby Pan X, ...") whose main clause says what would
    then happen (`consequence`): a hypothesis that warns, not an instruction. `head` is the sentence's
    text before the action, `rest` its text after."""
    if len(head) > _WINDOW:
        return False  # a condition of at most eight words
    opened = _SEVERAL_WORD_IF.sub("if ", head.lstrip(), count=1)
    words = _words(opened)
    if not words or len(words) > _CONDITION_REACH or words[0] not in _IF:
        return False
    if "," in opened and language not in ("de", "nl"):
        return False  # a comma inside a condition parts its infinitive only in German and Dutch
    if words[0] in _INVERTED_IF and (len(words) < 2 or words[1] not in _CONDITION_SUBJECTS):
        return False  # "Should be fine", "Sollte das nicht helfen": no subject after the modal
    if not _POLITE.isdisjoint(words) or any(_negator(w, language) for w in words):
        return False  # "Würden Sie bitte ...": a request; a negated condition is read by `text.negation`
    rest = rest[:_WINDOW]
    # the main clause after a comma, or a colon ("Suppose you reset it: every code would be gone")
    comma = min((k for k in (rest.find(","), rest.find(":")) if k >= 0), default=-1)
    if comma < 0 or rest[:comma].count(" ") > _CONDITION_REACH:
        return False  # the condition ends soon after its action, and a main clause follows
    main = re.split(r"[.;:!?]", rest[comma + 1 :])[0]
    return consequence(main, language)


# A warning's opening word, in the eight languages: "Careful:", "Attention :", "Vorsicht:", "Uwaga:".
_WARNS = _set(
    """careful beware warning caution attention achtung vorsicht cuidado atención attenzione atenção
    atencao let opgelet waarschuwing uwaga ostrożnie ostrzeżenie prudence ojo occhio pas note noter nota
    aviso hinweis informacja heads wel"""
)
# What doing it fixes (stems): a warning or a notice whose predicate says it helps advises it.
_HELPS = _EFFECT
_WARNING_HEAD = 3  # "Be careful", "Let op", "Tenga cuidado"


def helps(rest: str) -> bool:
    """Does the predicate after the action say it fixes or helps ("Note: resetting it fixes the sync",
    "Nota: formattare la scheda risolve il problema")?"""
    words = _words(_CUT.split(rest[:_WINDOW], 1)[0])
    return BETTER.search(" ".join(words)) is not None or any(_bare(w).startswith(_HELPS) for w in words)


def warned(head: str) -> bool:
    """Does the sentence open with a warning before a colon or a dash ("Be careful:", "Attention :", "Let
    op:", "Achtung -")?"""
    found = _WARNING_CUT.search(head, 0, _WINDOW)
    if found is None:
        return False
    words = _words(head[: found.start()])
    return 0 < len(words) <= _WARNING_HEAD and not _WARNS.isdisjoint(words)


_WARNING_CUT = re.compile(r":|\s[-\u2013\u2014]\s|[\u2013\u2014]|!")


# What introduces a clause that states a fact: "that", "que", "dass", "che", "dat", "że".
_THAT = _set("that que qu' dass che dat że")


# "Hay que", "tendrá que", "tem que": a modal of necessity before "que" is no "that"-clause.
_MUST_BEFORE_QUE = _set(
    """hay habría había habrá tiene tienes tengo tendrá tendría tenga tengas tener tem tens tenho terá teria
    tenha ter há haverá"""
)


def stated_after_that(before: Sequence[str]) -> bool:
    """Is the match the start of a "that"-clause ("Beware that resetting ...", "Sachez que réinitialiser
    ...", "Houd er rekening mee dat de smartcard resetten ...", "pamiętać, że zresetowanie ...")?"""
    at = len(before) - 1 if before and before[-1] in _THAT else len(before) - 2
    if at < 0 or before[at] not in _THAT or (at < len(before) - 1 and before[-1] not in DETERMINERS):
        return False
    return at == 0 or before[at - 1] not in _MUST_BEFORE_QUE
