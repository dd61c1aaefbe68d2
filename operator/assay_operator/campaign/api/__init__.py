"""The `Campaign` resource (assay.dev/v1alpha1): several candidates over the same tickets, one decision.

The candidates are listed (`candidates`, up to 16) or are the cells of a grid (`grid`: brains x agents x
models, up to 256). A Campaign creates one Evaluation per candidate (and one for the incumbent, when
named) from the shared settings below, at most `maxParallel` at a time, and when all have a verdict writes
the comparison and the decision into its status: the highest mean (descriptive), the release-key
winner, and whether it may be promoted. The ranking is `assay_runner.core.decision`, the same code
`assay compare` runs.

Like the Evaluation, the spec names data and never the pod. The CRD is generated from these models: the
kind's names and printer columns (`kind`), the spec (`spec`), the status (`status`); every name is
re-exported here.
"""

from __future__ import annotations

from assay_operator.campaign.api.kind import KIND, PLURAL, SHORT_NAMES, SINGULAR, printer_columns
from assay_operator.campaign.api.spec import (
    AXIS_NAME,
    CANDIDATE_NAME,
    CHILD_SETTINGS,
    MAX_CELLS,
    Approval,
    CampaignSpec,
    CandidateSpec,
    ChildSettings,
    GridAgent,
    GridBrain,
    GridModel,
    GridSpec,
)
from assay_operator.campaign.api.status import (
    APPROVED_BY,
    AWAITING_APPROVAL,
    MAX_MESSAGE_LENGTH,
    MAX_REASON_LENGTH,
    MAX_REASONS,
    ApprovalStatus,
    CampaignStatus,
    CandidateStatus,
    GridStatus,
    VsIncumbentStatus,
)

__all__ = [
    "APPROVED_BY",
    "AWAITING_APPROVAL",
    "AXIS_NAME",
    "CANDIDATE_NAME",
    "CHILD_SETTINGS",
    "KIND",
    "MAX_CELLS",
    "MAX_MESSAGE_LENGTH",
    "MAX_REASONS",
    "MAX_REASON_LENGTH",
    "PLURAL",
    "SHORT_NAMES",
    "SINGULAR",
    "Approval",
    "ApprovalStatus",
    "CampaignSpec",
    "CampaignStatus",
    "CandidateSpec",
    "CandidateStatus",
    "ChildSettings",
    "GridAgent",
    "GridBrain",
    "GridModel",
    "GridSpec",
    "GridStatus",
    "VsIncumbentStatus",
    "printer_columns",
]
