"""The `Evaluation` resource (assay.dev/v1alpha1): typed models that are the single source of truth.

The CRD in `crds/` is generated from these models (`python -m assay_operator.crdgen`), field docstrings
becoming `description`s, bounds `minimum`/`maximum`, literals `enum`s, and the cross-field rules below CEL
`x-kubernetes-validations`; a test fails when the committed YAML drifts.

The spec names data — ConfigMaps, a model, thresholds — never the pod: users cannot choose the image, the
command, the service account, volumes or environment of the Job. The operator owns the pod template.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from assay_operator import quantity
from assay_operator.conditions import Condition
from assay_operator.objects import PrinterColumn
from assay_operator.schema import DNS_NAME, GROUP, VERSION, ApiModel, problems
from assay_runner.contract import (
    DEFAULT_EXPERIMENT,
    LABEL_PATTERN,
    MAX_PRICE,
    NOT_PINNED,
    PINNED_PATTERN,
    pinned_reference_problem,
)
from assay_runner.vocabulary import AgentKind, Selection, Verdict

__all__ = ["GROUP", "VERSION", "ApiModel", "Condition", "problems"]

KIND = "Evaluation"
PLURAL = "evaluations"
SINGULAR = "evaluation"
SHORT_NAMES = ["eval", "evals"]

# Relative, every segment starting with a letter or digit: no "..", no absolute path, no empty segment, so a
# bundled path cannot leave the runner image's bundled root.
BUNDLED_PATH = r"^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$"
# The status's bounds, which the status builders cut to (assay_operator.bounded) so a status always fits.
MAX_RULES, MAX_DETAIL, MAX_FAILING, MAX_PAIRED, MAX_MESSAGE_LENGTH = 16, 512, 10, 500, 4096
MAX_FLAKY = 10
MAX_PARALLELISM = 100
"""Answer pods per Evaluation; an Indexed Job's pod is named <job>-<index>, which must stay a DNS label."""
MAX_FAILED_SHARDS, MAX_SHARD_REASON = 16, 512
MAX_SHADOW_JUDGES, MAX_SHADOW_REASON = 32, 512
AccessMode = Literal["ReadWriteOnce", "ReadWriteMany"]


class ConfigMapRef(ApiModel):
    """A ConfigMap in the Evaluation's namespace."""

    name: str = Field(pattern=DNS_NAME, max_length=253)
    """Name of the ConfigMap."""


class SecretKeyRef(ApiModel):
    """A key of a Secret in the Evaluation's namespace. The operator never reads it: the kubelet mounts it as
    a file, only into the container that needs it."""

    name: str = Field(pattern=DNS_NAME, max_length=253)
    """Name of the Secret."""
    key: str = Field(default="token", pattern=r"^[-._a-zA-Z0-9]+$", max_length=253)
    """Key in the Secret holding the token."""


class BrainRef(ApiModel):
    config_map: ConfigMapRef
    """ConfigMap holding the brain's files (AGENTS.md and others), one key per file. The operator snapshots it
    into an immutable ConfigMap owned by the Evaluation, so later edits do not change a running evaluation."""


class SuiteRef(ApiModel):
    cel_rules = (
        (
            "[has(self.configMap), has(self.bundled), has(self.oci)].filter(x, x).size() == 1",
            "give exactly one of configMap, bundled or oci",
        ),
        ("!has(self.kbConfigMap) || has(self.configMap)", "kbConfigMap goes with configMap"),
        (f"!has(self.oci) || self.oci.matches('{PINNED_PATTERN}')", f"oci: {NOT_PINNED}"),
    )

    config_map: ConfigMapRef | None = None
    """ConfigMap with suite.yaml (and tickets.yaml when the suite names a ticketsFile)."""
    kb_config_map: ConfigMapRef | None = None
    """ConfigMap with the knowledge-base articles, one key per article (`KB-1001.md`)."""
    bundled: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9-]{0,62}$")
    """Name of a suite bundled in the runner image (for example `support-desk`)."""
    oci: str | None = Field(default=None, max_length=512)
    """A suite pushed as an OCI artifact (`assay push`), named by digest: REGISTRY/REPOSITORY@sha256:...
    (`oci://` may lead; a tag alone is refused). Each runner pod pulls it in an init container that holds
    the install's registry CA and credentials, verifies it against the digest and splits it: the answer
    container mounts only the public part. A suite whose pull fails ends Blocked (SuitePullFailed)."""

    @field_validator("oci")
    @classmethod
    def _pinned(cls, oci: str | None) -> str | None:
        # The CRD's CEL rule refuses a reference without a digest; the runner's full rule is applied here.
        problem = None if oci is None else pinned_reference_problem(oci)
        if problem is not None:
            raise ValueError(problem)
        return oci


class TicketSelection(ApiModel):
    cel_rules = (("!(has(self.split) && has(self.ids))", "give a split or ids, not both"),)

    split: Selection | None = None
    """Which split to run; `all` when neither split nor ids is given."""
    ids: list[Annotated[str, Field(max_length=63)]] | None = Field(default=None, min_length=1, max_length=500)
    """Explicit ticket ids."""


class BundledRef(ApiModel):
    bundled: str = Field(pattern=BUNDLED_PATH, max_length=201)
    """Path under the runner image's bundled examples (for example `support-desk/answers/v1`)."""


class AgentSpec(ApiModel):
    cel_rules = (
        ("self.kind != 'replay' || has(self.answers)", "the replay agent needs answers"),
        ("self.kind != 'command' || has(self.command)", "the command agent needs a command"),
        ("self.kind == 'replay' || has(self.model)", "this agent kind needs a model"),
    )

    kind: AgentKind = "chat"
    """`chat` (one gateway call), a CLI preset (`opencode`, `claude-code`, `codex`), `command` (an argv
    template of a program in the runner image) or `replay` (recorded answers, for re-scoring)."""
    model: str | None = Field(default=None, max_length=253, pattern=LABEL_PATTERN)
    """Model the agent uses, through the gateway (no control character, as the runner reads it)."""
    command: list[Annotated[str, Field(max_length=4096, pattern=r"^[^\x00]*$")]] | None = Field(
        default=None, min_length=1, max_length=64
    )
    """argv template for `command`, with placeholders such as {prompt_file} and {model}."""
    timeout_seconds: int = Field(default=600, ge=1, le=86400)
    """Per ticket: a slower agent is killed and the ticket scored with exit code 124."""
    answers: BundledRef | None = None
    """Recorded answers for `replay`."""


class AnswerSecondsPercentile(ApiModel):
    percentile: float = Field(gt=0, le=100)
    """Which percentile, by nearest rank: the ceil(p/100 x n)-th smallest of the n answers' times."""
    max_seconds: float = Field(gt=0)
    """Its limit in seconds."""


class GateOverrides(ApiModel):
    min_score: float | None = Field(default=None, ge=0, le=1)
    """Minimum evaluation score (the suite's gate when omitted)."""
    ticket_floor: float | None = Field(default=None, ge=0, le=1)
    """Minimum score of every ticket."""
    min_pass_hat_k: float | None = Field(default=None, ge=0, le=1)
    """With repetitions: the share of tickets that must pass in every repetition."""
    require_mlflow: bool | None = None
    """Block when logging to MLflow fails."""
    max_answer_seconds: float | None = Field(default=None, gt=0)
    """Every answer's agent wall time at most this many seconds (a cell without one blocks)."""
    answer_seconds_percentile: AnswerSecondsPercentile | None = None
    """A percentile (nearest rank) of the answers' agent wall times at most `maxSeconds`."""
    max_ticket_cost_usd: float | None = Field(default=None, gt=0)
    """Every answer's priced cost at most this many US dollars (a ticket costs its dearest repetition);
    without a price for every model the run calls, it blocks. Not the budget: `maxCostUsd` stops spending."""
    max_run_cost_usd: float | None = Field(default=None, gt=0)
    """The run's total priced cost (agent and model judges) at most this many US dollars."""
    thresholds: dict[str, float] | None = Field(default=None, max_length=64)
    """Per-judge thresholds by judge name (model judges on their raw scale)."""


NOT_BLANK = r"\S"
"""Somewhere a character that is not white space: the runner refuses a blank name or URI, so the apiserver
does too (the pattern is in the CRD) instead of the operator finding out when it builds the RunConfig."""


class MlflowSpec(ApiModel):
    tracking_uri: str | None = Field(default=None, max_length=2048, pattern=NOT_BLANK)
    """MLflow tracking server; the operator's default when omitted."""
    experiment: str = Field(default=DEFAULT_EXPERIMENT, max_length=256, pattern=LABEL_PATTERN)
    """Experiment the run is logged to (not blank, no control character, as the runner reads it)."""
    token_secret_ref: SecretKeyRef | None = None
    """Credential for the tracking server (the operator's default when omitted): a bearer token, or
    `username:password` for MLflow's basic-auth app; mounted into the judge phase only, as the file named by
    MLFLOW_TRACKING_TOKEN_FILE."""


class PriceSpec(ApiModel):
    input_per_million: float = Field(ge=0, le=MAX_PRICE)
    """US dollars per million input (prompt) tokens (at most a dollar a token, as the runner reads it)."""
    output_per_million: float = Field(ge=0, le=MAX_PRICE)
    """US dollars per million output tokens."""


class ResourcesSpec(ApiModel):
    """Kubernetes quantities (an integer or a string such as 500m, 1.5, 1e3, 512Mi), bounded to what one
    evaluation's runner can use: cpu 10m-64, memory 64Mi-256Gi (see assay_operator.quantity)."""

    cel_rules = quantity.CPU.cel_rules("cpu") + quantity.MEMORY.cel_rules("memory")

    cpu: quantity.Cpu = "6"
    """CPU for the runner pod (request and limit), 10m to 64."""
    memory: quantity.Memory = "6Gi"
    """Memory for the runner pod (request and limit), 64Mi to 256Gi."""


class StorageSpec(ApiModel):
    """The PersistentVolumeClaim the operator makes for each generation: every answer pod writes its shard
    there (`shard-<i>/`), the judge pod reads them all and keeps result.json and the report in `result/`
    after the pods are gone. Owned by the Evaluation: deleted with it, or when a newer generation runs."""

    cel_rules = tuple(
        (f"!has(self.size) || ({rule})", why) for rule, why in quantity.STORAGE.cel_rules("size")
    )

    storage_class_name: str | None = Field(default=None, pattern=DNS_NAME, max_length=253)
    """StorageClass of the claim; the operator's default when omitted (and the cluster's default class when
    the operator names none)."""
    size: quantity.Storage | None = None
    """Size of the claim, 16Mi to 16Ti; the operator's default (1Gi) when omitted. The answers take about
    50 KB per ticket x repetition (more with long transcripts)."""
    access_mode: AccessMode | None = None
    """`ReadWriteOnce` (the default: any class) keeps every answer pod on the node that holds the volume;
    `ReadWriteMany` (a class that supports it: NFS, CephFS, ...) lets them spread over nodes."""


class NetworkSpec(ApiModel):
    require_enforced: bool = False
    """Run only on a cluster that enforces the answer pods' NetworkPolicy: before the answer Job, a probe pod
    shaped like an answer pod (the policy selects it) tries what the policy forbids (the apiserver, MLflow,
    the operator's probe targets); the NetworkEnforced condition says what it found, and when a connection
    got through (or the probe could not run) the run ends Blocked (NetworkNotEnforced) with no answer Job."""


# The pattern alone admits `http://gateway:99999/v1`, which the runner then refuses at start: refuse it here.
_GATEWAY_URL_RULE = (
    "!has(self.gateway) || (isURL(self.gateway) && url(self.gateway).getHostname() != ''"
    " && (url(self.gateway).getPort() == ''"
    " || (int(url(self.gateway).getPort()) >= 1 && int(url(self.gateway).getPort()) <= 65535)))"
)


class EvaluationSpec(ApiModel):
    cel_rules = (
        (_GATEWAY_URL_RULE, "gateway must be an http(s) URL with a host and a port from 1 to 65535"),
    )

    brain: BrainRef
    """The brain under evaluation."""
    suite: SuiteRef
    """The tickets, answer keys, KB and judges."""
    tickets: TicketSelection | None = None
    """Which tickets to run (all when omitted)."""
    agent: AgentSpec
    """What answers the tickets."""
    repetitions: int = Field(default=1, ge=1, le=20)
    """How many times each ticket is answered (pass rate, pass@k and pass^k need more than one)."""
    concurrency: int = Field(default=4, ge=1, le=32)
    """Tickets answered at once, in each answer pod."""
    parallelism: int = Field(default=1, ge=1, le=MAX_PARALLELISM)
    """Answer pods. The ticket x repetition cells are cut into this many shards (round-robin over the
    repetition-major order), each answered by one pod of an Indexed Job, then one judge pod judges them
    all: the verdict is the one a single pod would give on the same answers."""
    gate: GateOverrides | None = None
    """Overrides of the suite's gate."""
    gateway: str | None = Field(default=None, max_length=2048, pattern=r"^https?://\S+$")
    """OpenAI-compatible base URL of the model gateway (the operator's default when omitted). No provider
    keys here: the gateway holds them."""
    gateway_token_secret_ref: SecretKeyRef | None = None
    """Bearer token for the gateway (the operator's default when omitted): mounted into the answer phase,
    where the agents call the gateway, and into the judge phase for the model judge unless
    judgeGatewayTokenSecretRef is given."""
    judge_gateway_token_secret_ref: SecretKeyRef | None = None
    """A separate gateway token for the model judge (judge phase only)."""
    judge_model: str | None = Field(default=None, max_length=253, pattern=LABEL_PATTERN)
    """Model for model judges that do not name one (no control character, as the runner reads it)."""
    cassettes: BundledRef | None = None
    """Recorded model calls to replay (offline, repeatable re-scoring)."""
    mlflow: MlflowSpec | None = None
    """Where the run is logged."""
    resources: ResourcesSpec | None = None
    """Resources of each runner pod, answer and judge alike (default 6 CPU and 6Gi)."""
    storage: StorageSpec | None = None
    """The volume the answers and the result are kept on (the operator's defaults when omitted)."""
    deadline_seconds: int = Field(default=1800, ge=60, le=86400)
    """The whole evaluation's deadline: the answer Job's activeDeadlineSeconds; the answer pods stop
    themselves a fifth of it (at least 30 s, at most half) early, and the judge Job gets what is left, never
    less than that fifth."""
    queue_name: str | None = Field(default=None, pattern=DNS_NAME, max_length=63)
    """Kueue LocalQueue: the answer Job is created suspended with the queue label, and Kueue admits its
    pods together; the judge Job runs after it on the quota it released."""
    prices: dict[str, PriceSpec] | None = Field(default=None, max_length=64)
    """Price table by model name: turns token usage into `status.usage.costUsd`; overrides the suite's
    `prices` model by model."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Budget in US dollars: once spent, no new ticket starts; the rest are recorded as not started and the
    verdict is Blocked, saying so."""
    network: NetworkSpec | None = None
    """What the run asks of the cluster's network (an enforced answer-pod boundary)."""


class RuleStatus(ApiModel):
    name: str
    """Gate rule (score, judges, ticketFloor, judgeFloors, repetitions, maxAnswerSeconds,
    answerSecondsPercentile, maxTicketCostUsd, maxRunCostUsd, complete, mlflow)."""
    passed: bool
    detail: str = Field(max_length=MAX_DETAIL)
    value: float | None = None
    """The number the rule was decided on (the score, the lowest ticket score, the coverage, the slowest
    answer's seconds, the dearest ticket's cost, ...)."""
    shadow: bool | None = None
    """True for a shadow rule (the suite's gate.shadowRules): evaluated, not deciding; passed false reads
    "would block"."""


class TicketsStatus(ApiModel):
    total: int
    passed: int
    summary: str
    """"passed/total", for the printer column."""
    failing: list[str] = Field(default_factory=list, max_length=MAX_FAILING)
    """The first failing ticket ids."""
    flaky: int | None = None
    """Tickets passing in some repetitions and not in others (`repetitions.flaky` names the first)."""


class RepetitionsStatus(ApiModel):
    k: int
    pass_rate: float
    pass_at_k: float
    pass_hat_k: float
    fully_resolved: int | None = None
    """Tickets passing in every repetition."""
    flaky: list[str] = Field(default_factory=list, max_length=MAX_FLAKY)
    """The first tickets passing in some repetitions and not in others, in ticket order (`tickets.flaky`
    counts them; the full list is in the result)."""


class UsageStatus(ApiModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    """Cost in US dollars."""


class InputsStatus(ApiModel):
    brain_digest: str | None = None
    suite_digest: str | None = None
    judges_digest: str | None = None
    """The judges, their code and the effective gate after this Evaluation's overrides."""
    tickets_digest: str | None = None
    """The resolved ticket selection (the ids the verdict covers)."""
    public_digest: str | None = None
    """The suite's public part the answer phase mounted (questions, KB list, judges)."""
    key_digest: str | None = None
    """The answer keys the judge phase mounted."""
    suite_artifact_digest: str | None = None
    """The suite's OCI artifact (its manifest digest) when the run was given one (`oci://...@sha256:...`)."""
    answers_digest: str | None = None
    """The answers the verdict was made on: the answer phase's sealed tree."""


class ShardFailureStatus(ApiModel):
    index: int
    """The shard (the answer Job's completion index)."""
    reason: str = Field(max_length=MAX_SHARD_REASON)
    """Why it failed for good, as the operator read it from the shard's pods."""


class AnswerStatus(ApiModel):
    """The answer phase: an Indexed Job of `shards` pods, each answering its shard onto the claim."""

    job_name: str | None = None
    claim_name: str | None = None
    """The PersistentVolumeClaim with the answers (`shard-<i>/`) and, once judged, `result/` (result.json,
    report.html): docs/operating.md says how to download them."""
    shards: int = 1
    shards_succeeded: int = 0
    shards_failed: int = 0
    failed: list[ShardFailureStatus] = Field(default_factory=list, max_length=MAX_FAILED_SHARDS)
    """Shards that failed for good (their cells block the verdict with this reason)."""
    cells_done: int | None = None
    """Cells answered without an error, in the shards that finished."""
    cells_total: int | None = None
    """Every ticket x repetition cell of the run (known once a shard finished)."""
    shards_summary: str | None = None
    """"succeeded/shards", for the printer column."""
    cells_summary: str | None = None
    """"done/total", for the printer column."""


class MlflowStatus(ApiModel):
    tracking_uri: str | None = None
    experiment_id: str | None = None
    run_id: str | None = None
    logged: bool | None = None


class PairedStatus(ApiModel):
    """Per-ticket figures (tickets in sorted id order) a Campaign compares ticket by ticket."""

    tickets_digest: str = Field(max_length=80)
    """sha256 of the sorted ticket ids."""
    scores: list[float] = Field(max_length=MAX_PAIRED)
    """Each ticket's score (mean over repetitions)."""
    resolved: str = Field(max_length=MAX_PAIRED, pattern=r"^[01]*$")
    """1 per ticket passing in every repetition, else 0."""


class OverrideStatus(ApiModel):
    """A person's override of this generation's verdict (annotations override.assay.dev/*, checked at
    admission: see assay_operator.approvals)."""

    verdict: Verdict
    """The verdict the person set; status.verdict shows it."""
    gate_verdict: Verdict
    """The verdict the gate gave."""
    reason: str = Field(max_length=1024)
    """Why, in the person's words."""
    by: str = Field(max_length=253)
    """The user who overrode, as the apiserver authenticated the request."""
    at: str
    generation: int
    """The generation whose verdict was overridden (a new run clears the override)."""
    seal: str | None = Field(default=None, max_length=64)
    """The operator's seal over this override and the Evaluation's uid (assay_operator.seals): an override
    without one that verifies was not written by the operator, and is undone."""

    def sealed_fields(self) -> dict[str, object]:
        return self.model_dump(by_alias=True, mode="json", exclude={"seal"})


class EvaluationStatus(ApiModel):
    observed_generation: int | None = None
    """The generation this status describes."""
    verdict: Verdict | None = None
    """The release verdict of the observed generation."""
    score: float | None = None
    """The evaluation score in [0, 1], rounded to three places."""
    judges: dict[str, float | None] | None = None
    """Each judge's mean over the tickets where it applied, in [0, 1] (null when it applied nowhere)."""
    judges_passing: int | None = None
    """How many gating judges are at or above their thresholds (shadow judges left out)."""
    shadow_judges: dict[str, Annotated[str, Field(max_length=MAX_SHADOW_REASON)]] | None = Field(
        default=None, max_length=MAX_SHADOW_JUDGES
    )
    """Judges that ran and are in `judges` but do not gate, each with why (declared shadow, or not
    calibrated as the suite requires)."""
    rules: list[RuleStatus] | None = Field(default=None, max_length=MAX_RULES)
    tickets: TicketsStatus | None = None
    repetitions: RepetitionsStatus | None = None
    usage: UsageStatus | None = None
    inputs: InputsStatus | None = None
    mlflow: MlflowStatus | None = None
    job_name: str | None = None
    """The run's judge Job, whose pod gives the verdict (the answer Job is `answer.jobName`)."""
    answer: AnswerStatus | None = None
    """The answer phase's shards and cells."""
    rerun: str | None = Field(default=None, max_length=253)
    """The rerun.assay.dev/token annotation this run answers; none for a generation's first run."""
    start_time: str | None = None
    completion_time: str | None = None
    message: str | None = Field(default=None, max_length=MAX_MESSAGE_LENGTH)
    """What happened, for a person."""
    conditions: list[Condition] | None = Field(default=None, max_length=16)
    paired: PairedStatus | None = None
    """Per-ticket figures for a Campaign's paired tests (absent when the summary had no room)."""
    override: OverrideStatus | None = None
    """Set when a person overrode the gate's verdict of this generation."""
    verdict_seal: str | None = Field(default=None, max_length=64)
    """The operator's seal over the decision this status states (the verdict, score, judges' means, the Ready
    and Completed conditions) with the run it is of and the Evaluation's uid (read/verdict_seal.py): a
    decision without one that verifies was not written by the operator, and is undone."""


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
