"""The `Evaluation` resource (assay.dev/v1alpha1): typed models that are the single source of truth.

The CRD in `crds/` is generated from these models (`python -m assay_operator.crdgen`), field docstrings
becoming `description`s, bounds `minimum`/`maximum`, literals `enum`s, and the cross-field rules CEL
`x-kubernetes-validations`; a test fails when the committed YAML drifts.

One module each: the kind's names and printer columns (`kind`), the spec a user writes (`spec`), the status
the operator writes (`status`); every name is re-exported here.
"""

from __future__ import annotations

from assay_operator.conditions import Condition
from assay_operator.evaluation.api.kind import KIND, PLURAL, SHORT_NAMES, SINGULAR, printer_columns
from assay_operator.evaluation.api.spec import (
    BUNDLED_PATH,
    MAX_PARALLELISM,
    NOT_BLANK,
    AccessMode,
    AgentSpec,
    AnswerSecondsPercentile,
    BrainRef,
    BundledRef,
    ConfigMapRef,
    EvaluationSpec,
    GateOverrides,
    MlflowSpec,
    NetworkSpec,
    PriceSpec,
    ResourcesSpec,
    SecretKeyRef,
    StorageSpec,
    SuiteRef,
    TicketSelection,
)
from assay_operator.evaluation.api.status import (
    MAX_DETAIL,
    MAX_FAILED_SHARDS,
    MAX_FAILING,
    MAX_FLAKY,
    MAX_MESSAGE_LENGTH,
    MAX_PAIRED,
    MAX_RULES,
    MAX_SHADOW_JUDGES,
    MAX_SHADOW_REASON,
    MAX_SHARD_REASON,
    AnswerStatus,
    ConversationsStatus,
    EvaluationStatus,
    InputsStatus,
    MlflowStatus,
    OverrideStatus,
    PairedStatus,
    RepetitionsStatus,
    RuleStatus,
    ShardFailureStatus,
    TicketsStatus,
    UsageStatus,
)
from assay_operator.schema import GROUP, VERSION, ApiModel, problems

__all__ = [
    "BUNDLED_PATH",
    "GROUP",
    "KIND",
    "MAX_DETAIL",
    "MAX_FAILED_SHARDS",
    "MAX_FAILING",
    "MAX_FLAKY",
    "MAX_MESSAGE_LENGTH",
    "MAX_PAIRED",
    "MAX_PARALLELISM",
    "MAX_RULES",
    "MAX_SHADOW_JUDGES",
    "MAX_SHADOW_REASON",
    "MAX_SHARD_REASON",
    "NOT_BLANK",
    "PLURAL",
    "SHORT_NAMES",
    "SINGULAR",
    "VERSION",
    "AccessMode",
    "AgentSpec",
    "AnswerSecondsPercentile",
    "AnswerStatus",
    "ApiModel",
    "BrainRef",
    "BundledRef",
    "Condition",
    "ConfigMapRef",
    "ConversationsStatus",
    "EvaluationSpec",
    "EvaluationStatus",
    "GateOverrides",
    "InputsStatus",
    "MlflowSpec",
    "MlflowStatus",
    "NetworkSpec",
    "OverrideStatus",
    "PairedStatus",
    "PriceSpec",
    "RepetitionsStatus",
    "ResourcesSpec",
    "RuleStatus",
    "SecretKeyRef",
    "ShardFailureStatus",
    "StorageSpec",
    "SuiteRef",
    "TicketSelection",
    "TicketsStatus",
    "UsageStatus",
    "printer_columns",
    "problems",
]
