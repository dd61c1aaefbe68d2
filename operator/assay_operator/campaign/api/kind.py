"""The Campaign kind's names and the columns kubectl prints for it."""

from __future__ import annotations

from assay_operator.objects import PrinterColumn

KIND = "Campaign"
PLURAL = "campaigns"
SINGULAR = "campaign"
SHORT_NAMES = ["camp"]


def printer_columns() -> list[PrinterColumn]:
    return [
        {"name": "Winner", "type": "string", "jsonPath": ".status.winner"},
        {"name": "Promote", "type": "boolean", "jsonPath": ".status.promote"},
        {"name": "Approval", "type": "string", "jsonPath": ".status.approval.state"},
        {"name": "Progress", "type": "string", "jsonPath": ".status.progress"},
        {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
        {"name": "Highest-Mean", "type": "string", "jsonPath": ".status.highestMean", "priority": 1},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    ]
