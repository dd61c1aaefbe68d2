"""Each judge's verdict as MLflow feedback, and the answer key as an expectation (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from assay_runner.contract import MODEL_JUDGE, RepetitionResult

if TYPE_CHECKING:
    from mlflow.entities import Expectation, Feedback

ANSWER_KEY = "answer_key"


def cell_feedback(
    ticket_id: str, cell: RepetitionResult, judge_types: Mapping[str, str], span_id: str
) -> list[Feedback]:
    """One feedback per applicable judge of the cell, on the span that holds the cell's verdicts: a ticket's
    trace has one per repetition, so the metadata says which repetition each value is for."""
    from mlflow.entities import AssessmentError, AssessmentSource, Feedback

    found: list[Feedback] = []
    for name, verdict in cell.judges.items():
        if not verdict.applicable:
            continue  # excluded, not scored: no feedback rather than a made-up value
        source_type = "LLM_JUDGE" if judge_types.get(name) == MODEL_JUDGE else "CODE"
        metadata = {"ticket": ticket_id, "repetition": str(cell.index)}
        if verdict.raw is not None:
            metadata["raw"] = f"{verdict.raw:g}"
        if verdict.samples is not None:
            metadata["samples"] = ",".join(f"{s:g}" for s in verdict.samples)
        outcome: dict[str, Any] = (
            {"error": AssessmentError(error_code="JUDGE_ERROR", error_message=verdict.error)}
            if verdict.error is not None
            else {"value": verdict.score}
        )
        found.append(
            Feedback(
                name=name,
                source=AssessmentSource(source_type=source_type, source_id=name),
                rationale=verdict.reason,
                metadata=metadata,
                span_id=span_id,
                **outcome,
            )
        )
    return found


def answer_key(key: dict[str, Any] | None) -> Expectation | None:
    """The ticket's answer key, as the suite gives it (None: an online answer has no key)."""
    from mlflow.entities import AssessmentSource, Expectation

    if key is None:
        return None
    return Expectation(
        name=ANSWER_KEY, value=key, source=AssessmentSource(source_type="HUMAN", source_id="suite")
    )
