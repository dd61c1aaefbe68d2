"""The status of a decision a person or a stranger wrote: a person's override of the verdict, sealed by the
operator, and a decision the operator did not write, undone (fails closed until the Evaluation runs again)."""

from __future__ import annotations

from assay_operator import bounded, conditions, seals
from assay_operator.evaluation.api import (
    MAX_MESSAGE_LENGTH,
    EvaluationStatus,
    OverrideStatus,
)
from assay_operator.evaluation.read.reconcile.figures import NO_FIGURES
from assay_runner.vocabulary import Verdict

OVERRIDE = "override"
"""The kind of decision an override's seal names (assay_operator.seals)."""


def override_written_by_operator(override: OverrideStatus, uid: str) -> bool:
    return seals.verifies(OVERRIDE, uid, override.sealed_fields(), override.seal)


def overridden_status(
    current: EvaluationStatus,
    generation: int,
    verdict: Verdict,
    reason: str,
    by: str,
    at: str,
    uid: str = "",
) -> EvaluationStatus:
    """A person overrode the verdict of `generation`: the verdict and the conditions follow the override
    (Ready, Stalled: what GitOps tools act on), the status says who, why and what the gate said; the
    override carries the operator's seal (with `uid`, the Evaluation's)."""
    gate = current.override.gate_verdict if current.override is not None else current.verdict or "Blocked"
    message = bounded.text(
        f"{verdict} by override of {by}: {reason} (the gate's verdict: {gate}: {current.message or ''})",
        MAX_MESSAGE_LENGTH,
    )
    override = OverrideStatus(
        verdict=verdict,
        gate_verdict=gate,
        reason=bounded.text(reason, 1024),
        by=bounded.text(by, 253),
        at=at,
        generation=generation,
    )
    override.seal = seals.seal(OVERRIDE, uid, override.sealed_fields())
    passed = verdict == "Pass"
    desired = [
        conditions.Desired(conditions.READY, "True" if passed else "False", "Overridden", message),
        conditions.Desired(conditions.COMPLETED, "True", "Overridden", message),
        conditions.Desired(conditions.RECONCILING, "False", "Completed", "the run finished"),
        conditions.Desired(conditions.STALLED, "False" if passed else "True", "Overridden", message),
    ]
    return EvaluationStatus(
        verdict=verdict,
        override=override,
        message=message,
        conditions=conditions.merge(current.conditions, desired, generation),
    )


def decision_reverted(current: EvaluationStatus, generation: int, message: str) -> EvaluationStatus:
    """The decision in the status (an override, or the verdict itself) was not written by the operator:
    the override removed, and the verdict fails closed until the Evaluation runs again. Every decisive
    field is written (verdict_seal.FIELDS), none kept from the status it replaces, which is not the
    operator's: the score, the judges' means and the figures a Campaign reads are cleared; the run named is
    the one the status names."""
    message = bounded.text(message, MAX_MESSAGE_LENGTH)
    return EvaluationStatus(
        observed_generation=generation,
        job_name=current.job_name,
        verdict="Blocked",
        **NO_FIGURES,
        override=None,
        message=message,
        conditions=conditions.merge(
            current.conditions, conditions.finished("Blocked", "DecisionReverted", message), generation
        ),
    )
