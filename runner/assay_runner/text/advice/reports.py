"""Reported speech: a third party's suggestion ("Some forums recommend ...", "Ein Kollege meint, ...",
"Roll back the firmware, some say"), and a question reported ("The customer asked whether to ...")."""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from assay_runner.text.advice.cues import _cues, _words
from assay_runner.text.advice.facts import Facts
from assay_runner.text.advice.outcome import ADVISES, CLEARS, Outcome
from assay_runner.text.advice.stance_reading import _stance_of, reply_of
from assay_runner.text.advice.subjects import _FOREIGN_SUBJECTS
from assay_runner.text.head_words import Before, CuePrefix, CueWords

# A third party reporting a suggestion: "Some forums recommend ...", "Older guides tell you to ...".
_REPORTING = _cues(
    r"\b(?:recommends?|recommended|suggests?|suggested|says?|said|tells? (?:you|people|users)|"
    r"told (?:you|me|us)|advises?|advised|claims?|claimed|proposes?|proposed|insists?|insisted|mentions?|"
    r"mentioned|asks? you|asked you|asking you|be asked|read (?:online )?that|hear that|heard that|posts?|"
    r"posted|writes?|wrote|invites? you|inviting you|urges? you|urging you)\b",
    # a message or a caller asking for it: "Ce SMS qui vous invite à ...", "Die SMS, die Sie auffordert,
    # ...", "Ese SMS que le pide ...", "Quell'SMS che la invita a ...", "die u vraagt ...", "który prosi o"
    r"\b(?:invite|invitent|invitait|auffordert|auffordern|aufforderte|aufgefordert|pide|piden|pedía|"
    r"invita|invitano|invitava|pede|pedem|pedia|verzoekt|vraagt|vroeg|prosi|proszą|prosił\w*|kazał\w*)\b",
    r"\b(?:suggerisce|suggeriscono|consiglia|consigliano|raccomanda|dice|dicono|sugere|sugerem|recomenda|"
    r"recomendam|aconselha|diz|dizem|raadt aan|raden aan|adviseert|zegt|zeggen|suggereert|radzą|radzi|"
    r"zaleca|zalecają|sugeruje|mówi|mówią|suggère|recommande|conseille|dit|disent|sugiere|recomienda|"
    r"aconseja|dice|dicen|empfiehlt|empfehlen|rät|sagt|sagen|sagte|sagten|gesagt|schlägt vor|schlagen vor|"
    r"raten|geraten|"
    r"empfohlen|vorgeschlagen|recommandent|conseillent|suggèrent|conseillé|recommandé|suggéré|"
    r"recomiendan|sugieren|aconsejan|aconsejó|recomendó|sugirió|consigliato|suggerito|aconselhou|"
    r"recomendou|sugeriu|adviseren|aanraadde|aanraden|aangeraden|polecają|poleca|doradził\w*|radził\w*|"
    r"zalecił\w*)\b",
    # someone's opinion reported: "Ein Kollege meint, ...", "Un collègue pense que ..."
    r"\b(?:thinks|believes|meint|meinen|glaubt|schreibt|behauptet|behaupten|pense|pensent|écrit|affirme|"
    r"piensa|cree|escribe|afirma|pensa|crede|scrive|sostiene|acha|escreve|denkt|vindt|schrijft|beweert|"
    r"uważa|uważają|pisze|twierdzi|twierdzą)\b",
    r"\b(?:according to|selon|laut|según|secondo|segundo|volgens|według|zufolge)\b",
)


# Searched in the words before a match (`Before.holds`): a match spans at most this many words
# (`tests/unit/test_policy_cost.py` holds it).
_REPORTING_WORDS = CueWords(_REPORTING, 3)
# The answer's own voice as the reporter; "us" and a "nous" after "vous" are objects ("the video you sent
# us", "le message que vous nous avez transmis"): someone else reports there.
_FIRST_PARTY = _cues(
    r"(?<!\bvous )\b(?:we|i|our|my|support|support'?s|nous|wir|ich|nosotros|noi|nós|wij|ik)\b"
)
_LATER_REPORT = _cues(r"^(?:some|they|people|others|many|a few|most) (?:say|said|suggest|claim|recommend)\b")


# Someone asking whether to do it ("The customer asked whether to reset the router", "Der Kunde fragt, ob
# ...", "Klient pyta, czy ..."): a question reported, not advice. Nothing may cut the clause between the
# "whether" and the match ("You ask whether to reinstall: yes, reinstall it" answers it).
_ASKED = _cues(
    r"\b(?:ask|asks|asked|asking|wonder|wonders|wondered|wondering|want to know|wants to know|wanted to know|"
    r"demande|demandez|demandent|demandé|demandiez|demandait|demandais|fragt|fragen|fragten|gefragt|fragte|"
    r"pregunta|pregunte|preguntan|preguntó|preguntaba|preguntabas|chiede|chiedi|chiedono|chiesto|chiedeva|"
    r"chiedevi|pergunta|perguntam|perguntou|perguntava|vraagt|vragen|vroeg|gevraagd|"
    r"pyta|pytają|pytał\w*|zastanawia\w*|wissen|savoir|saber|sapere|weten|wiedzieć|vraagt zich af)\b"
    r"[^.!?:;]*?(?:\b(?:whether|if|si|ob|se|of|czy)\b|\bs')[^:;.!?]*$"
)


def _asked(text: str, at: int) -> bool:
    if not _may_ask(text):
        return False
    head = text[max(0, at - 160) : at].casefold().replace("\u2019", "'")
    return _ASKED.search(head) is not None


_ASKING = (
    *("ask", "wonder", "know", "demand", "frag", "pregunt", "chie", "pergunt", "vra", "pyta", "zastanawia"),
    *("wiss", "savoir", "saber", "sapere", "weten", "wiedzie"),
)


@lru_cache(maxsize=4096)
def _may_ask(text: str) -> bool:
    folded = text.casefold()
    return any(word in folded for word in _ASKING)


def _answered(text: str, at: int, facts: Facts) -> Outcome:
    """A reported question: advice only when the answer says yes to it ("..., yes, please do")."""
    rest = text[at:]
    answer = re.split(r"[:;\u2014]", rest, maxsplit=1)
    reply = reply_of(answer[1].strip(), facts.language) if len(answer) > 1 and answer[1].strip() else None
    if reply in ("yes", "endorse") or _stance_of(rest) == "endorse" or facts.reply in ("yes", "endorse"):
        return ADVISES
    return CLEARS


# A clause that reports what the one before it said ("Manche Nutzer raten, die App neu zu installieren",
# "Ein Forum schlägt vor, neu zu installieren"): only these may stand before the match in it.
_REPORTED_OBJECT = _words(
    "the a an to de d' la le les l' el los las zu die das den dem der te het di il lo gli un una uno o os as "
    "um uma"
)


# What the reported clause may open with: its subject and a modal ("Ein Kollege meint, Sie sollten ...",
# "Un collègue dit, vous devriez ...").
_REPORTED_SPEECH = _FOREIGN_SUBJECTS | _words(
    """you sollten solle sollen müssten müsse müssen devriez devez debería debe dovrebbe dovresti deve
    deveria deve moet moeten zou zouden powinien powinna powinieneś powinnaś"""
)
_ACCORDING = _cues(r"\b(?:according to|selon|laut|según|secondo|segundo|volgens|według|zufolge)\b")
_ACCORDING_WIDTH = 12  # the widest cue above ("according to")
_ACCORDING_BEFORE = CuePrefix(_ACCORDING, _ACCORDING_WIDTH)


def _reported_before(text: str, at: int, before: Before) -> bool:
    if _ACCORDING_BEFORE.before(text, at):
        return True  # "Según un foro, hay que ...": the whole sentence is the forum's
    if not before.all_in(_REPORTED_OBJECT | _REPORTED_SPEECH):
        return False
    pieces = text[:at].split(",")
    return len(pieces) >= 2 and ";" not in pieces[-1] and _REPORTING.search(pieces[-2].casefold()) is not None


def _reported_later(text: str, at: int) -> bool:
    """ "Roll back the firmware, some say": a report frame in a later clause (one after a cut that follows
    the match: the pieces `re.split(r"[,;:]", text[at:])[1:]`)."""
    cuts, reported = _later_reports(text)
    return reported[bisect_left(cuts, at)]


_LATER_CUT = re.compile(r"[,;:]")


@lru_cache(maxsize=256)
def _later_reports(text: str) -> tuple[list[int], list[bool]]:
    """The sentence's cuts, and for each whether a piece after it (up to the next cut, or the end) opens
    with a report frame, or one after a later cut does (False past the last cut)."""
    cuts = [m.start() for m in _LATER_CUT.finditer(text)]
    reported = [False] * (len(cuts) + 1)
    for k in range(len(cuts) - 1, -1, -1):
        piece = text[cuts[k] + 1 : cuts[k + 1] if k + 1 < len(cuts) else len(text)]
        reported[k] = reported[k + 1] or _LATER_REPORT.search(piece.strip().casefold()) is not None
    return cuts, reported
