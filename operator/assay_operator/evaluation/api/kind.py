"""The Evaluation kind's names and the columns kubectl prints for it."""

from __future__ import annotations

from assay_operator.objects import PrinterColumn

KIND = "Evaluation"
PLURAL = "evaluations"
SINGULAR = "evaluation"
SHORT_NAMES = ["eval", "evals"]


def printer_columns() -> list[PrinterColumn]:
    """State is Reconciling's reason: what the run is doing (Running, Queued, Judging), what keeps it from
    starting (SecretNotFound, StorageClassNotFound, QuotaExceeded, ...), or Completed, so a queued or blocked
    run does not read like one that is starting. `-o wide` adds the suite artifact's digest."""
    return [
        {"name": "Verdict", "type": "string", "jsonPath": ".status.verdict"},
        {"name": "Score", "type": "number", "jsonPath": ".status.score"},
        {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
        {
            "name": "State",
            "type": "string",
            "jsonPath": '.status.conditions[?(@.type=="Reconciling")].reason',
        },
        {"name": "Tickets", "type": "string", "jsonPath": ".status.tickets.summary"},
        {"name": "Shards", "type": "string", "jsonPath": ".status.answer.shardsSummary"},
        {"name": "Cells", "type": "string", "jsonPath": ".status.answer.cellsSummary"},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        # `-o wide`: which suite artifact (`suite.oci`) the verdict is on.
        {
            "name": "Suite Artifact",
            "type": "string",
            "jsonPath": ".status.inputs.suiteArtifactDigest",
            "priority": 1,
        },
    ]
