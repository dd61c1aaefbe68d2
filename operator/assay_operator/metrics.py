"""Prometheus metrics. Labels are bounded (verdict, reason, kind, phase): never an evaluation's name.

Counters count this process's events; every label set they can take is created at start, so a series exists
(at 0) before the first event and alerts and dashboards never see "no data". What the cluster holds is a
gauge computed at scrape time from the Evaluations the operator watches (EvaluationsCollector), so it is right
from the first scrape after a restart.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from prometheus_client import REGISTRY, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

EVALUATIONS = Counter(
    "assay_evaluations_total", "Evaluations finished, by verdict and reason", ["verdict", "reason"]
)
RECONCILE_SECONDS = Histogram(
    "assay_reconcile_duration_seconds", "Time spent in one reconcile of an Evaluation"
)
EVALUATION_SECONDS = Histogram(
    "assay_evaluation_duration_seconds",
    "From Job creation to verdict",
    buckets=(10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200),
)
JOBS_RUNNING = Gauge("assay_jobs_running", "Runner Jobs currently running")
ERRORS = Counter("assay_errors_total", "Errors met while reconciling, by kind", ["kind"])
JOBS_CREATED = Counter("assay_jobs_created_total", "Runner Jobs created")
CAMPAIGNS = Counter("assay_campaigns_decided_total", "Campaign decisions written, by outcome", ["outcome"])
NETWORK_ENFORCED = Gauge(
    "assay_network_policy_enforced",
    "1 when the namespace's latest network probe found the answer pods' NetworkPolicy enforced, else 0",
    ["namespace"],
)
LEADER = Gauge("assay_leader", "1 when this replica reconciles (it holds the lease, or runs alone)")

# Every (verdict, reason) the operator records: a Pass, a gate's Blocked, a spec it cannot run, and each way
# a runner Job can fail (assay_operator.evaluation.read.reconcile.classify).
VERDICT_REASONS = (
    ("Pass", "Passed"),
    ("Blocked", "GateBlocked"),
    ("Blocked", "InvalidSpec"),
    ("Blocked", "NetworkNotEnforced"),
    ("Blocked", "BackoffLimitExceeded"),
    ("Blocked", "DeadlineExceeded"),
    ("Blocked", "PodFailurePolicy"),
    ("Blocked", "OOMKilled"),
    ("Blocked", "ResultUnreadable"),
    ("Blocked", "JobFailed"),
)
ERROR_KINDS = ("api", "status")  # an API call failed; a status could not be written (Stalled instead)
CAMPAIGN_OUTCOMES = ("promote", "keep")

# (phase, verdict) of one Evaluation's current generation; every pair is exported, zeros included.
PHASES = (
    ("Pending", "None"),
    ("Running", "None"),
    ("Stalled", "None"),
    ("Finished", "Pass"),
    ("Finished", "Blocked"),
)


@dataclass(frozen=True)
class EvaluationState:
    phase: str
    verdict: str
    deadline_at: datetime | None
    """When the current generation's run is past its spec.deadlineSeconds (None: it has a verdict)."""


class EvaluationsCollector(Collector):
    """assay_evaluations_by_phase{phase,verdict} and assay_evaluations_past_deadline, from each Evaluation's
    last seen state (fed by the operator's watch), computed when Prometheus scrapes. (Not
    `assay_evaluations`: that name belongs to the assay_evaluations_total counter.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, EvaluationState] = {}

    def reset(self) -> None:
        """Forget every Evaluation seen (tests reset the process's singletons between tests)."""
        with self._lock:
            self._states.clear()

    def record(self, uid: str, state: EvaluationState | None) -> None:
        with self._lock:
            if state is None:
                self._states.pop(uid, None)
            else:
                self._states[uid] = state

    def collect(self) -> Iterator[GaugeMetricFamily]:
        with self._lock:
            states = list(self._states.values())
        now = datetime.now(UTC)
        by_phase = GaugeMetricFamily(
            "assay_evaluations_by_phase",
            "Evaluations in the watched namespaces, by the phase and verdict of their current generation",
            labels=["phase", "verdict"],
        )
        for phase, verdict in PHASES:
            count = sum(1 for s in states if (s.phase, s.verdict) == (phase, verdict))
            by_phase.add_metric([phase, verdict], count)
        yield by_phase
        overdue = sum(1 for s in states if s.deadline_at is not None and s.deadline_at < now)
        yield GaugeMetricFamily(
            "assay_evaluations_past_deadline",
            "Evaluations without a verdict for their generation whose run started longer ago than its "
            "spec.deadlineSeconds",
            value=overdue,
        )


CLUSTER = EvaluationsCollector()
REGISTRY.register(CLUSTER)


def initialise() -> None:
    """Create every known label set at 0, so each series exists from the operator's start."""
    for verdict, reason in VERDICT_REASONS:
        EVALUATIONS.labels(verdict, reason)
    for kind in ERROR_KINDS:
        ERRORS.labels(kind)
    for outcome in CAMPAIGN_OUTCOMES:
        CAMPAIGNS.labels(outcome)


_serving: set[int] = set()


def serve(port: int) -> None:
    """Start /metrics once per process (a standby starts it before kopf, whose startup asks again)."""
    if port in _serving:
        return
    initialise()
    start_http_server(port)
    _serving.add(port)
