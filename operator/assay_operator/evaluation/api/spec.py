"""The `Evaluation`'s spec: what a user asks to evaluate. It names data — ConfigMaps, a model, thresholds —
never the pod: users cannot choose the image, the command, the service account, volumes or environment of
the Job. The operator owns the pod template."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from assay_operator import quantity
from assay_operator.schema import DNS_NAME, ApiModel
from assay_runner.contract import (
    DEFAULT_EXPERIMENT,
    LABEL_PATTERN,
    MAX_PRICE,
    NOT_PINNED,
    PINNED_PATTERN,
    pinned_reference_problem,
)
from assay_runner.vocabulary import AgentKind, Selection

# Relative, every segment starting with a letter or digit: no "..", no absolute path, no empty segment, so a
# bundled path cannot leave the runner image's bundled root.
BUNDLED_PATH = r"^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$"
MAX_PARALLELISM = 100
"""Answer pods per Evaluation; an Indexed Job's pod is named <job>-<index>, which must stay a DNS label."""
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
        (
            "self.kind == 'command' || !has(self.continueCommand)",
            "continueCommand is for the command agent: a preset continues its CLI's session its own way",
        ),
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
    continue_command: list[Annotated[str, Field(max_length=4096, pattern=r"^[^\x00]*$")]] | None = Field(
        default=None, min_length=1, max_length=64
    )
    """argv template of a conversation's later turns for `command`: the program's own way to continue its
    session, with {message} (the customer's words) and {session}. Without it the command agent cannot play
    conversational tickets."""
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
