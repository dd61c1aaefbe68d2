"""What the network probe's pod (build/network_probe.py) found, from the pod as the API gives it: still
running, enforced (every forbidden connection refused), or not — a connection that got through, no report,
or no report in time all read as not enforced (fail closed). Pure."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from assay_operator.cluster_views import Meta, Object, Pod, Terminated

CONNECTED = "connected"


@dataclass(frozen=True)
class Finding:
    enforced: bool | None
    """None: the probe is still running."""
    message: str


def read_report(message: str | None) -> dict[str, str] | None:
    """The probe's report ({"NAME HOST:PORT": outcome}) from its termination message; None when it wrote
    none that parses."""
    try:
        found = json.loads(message or "")
    except ValueError:
        return None
    if not isinstance(found, dict) or not found or not all(isinstance(v, str) for v in found.values()):
        return None
    return {str(k): v for k, v in found.items()}


def breaches(found: Mapping[str, str]) -> list[str]:
    """The targets a connection got through to."""
    return sorted(target for target, outcome in found.items() if outcome == CONNECTED)


def _terminated(pod: Pod) -> Terminated | None:
    return next((c.state.terminated for c in pod.status.container_statuses if c.state.terminated), None)


def _age_seconds(meta: Meta, now: datetime) -> float:
    if not meta.creation_timestamp:
        return 0.0
    return (now - datetime.fromisoformat(meta.creation_timestamp.replace("Z", "+00:00"))).total_seconds()


def no_pod(job: Object, limit_seconds: float, now: datetime) -> Finding:
    """The probe's Job has no pod yet: waiting, or not enforced once the limit has passed (fail closed)."""
    name = job.metadata.name
    if _age_seconds(job.metadata, now) > limit_seconds:
        return Finding(False, f"the probe Job {name} ran no pod within {limit_seconds:g} s")
    return Finding(None, f"waiting for the network probe's pod (Job {name})")


def finding(pod: Pod, limit_seconds: float, now: datetime) -> Finding:
    name = pod.metadata.name
    terminated = _terminated(pod)
    if terminated is None:
        if _age_seconds(pod.metadata, now) > limit_seconds:
            return Finding(False, f"the probe pod {name} did not report within {limit_seconds:g} s")
        return Finding(None, f"waiting for the network probe (pod {name})")
    report = read_report(terminated.message)
    if report is None:
        return Finding(False, f"the probe pod {name} wrote no report (exit code {terminated.exit_code})")
    tried = ", ".join(f"{target} {outcome}" for target, outcome in sorted(report.items()))
    got_through = breaches(report)
    if got_through:
        return Finding(
            False, f"a pod its NetworkPolicy selects connected to {', '.join(got_through)} (probe: {tried})"
        )
    return Finding(
        True, f"a pod the answer pods' NetworkPolicy selects was refused every forbidden connection ({tried})"
    )
