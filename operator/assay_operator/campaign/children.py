"""A Campaign's Evaluations as the Campaign reads them: each parsed once, from the API's JSON, into the
figures every later step uses (its normalised spec, its typed status, whether it has a verdict)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from assay_operator import conditions
from assay_operator.evaluation.api import EvaluationSpec, EvaluationStatus


def normalised_spec(spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """The spec with the defaults filled in, as the apiserver stores it (the CRD's defaults are the models'),
    camelCase without nulls; None when it does not validate."""
    try:
        return EvaluationSpec.model_validate(spec).model_dump(by_alias=True, exclude_none=True, mode="json")
    except ValidationError:
        return None


@dataclass(frozen=True)
class Child:
    """One Evaluation of the Campaign."""

    name: str
    generation: int
    spec: dict[str, Any] | None
    """Normalised (normalised_spec); None when it does not validate (it is then replaced)."""
    status: EvaluationStatus


def parse_child(evaluation: Mapping[str, Any]) -> Child:
    metadata = evaluation["metadata"]
    return Child(
        name=str(metadata["name"]),
        generation=int(metadata.get("generation") or 0),
        spec=normalised_spec(evaluation.get("spec") or {}),
        status=EvaluationStatus.model_validate(evaluation.get("status") or {}),
    )


def parse_children(evaluations: Iterable[Mapping[str, Any]]) -> dict[str, Child]:
    """name -> the parsed Evaluation."""
    parsed = (parse_child(evaluation) for evaluation in evaluations)
    return {child.name: child for child in parsed}


def evaluation_status(evaluation: Child) -> EvaluationStatus:
    """An Evaluation's status as the typed model its operator wrote it from."""
    return evaluation.status


def finished(evaluation: Child) -> bool:
    """The Evaluation's current generation has its verdict (a stale verdict of an older spec does not
    count)."""
    status = evaluation.status
    generation = evaluation.generation
    return (
        status.verdict is not None
        and status.observed_generation == generation
        and conditions.holds(status.conditions, conditions.COMPLETED, generation)
    )
