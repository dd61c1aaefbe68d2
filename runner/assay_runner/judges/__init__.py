"""The judges: one small module per type, built from a suite by `build_judges`."""

from __future__ import annotations

from assay_runner.chat import ChatClient
from assay_runner.judges.abstention import Abstention
from assay_runner.judges.base import AsyncJudge, Case, Judge
from assay_runner.judges.code import Code
from assay_runner.judges.exit_code import ExitCode
from assay_runner.judges.format import Format
from assay_runner.judges.kb_citation import KbCitation
from assay_runner.judges.model import Model
from assay_runner.judges.must_mention import MustMention
from assay_runner.judges.policy import Policy
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import (
    AbstentionJudge,
    CodeJudge,
    ExitCodeJudge,
    FormatJudge,
    JudgeBase,
    KbCitationJudge,
    ModelJudge,
    MustMentionJudge,
    PolicyJudge,
)

AnyJudge = Judge | AsyncJudge

__all__ = ["AnyJudge", "AsyncJudge", "Case", "Judge", "build_judge", "build_judges"]


def build_judge(
    spec: JudgeBase, suite: Suite, client: ChatClient | None = None, judge_model: str | None = None
) -> AnyJudge:
    match spec:
        case KbCitationJudge():
            return KbCitation(spec, suite.kb)
        case MustMentionJudge():
            return MustMention(spec)
        case PolicyJudge():
            return Policy(spec)
        case FormatJudge():
            return Format(spec)
        case AbstentionJudge():
            return Abstention(spec)
        case ExitCodeJudge():
            return ExitCode(spec)
        case CodeJudge():
            return Code(spec, suite.root)
        case ModelJudge():
            return Model(spec, client, judge_model)
    raise TypeError(f"no judge implements {type(spec).__name__}")


def build_judges(
    suite: Suite, client: ChatClient | None = None, judge_model: str | None = None
) -> list[AnyJudge]:
    return [build_judge(spec, suite, client, judge_model) for spec in suite.spec.judges]
