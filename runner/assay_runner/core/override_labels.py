"""People's overrides as labels: an Evaluation whose Blocked verdict a person overrode to Pass says that
person accepted the answers the gate blocked on. Each cell a gating judge failed (an applicable score below
its threshold) becomes a `pass` label for that judge, by the person who overrode, with their reason as the
note — labels `assay calibrate` reads like any others.

What it cannot say: an override of Pass to Blocked names no ticket and no judge, so it gives no label (the
count of such overrides is returned so the caller can say so); and an override is a verdict on the whole
run, so its labels are coarse — every failing cell is taken as accepted. The Evaluation's status and the
result must be of the same run (the judges and answers digests agree), or nothing is exported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay_runner.contract import Result
from assay_runner.core.scoring import at_least, unit
from assay_runner.errors import InputError
from assay_runner.suite.calibration import Label


@dataclass(frozen=True)
class Exported:
    labels: list[Label]
    skipped: str | None = None
    """Why the Evaluation gave no label, when it gave none."""


def _field(mapping: Mapping[str, Any], *path: str) -> Any:
    value: Any = mapping
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def override_labels(evaluation: Mapping[str, Any], result: Result) -> Exported:
    name = _field(evaluation, "metadata", "name") or "the Evaluation"
    override = _field(evaluation, "status", "override")
    if not isinstance(override, Mapping):
        return Exported([], f"{name} has no override")
    status_inputs = _field(evaluation, "status", "inputs") or {}
    for field, ours in (
        ("judgesDigest", result.inputs.judges_digest),
        ("answersDigest", result.inputs.answers_digest),
    ):
        theirs = status_inputs.get(field) if isinstance(status_inputs, Mapping) else None
        if theirs != ours:
            raise InputError(
                f"{name}: status.inputs.{field} {theirs!r} is not the result's {ours!r}: not the same run"
            )
    if override.get("generation") != _field(evaluation, "status", "observedGeneration"):
        return Exported([], f"{name}'s override is of an earlier generation")
    if override.get("verdict") != "Pass" or override.get("gateVerdict") != "Blocked":
        return Exported(
            [],
            f"{name}'s override ({override.get('gateVerdict')} -> {override.get('verdict')}) names no answer",
        )
    by, reason = str(override.get("by") or "unknown"), str(override.get("reason") or "")
    labels: list[Label] = []
    configs = [c for c in result.config.judges if c.shadow is None]
    for ticket in result.tickets:
        for rep in ticket.repetitions:
            if rep.answer is None:
                continue
            for config in configs:
                verdict = rep.judges.get(config.name)
                if (
                    verdict is None
                    or not verdict.applicable
                    or verdict.error is not None
                    or verdict.score is None
                ):
                    continue
                if at_least(verdict.score, unit(config, config.threshold)):
                    continue
                labels.append(
                    Label(
                        ticket=ticket.id,
                        judge=config.name,
                        answer=rep.answer,
                        verdict="pass",
                        labeller=by,
                        note=f"override of {name} ({ticket.id}/{rep.index}): {reason}"[:1000],
                    )
                )
    return Exported(labels, None if labels else f"{name}'s override covers no failing cell")
