"""A judge that is not the judged: a model judge on the agent's own model grades its own style kindly.

The workflow Assay reproduces judges with a different model than the one under the agent. The same model is
a warning in the result and the report, or an error when the suite says `requireDistinctJudgeModel: true`.
"""

from __future__ import annotations

from assay_runner.errors import InputError
from assay_runner.suite.loader import Suite
from assay_runner.suite.models import ModelJudge


def judge_model_warnings(suite: Suite, judge_model: str | None, agent_model: str | None) -> list[str]:
    if agent_model is None:
        return []
    same = [
        spec.name
        for spec in suite.spec.judges
        if isinstance(spec, ModelJudge) and (spec.model or judge_model) == agent_model
    ]
    if not same:
        return []
    message = (
        f"model judge(s) {', '.join(same)} use the agent's own model {agent_model!r}: "
        "a model grading its own answers is not an independent judge"
    )
    if suite.spec.require_distinct_judge_model:
        raise InputError(f"{message} (suite {suite.name!r} sets requireDistinctJudgeModel)")
    return [message]
