"""metav1.Condition bookkeeping, pure.

`lastTransitionTime` changes only when a condition's status flips, so ten no-op reconciles leave it alone;
every condition carries the generation it describes, so kstatus and `kubectl wait` skip stale ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from pydantic import Field

from assay_operator import bounded
from assay_operator.schema import ApiModel

Status = Literal["True", "False", "Unknown"]
REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
MAX_CONDITION_MESSAGE = 2048
READY, COMPLETED, RECONCILING, STALLED = "Ready", "Completed", "Reconciling", "Stalled"
ORDER = (READY, COMPLETED, RECONCILING, STALLED)
QUEUED = "Queued"
"""True while the run waits in its Kueue queue (reason Queued, naming the queue); False once admitted."""
START_BLOCKED = "StartBlocked"
"""True while the run's pod cannot start (a missing Secret, an image that cannot be pulled, no node with
room), naming what is missing; False once it started. Present only on Evaluations that met one."""
RUN_PROGRESS = (QUEUED, START_BLOCKED)
NETWORK_ENFORCED = "NetworkEnforced"
"""Whether the network probe found the answer pods' NetworkPolicy enforced (True), found a forbidden
connection get through or could not run (False, naming what), or is still probing (Unknown). Present only on
Evaluations that set spec.network.requireEnforced."""
IMAGE_VERIFIED = "ImageVerified"
"""Whether the runner image verified (True, reason Verified) or was refused (False: NotByDigest,
DigestMismatch, Unsigned, SignatureInvalid; Unknown: ImageUnreadable, retried). Present only when the
install verifies images (ASSAY_IMAGE_VERIFICATION_KEY_FILE)."""
SUITE_VERIFIED = "SuiteVerified"
"""Whether the suite's OCI artifact (spec.suite.oci) verified, by the same key and reasons as ImageVerified
(Unknown: SuiteUnreadable, retried). Present only when the install verifies and the suite is an artifact."""


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Condition(ApiModel):
    """metav1.Condition."""

    type: str = Field(max_length=316)
    status: Status
    observed_generation: int | None = None
    last_transition_time: str
    reason: str = Field(max_length=1024, pattern=REASON.pattern)
    message: str = Field(max_length=32768)


@dataclass(frozen=True)
class Desired:
    type: str
    status: Status
    reason: str
    message: str


def merge(
    current: Sequence[Condition] | None,
    desired: Iterable[Desired],
    generation: int,
    at: str | None = None,
) -> list[Condition]:
    """The new condition list: desired conditions set, others kept, transition times kept unless flipped."""
    stamp = at or now()
    by_type = {c.type: c for c in current or []}
    for want in desired:
        old = by_type.get(want.type)
        by_type[want.type] = Condition(
            type=want.type,
            status=want.status,
            observed_generation=generation,
            last_transition_time=stamp
            if old is None or old.status != want.status
            else old.last_transition_time,
            reason=safe_reason(want.reason),
            message=bounded.text(want.message, MAX_CONDITION_MESSAGE),
        )
    ordered = [by_type.pop(t) for t in ORDER if t in by_type]
    return ordered + [by_type[t] for t in sorted(by_type)]


def safe_reason(reason: str) -> str:
    """A reason as metav1.Condition allows it (CamelCase letters, digits, `_`, `,` and `:`): one from outside
    (a Job's failure reason) is cleaned of what the schema would refuse, rather than break the status."""
    if REASON.match(reason) and len(reason) <= 1024:
        return reason
    cleaned = "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9_]+", reason))
    cleaned = cleaned.lstrip("0123456789_")[:1024].rstrip(",:")
    return cleaned or "Unknown"


def find(conditions: Sequence[Condition] | None, kind: str) -> Condition | None:
    return next((c for c in conditions or [] if c.type == kind), None)


def holds(conditions: Sequence[Condition] | None, kind: str, generation: int) -> bool:
    """The condition is True and describes `generation` (a stale True of an older spec does not count)."""
    found = find(conditions, kind)
    return found is not None and found.status == "True" and found.observed_generation == generation


def settled(current: Sequence[Condition] | None, reason: str, message: str) -> list[Desired]:
    """The run-progress conditions (RUN_PROGRESS) the list holds, set False: a new run starts, or the run
    ended, so none of them describes what is happening any more."""
    return [Desired(c.type, "False", reason, message) for c in current or [] if c.type in RUN_PROGRESS]


def running(generation_message: str) -> list[Desired]:
    return [
        Desired(READY, "Unknown", "Running", "the evaluation is running; no verdict yet"),
        Desired(COMPLETED, "False", "Running", generation_message),
        Desired(RECONCILING, "True", "Running", generation_message),
        Desired(STALLED, "False", "Running", "making progress"),
    ]


def waiting(reason: str, message: str, stalled: bool) -> list[Desired]:
    """A dependency is missing: reconciling (it may appear), then stalled once retries have gone on a while.
    Stalled=True always comes with Reconciling=False: kstatus (Flux) and Argo CD read Reconciling first, so
    both True would read "in progress" for ever instead of failing fast. The operator still retries, and
    proceeds by itself when the dependency appears."""
    return [
        Desired(READY, "False", reason, message),
        Desired(COMPLETED, "False", reason, message),
        Desired(RECONCILING, "False" if stalled else "True", reason, message),
        Desired(STALLED, "True" if stalled else "False", reason, message),
    ]


def finished(verdict: str, reason: str, message: str) -> list[Desired]:
    passed = verdict == "Pass"
    return [
        Desired(READY, "True" if passed else "False", "Passed" if passed else reason, message),
        Desired(COMPLETED, "True", "Completed" if passed else reason, message),
        Desired(RECONCILING, "False", "Completed", "the run finished"),
        Desired(STALLED, "False" if passed else "True", "Passed" if passed else reason, message),
    ]
