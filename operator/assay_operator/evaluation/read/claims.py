"""Why a run's answers claim is not bound (pure), read from the claim and the Events about it, in the words of
the PersistentVolume controller and the provisioners:

- Warning ProvisioningFailed `storageclass.storage.k8s.io "fast" not found`: the class the claim names does
  not exist (the controller retries every resync; nothing provisions it until someone creates the class);
- Warning ProvisioningFailed with any other message: the class's provisioner refused (bad parameters, an
  access mode it cannot serve, a backend error), in its own words;
- Normal FailedBinding `no persistent volumes available for this claim and no storage class is set`: the
  claim names no class and the cluster has no default one;
- still Pending without any of those (the scheduler's "pod has unbound immediate PersistentVolumeClaims", a
  class whose provisioner is not running): reported, naming the claim, its class and the last Event on it,
  and never stalled on, as it may bind by itself.

Each names the claim and the class, so the person reading the Evaluation knows what to create or fix. A
missing class or a refusing provisioner does not heal by itself: the run ends Stalled after the grace period
(pod_start.py), not at its deadline.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from assay_operator import bounded
from assay_operator.evaluation.read.starting import MAX_MESSAGE, StartProblem

KIND = "PersistentVolumeClaim"
PROVISIONING_FAILED = "ProvisioningFailed"
CLASS_MISSING = re.compile(r'storageclass(?:\.storage\.k8s\.io)? "(?P<name>[^"]+)" not found', re.IGNORECASE)
NO_CLASS = "no storage class is set"


def concerns_a_claim(event: Mapping[str, Any]) -> bool:
    """A Warning Event saying a claim cannot be provisioned (cheap: the Event watch's filter runs it)."""
    involved = event.get("involvedObject") or event.get("regarding") or {}
    return (
        event.get("type") == "Warning"
        and event.get("reason") == PROVISIONING_FAILED
        and involved.get("kind") == KIND
    )


def _class_of(claim: Mapping[str, Any] | None) -> str | None:
    return None if claim is None else (claim.get("spec") or {}).get("storageClassName")


def _problem(claim: str, storage_class: str | None, event: Mapping[str, Any]) -> StartProblem | None:
    """What one Event about the claim says is wrong, or None when it names nothing wrong."""
    message = str(event.get("message") or event.get("note") or "")
    reason = event.get("reason")
    if reason == PROVISIONING_FAILED and event.get("type") == "Warning":
        missing = CLASS_MISSING.search(message)
        if missing is not None:
            text = f"claim {claim} cannot be provisioned: StorageClass {missing['name']!r} not found"
            return StartProblem("StorageClassNotFound", bounded.text(text, MAX_MESSAGE))
        named = f" (StorageClass {storage_class!r})" if storage_class else ""
        text = f"claim {claim}{named} cannot be provisioned: {message}"
        return StartProblem("ProvisioningFailed", bounded.text(text, MAX_MESSAGE))
    if reason == "FailedBinding" and NO_CLASS in message:
        text = (
            f"claim {claim} names no StorageClass and the cluster has no default one ({message}): set "
            "spec.storage.storageClassName or the chart's storage.storageClass"
        )
        return StartProblem("StorageClassNotFound", bounded.text(text, MAX_MESSAGE))
    return None


def from_event(event: Mapping[str, Any], claim: Mapping[str, Any] | None = None) -> StartProblem | None:
    """The problem a Warning ProvisioningFailed Event on a claim reports, or None. `claim`, when given,
    names its class where the provisioner's words do not."""
    if not concerns_a_claim(event):
        return None
    involved = event.get("involvedObject") or event.get("regarding") or {}
    return _problem(str(involved.get("name") or "?"), _class_of(claim), event)


def _when(event: Mapping[str, Any]) -> str:
    """An Event's latest time, comparable as text (RFC 3339 in UTC, as the apiserver writes them)."""
    series = event.get("series") or {}
    return str(
        series.get("lastObservedTime")
        or event.get("lastTimestamp")
        or event.get("eventTime")
        or (event.get("metadata") or {}).get("creationTimestamp")
        or ""
    )


def from_claim(
    claim: Mapping[str, Any], events: Sequence[Mapping[str, Any]], pod: str
) -> StartProblem | None:
    """Why `claim` is not bound, from the claim and the Events about it (any order), for `pod`, which waits
    for it; None once it is bound (then the pod's wait is not the claim's doing)."""
    if (claim.get("status") or {}).get("phase") == "Bound":
        return None
    name = str((claim.get("metadata") or {}).get("name") or "?")
    storage_class = _class_of(claim)
    latest = sorted(events, key=_when, reverse=True)
    for event in latest:
        found = _problem(name, storage_class, event)
        if found is not None:
            return found
    said = (str(e.get("message") or e.get("note") or "") for e in latest)
    why = next((text for text in said if text), "no volume has been provisioned for it yet")
    named = f"StorageClass {storage_class!r}" if storage_class else "no StorageClass"
    text = f"pod {pod} waits for claim {name} ({named}), which is not bound: {why}"
    return StartProblem("ClaimPending", bounded.text(text, MAX_MESSAGE), heals=True)
