"""Prometheus metrics. Labels are bounded (verdict, reason, kind): never an evaluation's name."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, start_http_server

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


def serve(port: int) -> None:
    start_http_server(port)


CAMPAIGNS = Counter("assay_campaigns_decided_total", "Campaign decisions written, by outcome", ["outcome"])
