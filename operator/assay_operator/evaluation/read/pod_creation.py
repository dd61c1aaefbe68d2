"""Why a run's Job cannot create its pods (pure), read from the Job controller's Warning FailedCreate Events —
the only place it shows: the Job's status and conditions say nothing, and no pod exists to watch. In the
apiserver's words (`Error creating: pods "e-g1-0-x" is forbidden: ...`):

- `exceeded quota: q, requested: cpu=2, used: cpu=3, limited: cpu=4`: the namespace's ResourceQuota `q` has
  no room. QuotaExceeded; it heals when other pods end, unless the pod asks for more than the quota's limit
  on its own (requested > limited), which no amount of waiting fixes;
- `failed quota: q: must specify limits.cpu for: runner`: the quota demands a request or limit the pod does
  not set. QuotaRefused; never heals;
- `status unknown for quota: q`: the quota controller has not counted the namespace yet. QuotaRefused; heals;
- any other refusal (`is forbidden: violates PodSecurity ...`, a LimitRange, an admission webhook):
  PodCreateRefused, never heals; an error that is not a refusal (a timeout) heals.

Each names the Job and the object that refuses, so the person reading the Evaluation knows what to change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from assay_operator import bounded
from assay_operator.evaluation.read.starting import MAX_MESSAGE, StartProblem
from assay_operator.quantity import parse

KIND = "Job"
FAILED_CREATE = "FailedCreate"
EXCEEDED = re.compile(
    r"exceeded quota: (?P<quota>[^,\s]+), requested: (?P<requested>\S*), used: (?P<used>\S*), "
    r"limited: (?P<limited>\S*)"
)
FAILED = re.compile(r"failed quota: (?P<quota>[^:\s]+): (?P<why>.+)")
UNKNOWN = re.compile(r"status unknown for quota: (?P<quota>[^,\s]+)")
REFUSED = " is forbidden: "
LEAD = re.compile(r"^Error creating: ")


def concerns_a_job(event: Mapping[str, Any]) -> bool:
    """A Warning Event saying a Job could not create a pod (cheap: the Event watch's filter runs it)."""
    involved = event.get("involvedObject") or event.get("regarding") or {}
    return (
        event.get("type") == "Warning"
        and event.get("reason") == FAILED_CREATE
        and involved.get("kind") == KIND
    )


def _amounts(listed: str) -> dict[str, Decimal]:
    """`cpu=500m,memory=1Gi` (how quota admission lists amounts) as numbers; what does not parse is left
    out."""
    found: dict[str, Decimal] = {}
    for part in listed.split(","):
        resource, _, amount = part.partition("=")
        value = parse(amount)
        if resource and value is not None:
            found[resource] = value
    return found


def never_fits(requested: str, limited: str) -> bool:
    """The pod alone asks for more of some resource than the quota allows at all."""
    limits = _amounts(limited)
    return any(value > limits[name] for name, value in _amounts(requested).items() if name in limits)


def from_event(event: Mapping[str, Any]) -> StartProblem | None:
    """The problem a Warning FailedCreate Event on a Job reports, or None."""
    if not concerns_a_job(event):
        return None
    job = str((event.get("involvedObject") or event.get("regarding") or {}).get("name") or "?")
    said = LEAD.sub("", str(event.get("message") or event.get("note") or ""))
    exceeded = EXCEEDED.search(said)
    if exceeded is not None:
        quota, requested, used, limited = exceeded.group("quota", "requested", "used", "limited")
        stuck = never_fits(requested, limited)
        why = "more than it allows at all" if stuck else "more than it has left"
        text = (
            f"Job {job} cannot create its pods: ResourceQuota {quota!r} refuses them, {why} "
            f"(requested {requested}, used {used}, limited {limited})"
        )
        return StartProblem("QuotaExceeded", bounded.text(text, MAX_MESSAGE), heals=not stuck)
    failed = FAILED.search(said)
    if failed is not None:
        quota, why = failed.group("quota", "why")
        text = f"Job {job} cannot create its pods: ResourceQuota {quota!r} refuses them: {why}"
        return StartProblem("QuotaRefused", bounded.text(text, MAX_MESSAGE))
    unknown = UNKNOWN.search(said)
    if unknown is not None:
        text = (
            f"Job {job} cannot create its pods yet: ResourceQuota {unknown['quota']!r} has not been counted "
            "(is the resourcequota controller running?)"
        )
        return StartProblem("QuotaRefused", bounded.text(text, MAX_MESSAGE), heals=True)
    text = f"Job {job} cannot create its pods: {said}"
    return StartProblem("PodCreateRefused", bounded.text(text, MAX_MESSAGE), heals=REFUSED not in said)
