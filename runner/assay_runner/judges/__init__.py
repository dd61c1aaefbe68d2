"""The judges: one small module per type, built from a suite by `build_judges`.

Each judge's module is imported when a suite uses that judge, not before: the policy judge's clause reader
or the model judge's client cost start-up time a suite without them should not pay.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from assay_runner.judges.base import AsyncJudge, Case, Closable, Judge, Warmable
from assay_runner.suite.models import (
    AbstentionJudge,
    AskedFirstJudge,
    CodeJudge,
    ExitCodeJudge,
    FormatJudge,
    JudgeBase,
    KbCitationJudge,
    ModelJudge,
    MustMentionJudge,
    PolicyJudge,
    TrajectoryJudge,
    TurnsJudge,
    UnsaidFactsJudge,
)

if TYPE_CHECKING:
    from assay_runner.gateway.chat import ChatClient
    from assay_runner.suite.loader import Suite

AnyJudge = Judge | AsyncJudge

__all__ = [
    "AnyJudge",
    "AsyncJudge",
    "Case",
    "Judge",
    "build_judge",
    "build_judges",
    "close_judges",
    "end_judges",
]


def build_judge(
    spec: JudgeBase, suite: Suite, client: ChatClient | None = None, judge_model: str | None = None
) -> AnyJudge:
    match spec:
        case KbCitationJudge():
            from assay_runner.judges.kb_citation import KbCitation

            return KbCitation(spec, suite.kb)
        case MustMentionJudge():
            from assay_runner.judges.must_mention import MustMention

            return MustMention(spec)
        case PolicyJudge():
            from assay_runner.judges.policy import Policy, PolicySecondReading

            return (
                PolicySecondReading(spec, client, judge_model) if spec.uncertain == "model" else Policy(spec)
            )
        case FormatJudge():
            from assay_runner.judges.format import Format

            return Format(spec)
        case AbstentionJudge():
            from assay_runner.judges.abstention import Abstention

            return Abstention(spec)
        case ExitCodeJudge():
            from assay_runner.judges.exit_code import ExitCode

            return ExitCode(spec)
        case CodeJudge():
            from assay_runner.judges.code import Code

            return Code(spec, suite.root)
        case ModelJudge():
            from assay_runner.judges.model import Model

            return Model(spec, client, judge_model)
        case TrajectoryJudge():
            from assay_runner.judges.trajectory import TrajectoryChecks

            return TrajectoryChecks(spec, suite.kb)
        case AskedFirstJudge() | UnsaidFactsJudge() | TurnsJudge():
            from assay_runner.judges.conversation import conversation_judge

            return conversation_judge(spec)
    raise TypeError(f"no judge implements {type(spec).__name__}")


def build_judges(
    suite: Suite, client: ChatClient | None = None, judge_model: str | None = None
) -> list[AnyJudge]:
    return [build_judge(spec, suite, client, judge_model) for spec in suite.spec.judges]


def warm_judges(judges: Iterable[AnyJudge], count: int) -> None:
    """Have what the judges start on first use ready for `count` cells judged at once (a code judge's
    workers): blocks while it starts, so it runs off the event loop (`run.scheduler`'s warm-up)."""
    for judge in judges:
        if isinstance(judge, Warmable):
            judge.warm(count)


def end_judges(judges: Iterable[AnyJudge]) -> None:
    """The judging is over: what the judges hold is told to go (a code judge's idle workers get SIGKILL),
    without waiting for it. `close_judges` waits; in between, the kernel tears the workers down while the
    runner computes the verdict (~2 ms that were the largest part of `assay run`'s tail)."""
    for judge in judges:
        if isinstance(judge, Closable):
            judge.end()


def close_judges(judges: Iterable[AnyJudge]) -> None:
    """What the judges hold is gone when this returns (a code judge's worker processes, reaped), not when
    the process exits — until a worker is gone, a reader of the runner's standard error (which the worker
    shares) is still waiting for its end."""
    judges = list(judges)
    end_judges(judges)  # every judge's first: the workers end side by side
    for judge in judges:
        if isinstance(judge, Closable):
            judge.close()
