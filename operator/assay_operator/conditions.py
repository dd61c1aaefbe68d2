"""metav1.Condition bookkeeping, pure.

`lastTransitionTime` changes only when a condition's status flips, so ten no-op reconciles leave it alone;
every condition carries the generation it describes, so kstatus and `kubectl wait` skip stale ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

Status = Literal["True", "False", "Unknown"]
READY, COMPLETED, RECONCILING, STALLED = "Ready", "Completed", "Reconciling", "Stalled"
ORDER = (READY, COMPLETED, RECONCILING, STALLED)


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Desired:
    type: str
    status: Status
    reason: str
    message: str


def merge(
    current: Sequence[dict[str, Any]] | None,
    desired: Iterable[Desired],
    generation: int,
    at: str | None = None,
) -> list[dict[str, Any]]:
    """The new condition list: desired conditions set, others kept, transition times kept unless flipped."""
    stamp = at or now()
    by_type = {c["type"]: dict(c) for c in current or []}
    for want in desired:
        old = by_type.get(want.type)
        flipped = old is None or old.get("status") != want.status
        by_type[want.type] = {
            "type": want.type,
            "status": want.status,
            "observedGeneration": generation,
            "lastTransitionTime": stamp if flipped else old["lastTransitionTime"],  # type: ignore[index]
            "reason": want.reason,
            "message": want.message[:32768],
        }
    ordered = [by_type.pop(t) for t in ORDER if t in by_type]
    return ordered + [by_type[t] for t in sorted(by_type)]


def find(conditions: Sequence[dict[str, Any]] | None, kind: str) -> dict[str, Any] | None:
    return next((c for c in conditions or [] if c.get("type") == kind), None)


def running(generation_message: str) -> list[Desired]:
    return [
        Desired(READY, "Unknown", "Running", "the evaluation is running; no verdict yet"),
        Desired(COMPLETED, "False", "Running", generation_message),
        Desired(RECONCILING, "True", "Running", generation_message),
        Desired(STALLED, "False", "Running", "making progress"),
    ]


def waiting(reason: str, message: str, stalled: bool) -> list[Desired]:
    """A dependency is missing: reconciling (it may appear), stalled once retries have gone on a while."""
    return [
        Desired(READY, "False", reason, message),
        Desired(COMPLETED, "False", reason, message),
        Desired(RECONCILING, "True", reason, message),
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
