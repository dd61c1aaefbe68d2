"""What a sentence's neighbours and place say besides its own words (`Facts`): whether it is a question,
its quotations, a table's column and row verdicts, and the next sentence's reply."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from assay_runner.text.advice.cues import _cues
from assay_runner.text.advice.outcome import Stance
from assay_runner.text.advice.stance_reading import reply_of
from assay_runner.text.stance import BECAUSE, reply_polarity
from assay_runner.text.stance.delegation import delegates
from assay_runner.text.stance.disowning import disowns


class Facts(NamedTuple):
    """What a sentence's neighbours and structure say, besides its own words (part of its reading key)."""

    question: bool
    quotes: tuple[tuple[int, int], ...]
    """Spans of the sentence inside quotation marks."""
    quoted: bool
    """The sentence is in a block quote."""
    column: Stance
    """A table cell: what its column's header says ("Don't" -> no, "Fix" -> yes)."""
    row: Stance
    """A table cell: what a verdict cell in its row says ("Yes", "Not recommended")."""
    reply: Stance
    """What the next sentence says about this one."""
    language: str = "en"
    """The answer's language (`text.language`)."""
    shaped: Stance = None
    """What the next sentence's structure says of this one when no cue word decides (`text.stance`)."""
    explained: bool = False
    """The next sentence gives a reason ("Because ..."): a why-question it follows is not rhetorical."""
    disowned: bool = False
    """The next sentence disowns this one ("To nie jest nasze zalecenie.", `stance.disowning`): more
    than a reply's "reject", which an answer that advises something else instead also says."""


_NEGATIVE_HEADER = _cues(
    r"\b(?:don'?t|do not|avoid|never|not|no|bad|wrong|risky)\b", "\u274c", "\u2716", "\U0001f6ab"
)
_POSITIVE_HEADER = _cues(
    r"\b(?:do|fix|fixes|solution|solutions|action|actions|steps?|task|workaround|remedy|recommended|try|use|"
    r"safe|yes)\b",
    "\u2705",
    "\u2714",
)
_VERDICT_NO = _cues(
    r"^(?:no|never|not recommended|not advised|avoid|don'?t|do not|not needed|not required|optional)\b"
)
_VERDICT_YES = _cues(r"^(?:yes|required|recommended|always|needed|necessary|must)\b")


def column_stance(header: str) -> Stance:
    if not header:
        return None
    if _NEGATIVE_HEADER.search(header) or delegates(header):
        return "no"  # ... or "What our technician will do", "Lo que hará nuestro instalador"
    return "yes" if _POSITIVE_HEADER.search(header) else None


def row_stance(cells: Sequence[str]) -> Stance:
    """A verdict cell in the row ("Yes", "No", "Not recommended", "Required")."""
    for cell in cells:
        text = cell.strip().casefold().rstrip(".!")
        if len(text.split()) <= 3:
            if _VERDICT_NO.search(text):
                return "no"
            if _VERDICT_YES.search(text):
                return "yes"
    return None


_QUOTE = re.compile(r"\"[^\"]+\"|(?<![\w])'[^']+'(?![\w])")


def facts_of(
    text: str,
    quoted: bool,
    column: str,
    row: Sequence[str],
    following: str | None,
    language: str = "en",
) -> Facts:
    reply = reply_of(following, language) if following else None
    return Facts(
        question=text.rstrip().endswith("?"),
        quotes=tuple(m.span() for m in _QUOTE.finditer(text)) if ('"' in text or "'" in text) else (),
        quoted=quoted,
        column=column_stance(column),
        row=row_stance(row),
        reply=reply,
        language=language,
        shaped=reply_polarity(following, language) if following and reply is None else None,
        explained=bool(following and BECAUSE.search(following)),
        disowned=disowns(following, language) if following else False,
    )
