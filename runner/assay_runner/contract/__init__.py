"""The public result contracts: `result.json`, the RunSummary and the judge-verdict shapes.

Users script against these and the operator validates the RunSummary it reads from the pod's termination
message, so this module depends on pydantic alone (the operator may import it; it must never pull in judge
code). Keys are camelCase on the wire, like the Evaluation resource.

A package of one concept per module, re-exported here so every import reads `assay_runner.contract`:
`wire` (the base model), `rules` (brain files, digests, judge scales and thresholds), `trajectory`,
`result` (`result.json`), `summary` (the RunSummary), `answers` (the AnswerSummary), `run_config` (the
RunConfig), `pod_wiring` (the environment and paths the pods of one run share), `suite_parts` (what of a
suite is public: the split both `assay split` and the operator make), `text_fields` (text that becomes a
path, a URL or a name) and `seam` (the rules the operator applies as the runner does, written once).
`yaml_scalars` (the YAML loader both sides read suites with: numbers only as written plainly) is imported
from its module, where YAML is needed.
"""

from assay_runner.contract.answers import (
    ANSWER_SUMMARY_SCHEMA_VERSION,
    MAX_STOPPED,
    AnswerSummary,
)
from assay_runner.contract.pod_wiring import (
    GATEWAY_LEDGER_ENV,
    GATEWAY_SOCKET_ENV,
    POD_UID_ENV,
    SHARD_DIR,
    SHARD_INDEX_ENV,
)
from assay_runner.contract.result import (
    RESULT_SCHEMA_VERSION,
    GateSettings,
    Inputs,
    Isolation,
    JudgeConfigSummary,
    JudgeSummary,
    JudgeVerdict,
    MlflowRef,
    PassCriterion,
    RepetitionFigures,
    RepetitionResult,
    Result,
    ResultConfig,
    ResultEvidence,
    RuleResult,
    RunRequest,
    TicketResult,
    Usage,
)
from assay_runner.contract.rules import (
    MODEL_JUDGE,
    MODEL_SCALE,
    UNIT_SCALE,
    digest_files,
    has_own_scale,
    is_brain_file,
    judge_scale,
    threshold_problem,
)
from assay_runner.contract.run_config import (
    MAX_PRICE,
    AgentConfig,
    CassetteConfig,
    ConfigModel,
    EvidenceConfig,
    Finite,
    GateOverrides,
    LimitsConfig,
    MlflowConfig,
    NonBlank,
    OutputConfig,
    PriceConfig,
    RunConfig,
    ShardConfig,
    TicketId,
)
from assay_runner.contract.seam import (
    DEFAULT_EXPERIMENT,
    ISOLATION_SHORTFALL,
    isolation_shortfall,
    read_as_whole_tree,
    threshold_override_problems,
)
from assay_runner.contract.suite_parts import (
    KEYS_FILE,
    QUESTIONS_FILE,
    SuiteParts,
    SuiteSplitError,
    split_suite_files,
)
from assay_runner.contract.summary import (
    SUMMARY_MAX_BYTES,
    SUMMARY_SCHEMA_VERSION,
    PairedTickets,
    RunSummary,
    SummaryCounts,
    SummaryRule,
)
from assay_runner.contract.text_fields import (
    LABEL_PATTERN,
    HttpUrl,
    Label,
    PathText,
    PlainText,
    checked_gateway_url,
    not_utf8,
)
from assay_runner.contract.trajectory import (
    TRAJECTORY_MAX_STEPS,
    TRAJECTORY_TEXT_CHARS,
    AgentError,
    ModelTurn,
    ToolAction,
    ToolCall,
    Trajectory,
    TrajectoryStep,
)
from assay_runner.contract.wire import (
    WireModel,
)

__all__ = [
    "ANSWER_SUMMARY_SCHEMA_VERSION",
    "DEFAULT_EXPERIMENT",
    "GATEWAY_LEDGER_ENV",
    "GATEWAY_SOCKET_ENV",
    "ISOLATION_SHORTFALL",
    "KEYS_FILE",
    "LABEL_PATTERN",
    "MAX_PRICE",
    "MAX_STOPPED",
    "MODEL_JUDGE",
    "MODEL_SCALE",
    "POD_UID_ENV",
    "QUESTIONS_FILE",
    "RESULT_SCHEMA_VERSION",
    "SHARD_DIR",
    "SHARD_INDEX_ENV",
    "SUMMARY_MAX_BYTES",
    "SUMMARY_SCHEMA_VERSION",
    "TRAJECTORY_MAX_STEPS",
    "TRAJECTORY_TEXT_CHARS",
    "UNIT_SCALE",
    "AgentConfig",
    "AgentError",
    "AnswerSummary",
    "CassetteConfig",
    "ConfigModel",
    "EvidenceConfig",
    "Finite",
    "GateOverrides",
    "GateSettings",
    "HttpUrl",
    "Inputs",
    "Isolation",
    "JudgeConfigSummary",
    "JudgeSummary",
    "JudgeVerdict",
    "Label",
    "LimitsConfig",
    "MlflowConfig",
    "MlflowRef",
    "ModelTurn",
    "NonBlank",
    "OutputConfig",
    "PairedTickets",
    "PassCriterion",
    "PathText",
    "PlainText",
    "PriceConfig",
    "RepetitionFigures",
    "RepetitionResult",
    "Result",
    "ResultConfig",
    "ResultEvidence",
    "RuleResult",
    "RunConfig",
    "RunRequest",
    "RunSummary",
    "ShardConfig",
    "SuiteParts",
    "SuiteSplitError",
    "SummaryCounts",
    "SummaryRule",
    "TicketId",
    "TicketResult",
    "ToolAction",
    "ToolCall",
    "Trajectory",
    "TrajectoryStep",
    "Usage",
    "WireModel",
    "checked_gateway_url",
    "digest_files",
    "has_own_scale",
    "is_brain_file",
    "isolation_shortfall",
    "judge_scale",
    "not_utf8",
    "read_as_whole_tree",
    "split_suite_files",
    "threshold_override_problems",
    "threshold_problem",
]
