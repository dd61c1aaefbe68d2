"""What every judge sees and returns.

A judge is a small object built once per evaluation from its spec and the suite; `judge(case)` looks at
one ticket repetition and returns a JudgeVerdict. Judges never raise on bad answers: a poor answer is a low
score with a reason. An exception inside a judge is caught by the scorer and recorded as a judge error,
which blocks the verdict (fail closed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, runtime_checkable

from assay_runner.contract import ConversationRecord, JudgeVerdict, Trajectory
from assay_runner.suite.models import JudgeBase, Ticket


@dataclass(frozen=True)
class Case:
    """One ticket answered once: everything a judge may look at."""

    ticket: Ticket
    repetition: int
    answer: str
    """The answer text ("" when the agent wrote an empty file)."""
    exit_code: int | None = 0
    transcript: str = ""
    files: Mapping[str, str] = field(default_factory=dict)
    """Text files the agent left in its workspace (path -> text)."""
    trajectory: Trajectory | None = None
    """What the agent did, step by step (None when its kind of agent keeps no trajectory)."""
    conversation: ConversationRecord | None = None
    """A conversational ticket's exchange, turn by turn (`answer` is the agent's last turn)."""
    online: bool = False
    """Judging an ad-hoc answer without an answer key."""


@runtime_checkable
class Judge(Protocol):
    @property
    def spec(self) -> JudgeBase: ...

    @property
    def name(self) -> str: ...

    @property
    def needs_key(self) -> bool:
        """False when the judge can run on an ad-hoc answer with no answer key (online judging)."""
        ...

    def judge(self, case: Case) -> JudgeVerdict: ...


@runtime_checkable
class AsyncJudge(Protocol):
    """A judge that waits on the network (the model judge)."""

    @property
    def spec(self) -> JudgeBase: ...

    @property
    def name(self) -> str: ...

    @property
    def needs_key(self) -> bool: ...

    async def judge_async(self, case: Case) -> JudgeVerdict: ...


S = TypeVar("S", bound=JudgeBase)


@runtime_checkable
class Warmable(Protocol):
    """A judge whose first use starts something slow (a code judge's worker process)."""

    def warm(self, count: int) -> None:
        """Have `count` of them ready (blocks while they start; run it off the event loop)."""


@runtime_checkable
class Closable(Protocol):
    """A judge that holds something (processes) to let go of once the judging is over."""

    def end(self) -> None:
        """Tell it to go, without waiting (`close` waits)."""

    def close(self) -> None: ...


class SpecJudge(Generic[S]):
    """What every judge implementation shares: its spec, its name, and whether it needs an answer key
    (the kind's, `JudgeBase.uses_key`)."""

    def __init__(self, spec: S) -> None:
        self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def needs_key(self) -> bool:
        return self.spec.uses_key()


def scored(score: float, reason: str) -> JudgeVerdict:
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        return failed(f"score {score!r} is outside [0, 1]")
    return JudgeVerdict(score=score, reason=reason, applicable=True)


def not_applicable(reason: str) -> JudgeVerdict:
    return JudgeVerdict(score=None, reason=reason, applicable=False)


def failed(error: str) -> JudgeVerdict:
    """A judge error: applicable, no score, blocks."""
    return JudgeVerdict(score=None, reason=f"judge error: {error}", applicable=True, error=error)


def share(hits: int, total: int) -> float:
    return hits / total if total else 0.0
