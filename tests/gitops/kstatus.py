"""A port of kstatus (sigs.k8s.io/cli-utils/pkg/kstatus/status: Compute, checkGenericProperties,
checkGeneration, checkReadyCondition) for custom resources, which is what Flux's kustomize-controller and
helm-controller run when `wait: true` checks an applied object's health.

Only the path a custom resource takes is ported: kstatus's per-kind rules for built-in types (Deployment,
Job, ...) never apply to an Evaluation. Messages are kstatus's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["InProgress", "Failed", "Current", "Terminating"]


@dataclass(frozen=True)
class Result:
    status: Status
    message: str
    reason: str = ""


def compute(obj: dict[str, Any]) -> Result:
    """status.Compute for an object whose kind kstatus has no special rules for."""
    generic = _check_generic_properties(obj)
    if generic is not None:
        return generic
    ready = _check_ready_condition(obj)
    if ready is not None:
        return ready
    # "the absence of any known conditions means the resource is current"
    return Result("Current", "Resource is current")


def _conditions(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return list((obj.get("status") or {}).get("conditions") or [])


def _check_generic_properties(obj: dict[str, Any]) -> Result | None:
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return Result("Terminating", "Resource scheduled for deletion")
    stale = _check_generation(obj)
    if stale is not None:
        return stale
    # In list order: the first Reconciling=True or Stalled=True decides.
    for condition in _conditions(obj):
        if condition.get("type") == "Reconciling" and condition.get("status") == "True":
            return Result("InProgress", condition.get("message", ""), condition.get("reason", ""))
        if condition.get("type") == "Stalled" and condition.get("status") == "True":
            return Result("Failed", condition.get("message", ""), condition.get("reason", ""))
    return None


def _check_generation(obj: dict[str, Any]) -> Result | None:
    generation = (obj.get("metadata") or {}).get("generation")
    if generation is None:
        return None
    status = obj.get("status") or {}
    if "observedGeneration" not in status:
        return None  # kstatus cannot check what is not there
    observed = status["observedGeneration"]
    if observed != generation:
        message = (
            f"{obj.get('kind')} generation is {generation}, but latest observed generation is {observed}"
        )
        return Result("InProgress", message, "LatestGenerationNotObserved")
    return None


def _check_ready_condition(obj: dict[str, Any]) -> Result | None:
    for condition in _conditions(obj):
        if condition.get("type") != "Ready":
            continue
        if condition.get("status") == "True":
            return Result("Current", "Resource is Ready")
        if condition.get("status") in ("False", "Unknown"):
            return Result("InProgress", condition.get("message", ""), condition.get("reason", ""))
    return None
