"""A Campaign's Evaluations as the Campaign reads them: each parsed once, from the API's JSON, into the
figures every later step uses (its normalised spec, its typed status, whether it has a verdict).

A Campaign reconciles whenever one of its Evaluations changes, and each reconcile reads all of them: with
a 256-cell grid, re-validating every unchanged Evaluation on every event made the operator's CPU grow with
the square of the grid. A parsed Evaluation is therefore kept by (uid, resourceVersion) — the apiserver
changes the resourceVersion on every write, so a kept entry is exactly what is stored — and only the ones
that changed are parsed again. Parsed children are read-only to their users.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from assay_operator import conditions
from assay_operator.evaluation.api import EvaluationSpec, EvaluationStatus
from assay_operator.evaluation.read import verdict_seal


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
    decided_by_operator: bool = True
    """The decision its status states carries the operator's seal (evaluation/read/verdict_seal.py); one
    that does not (written around admission, about to be undone) is not a verdict to decide on."""


def parse_child(evaluation: Mapping[str, Any]) -> Child:
    metadata = evaluation["metadata"]
    status = EvaluationStatus.model_validate(evaluation.get("status") or {})
    return Child(
        name=str(metadata["name"]),
        generation=int(metadata.get("generation") or 0),
        spec=normalised_spec(evaluation.get("spec") or {}),
        status=status,
        decided_by_operator=verdict_seal.written_by_operator(status, str(metadata.get("uid") or "")),
    )


class ParsedCache:
    """Parsed Evaluations by (uid, resourceVersion), the least recently used dropped past `size`; safe to
    share between kopf's handler threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[str, str], Child] = OrderedDict()
        self._lock = threading.Lock()

    def parse(self, evaluation: Mapping[str, Any]) -> Child:
        metadata = evaluation["metadata"]
        uid, version = metadata.get("uid"), metadata.get("resourceVersion")
        if not uid or not version:  # not from the apiserver (a test's object): nothing to key it by
            return parse_child(evaluation)
        key = (str(uid), str(version))
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                return kept
        child = parse_child(evaluation)  # outside the lock: parsing is the slow part
        with self._lock:
            self._kept[key] = child
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return child

    def __len__(self) -> int:
        return len(self._kept)


PARSED = ParsedCache(size=8192)
"""Room for several of the largest grids (256 cells) with a few versions each."""


def parse_children(
    evaluations: Iterable[Mapping[str, Any]], cache: ParsedCache | None = PARSED
) -> dict[str, Child]:
    """name -> the parsed Evaluation (`cache=None`: parse every one)."""
    parse = parse_child if cache is None else cache.parse
    parsed = (parse(evaluation) for evaluation in evaluations)
    return {child.name: child for child in parsed}


def evaluation_status(evaluation: Child) -> EvaluationStatus:
    """An Evaluation's status as the typed model its operator wrote it from."""
    return evaluation.status


def finished(evaluation: Child) -> bool:
    """The Evaluation's current generation has its verdict, the operator's (a stale verdict of an older spec
    does not count, nor one the operator did not write: the Campaign waits for it to be undone)."""
    status = evaluation.status
    generation = evaluation.generation
    return (
        evaluation.decided_by_operator
        and status.verdict is not None
        and status.observed_generation == generation
        and conditions.holds(status.conditions, conditions.COMPLETED, generation)
    )
