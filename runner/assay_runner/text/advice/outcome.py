"""What a clause does with a match (`Outcome`: it advises, clears or leaves it uncertain), and what a text
says of another (`Stance`: yes, no, endorse, reject)."""

from __future__ import annotations

from typing import Literal, NamedTuple

Stance = Literal["yes", "no", "endorse", "reject"] | None


class Outcome(NamedTuple):
    kind: Literal["advises", "clears", "uncertain"]
    reason: str = ""


ADVISES = Outcome("advises")
CLEARS = Outcome("clears")
# Why a match is uncertain when no shape decides it: `text.key_objects` reads these two again.
UNANSWERED = "a question the answer leaves unanswered"
UNRECOGNISED = "mentioned, but not as an instruction the reader recognises"
