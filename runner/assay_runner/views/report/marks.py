"""Marks: one judge's verdict as full / partial / failed / not applicable / error.

The same thresholds and symbols as the terminal table (`assay_runner.views.table.mark`), without importing
rich: a test pins the two together. Every mark carries a symbol and a word, so nothing depends on colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from assay_runner.contract import JudgeVerdict, RepetitionResult, TicketResult

TOP = 1.0 - 1e-9  # full marks, as in table.mark()


class Kind(StrEnum):
    FULL = "full"
    PARTIAL = "partial"
    FAILED = "failed"
    NOT_APPLICABLE = "na"
    ERROR = "error"


SYMBOLS: dict[Kind, str] = {
    Kind.FULL: "✔",
    Kind.PARTIAL: "◐",
    Kind.FAILED: "✘",
    Kind.NOT_APPLICABLE: "·",
    Kind.ERROR: "!",
}

LABELS: dict[Kind, str] = {
    Kind.FULL: "full marks",
    Kind.PARTIAL: "partial",
    Kind.FAILED: "failed",
    Kind.NOT_APPLICABLE: "not applicable",
    Kind.ERROR: "error",
}


@dataclass(frozen=True)
class Mark:
    kind: Kind
    score: float | None = None
    """The partial value shown next to ◐ (normalised, in [0, 1])."""

    @property
    def symbol(self) -> str:
        return SYMBOLS[self.kind]

    @property
    def text(self) -> str:
        """What the eye sees: the symbol, and the value when partial."""
        if self.kind is Kind.PARTIAL and self.score is not None:
            return f"{self.symbol}{self.score:.2f}"
        return self.symbol

    @property
    def label(self) -> str:
        """What a screen reader (or a reader without colour) gets."""
        if self.kind is Kind.PARTIAL and self.score is not None:
            return f"partial {self.score:.2f}"
        return LABELS[self.kind]


def of_score(score: float) -> Mark:
    if score >= TOP:
        return Mark(Kind.FULL, score)
    if score <= 0.0:
        return Mark(Kind.FAILED, score)
    return Mark(Kind.PARTIAL, score)


def classify(verdict: JudgeVerdict | None) -> Mark:
    """One verdict, exactly like table.mark(): a missing verdict is an error, never a pass."""
    if verdict is None or verdict.error is not None:
        return Mark(Kind.ERROR)
    if not verdict.applicable or verdict.score is None:
        return Mark(Kind.NOT_APPLICABLE)
    return of_score(verdict.score)


def cell_mark(rep: RepetitionResult, judge: str) -> Mark:
    # A cell that could not be judged at all (missing answer) has no verdicts: every judge shows the error.
    if rep.error is not None and not rep.judges:
        return Mark(Kind.ERROR)
    return classify(rep.judges.get(judge))


def ticket_mark(ticket: TicketResult, judge: str) -> Mark:
    """One mark per judge per ticket: any error wins, else the mean over the repetitions where it applied."""
    if not ticket.repetitions:
        return Mark(Kind.ERROR)
    marks = [cell_mark(rep, judge) for rep in ticket.repetitions]
    if any(m.kind is Kind.ERROR for m in marks):
        return Mark(Kind.ERROR)
    scores = [m.score for m in marks if m.kind is not Kind.NOT_APPLICABLE and m.score is not None]
    if not scores:
        return Mark(Kind.NOT_APPLICABLE)
    return of_score(sum(scores) / len(scores))
