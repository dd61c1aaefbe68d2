"""The RunConfig: everything one evaluation needs (`assay run --config FILE`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from assay_runner.contract.text_fields import HttpUrl, Label, PathText, PlainText
from assay_runner.contract.wire import WireModel
from assay_runner.vocabulary import AgentKind, CassetteMode, IsolationLevel, Selection

# --- The run configuration: rendered by the operator into a ConfigMap, or built from `assay run` flags. ---
# Strict in type and range: a RunConfig is written by a program (the operator) or by hand, and a value
# that only coerces ("4" for 4, "yes" for true, 1 for true) is a mistake to report, never to guess at.


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty or only whitespace")
    return text


NonBlank = Annotated[str, AfterValidator(_not_blank)]


def _no_nul(text: str) -> str:
    if "\x00" in text:
        raise ValueError("must not contain a NUL character (no program argument can hold one)")
    return text


Finite = Annotated[float, Field(allow_inf_nan=False)]


def _not_a_bool(value: object) -> object:
    # A literal's check compares by equality, and YAML's `true` equals 1: refuse it before that check.
    if isinstance(value, bool):
        raise ValueError(f"must be the number 1, not {str(value).lower()}")
    return value


SchemaVersion = Annotated[Literal[1], BeforeValidator(_not_a_bool)]


class ConfigModel(WireModel):
    """A part of the RunConfig: no lax coercion (`strict`), and every float finite."""

    model_config = ConfigDict(strict=True)


class AgentConfig(ConfigModel):
    kind: AgentKind = "chat"
    """`command` (an argv template), a CLI preset, `chat` (one gateway call) or `replay` (recorded
    answers)."""
    command: list[Annotated[str, AfterValidator(_no_nul)]] | None = Field(default=None, min_length=1)
    """argv template for `command`, with placeholders such as {prompt_file} and {model}."""
    continue_command: list[Annotated[str, AfterValidator(_no_nul)]] | None = Field(default=None, min_length=1)
    """argv template of a conversation's later turns for `command`: the program's own way to continue its
    session, with {message} (the customer's words) and {session}. Without it the command agent cannot play
    conversational tickets."""
    model: Label | None = None
    """Model the agent uses, through the gateway."""
    timeout_seconds: Finite = Field(default=600.0, gt=0, le=86400)
    """Per ticket: a slower agent is killed and the cell scored with exit code 124."""
    answers: PathText | None = None
    """Directory of recorded answers for `replay`."""


class CassetteConfig(ConfigModel):
    dir: PathText
    mode: CassetteMode = "replay"


class MlflowConfig(ConfigModel):
    tracking_uri: PlainText | None = None
    """Tracking server or store; a SQLite file in the working directory when empty."""
    experiment: Label = "assay"
    enabled: bool = True


class AnswerSecondsPercentile(ConfigModel):
    """`{percentile: 95, maxSeconds: 60}`: the 95th percentile of the run's cell wall times at most 60 s."""

    percentile: Finite = Field(gt=0, le=100)
    """Which percentile, by the nearest-rank method: the ceil(p/100 x n)-th smallest of the n cells."""
    max_seconds: Finite = Field(gt=0)


class GateOverrides(ConfigModel):
    """The suite's gate, overridden field by field (the limits' meanings: `GateSettings`)."""

    min_score: Finite | None = Field(default=None, ge=0, le=1)
    ticket_floor: Finite | None = Field(default=None, ge=0, le=1)
    min_pass_hat_k: Finite | None = Field(default=None, ge=0, le=1)
    require_mlflow: bool | None = None
    max_answer_seconds: Finite | None = Field(default=None, gt=0)
    answer_seconds_percentile: AnswerSecondsPercentile | None = None
    max_ticket_cost_usd: Finite | None = Field(default=None, gt=0)
    max_run_cost_usd: Finite | None = Field(default=None, gt=0)
    thresholds: dict[str, float] = Field(default_factory=dict)
    """Per-judge thresholds, by judge name (model judges on their raw scale)."""


MAX_PRICE = 1_000_000.0  # the Evaluation's prices are bounded by the same figure
"""USD per million tokens, at most: a dollar a token. A price past any model's is a typo (1e308 made every
cost infinite), refused rather than budgeted with."""


class PriceConfig(ConfigModel):
    """USD per million input and output tokens of one model."""

    input_per_million: Finite = Field(ge=0, le=MAX_PRICE)
    output_per_million: Finite = Field(ge=0, le=MAX_PRICE)

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        """The one pricing formula: every cost Assay reports or budgets is computed here."""
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1e6


class OutputConfig(ConfigModel):
    dir: PathText = "assay-out"
    """Where result.json, summary.json and the report go."""
    summary_path: PathText | None = None
    """Also write the RunSummary here (on the cluster: /dev/termination-log)."""
    blocked_exit_code: int = Field(default=1, ge=0, le=1)
    """Exit code for a Blocked verdict: 1 on a terminal; 0 only in the operator's Job, where only "could not
    run" fails the pod and the verdict travels in the RunSummary (honoured only where the Job's environment
    says so: `ASSAY_JOB`)."""
    keep_workspaces: bool = False
    workspace_root: PathText | None = None


class LimitsConfig(ConfigModel):
    """The largest files the judge phase reads per cell: bigger ones are a cell error (Blocked), never
    read, so one answer cannot exhaust the judge's memory (about 30 MB per MB of answer is judged)."""

    max_answer_bytes: int = Field(default=8 << 20, ge=1, le=1 << 30)
    """`answer.md`."""
    max_side_file_bytes: int = Field(default=1 << 20, ge=1, le=1 << 30)
    """Each other file of a cell (code judges' `outputs.files`), and the transcript's tail."""
    max_side_files_bytes: int = Field(default=64 << 20, ge=1, le=1 << 34)
    """All the side files of a cell together: a code judge reads them one at a time, and its worker holds
    what it keeps of them within its `memoryMb`."""
    max_side_files: int = Field(default=1000, ge=0, le=1_000_000)
    """How many side files a cell may hold."""


TicketId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")]


class ShardConfig(ConfigModel):
    """The answers come in `count` shards: cell j of the repetition-major order belongs to shard j % count.

    The answer phase answers its own shard: `index`, or the Indexed Job's `JOB_COMPLETION_INDEX` when
    `index` is not given (one RunConfig serves every pod). The judge phase (no `index`) reads every shard's
    tree, `answersDir/shard-<i>`."""

    count: int = Field(ge=1, le=1000)
    index: int | None = Field(default=None, ge=0)
    failed: dict[str, NonBlank] = Field(default_factory=dict)
    """Judge phase: shards that failed for good (index as text -> why, as the operator saw it); their cells
    block with that reason."""

    @model_validator(mode="after")
    def _index_in_range(self) -> ShardConfig:
        if self.index is not None and self.index >= self.count:
            raise ValueError(f"shard index {self.index} is not below the count {self.count}")
        wrong = [i for i in self.failed if not i.isdigit() or int(i) >= self.count]
        if wrong:
            raise ValueError(f"failed shard(s) {', '.join(wrong)} are not shards of {self.count}")
        return self


class EvidenceConfig(ConfigModel):
    key_file: PathText | None = None
    """The run's evidence key (32 random bytes or more), in a file no agent can read: on the cluster, the
    Evaluation's Secret. Missing: every phase refuses (exit 2). Not given: a key of the local key store."""


class RunConfig(ConfigModel):
    """Everything one evaluation needs: `assay run --config FILE` (YAML or JSON)."""

    schema_version: SchemaVersion = 1
    run_name: Label | None = None
    """The MLflow run's name."""
    suite: PathText
    """Suite directory."""
    kb: PathText | None = None
    """KB articles directory, when not the suite's own `kb/` (on the cluster: their ConfigMap)."""
    brain: PathText | None = None
    """Brain directory (AGENTS.md and other files)."""
    tickets: Selection | Annotated[list[TicketId], Field(min_length=1)] = "all"
    agent: AgentConfig = Field(default_factory=AgentConfig)
    repetitions: int = Field(default=1, ge=1, le=100)
    concurrency: int = Field(default=4, ge=1, le=64)
    gateway: HttpUrl | None = None
    """OpenAI-compatible base URL of the model gateway: http or https, with a host."""
    judge_model: Label | None = None
    cassettes: CassetteConfig | None = None
    mlflow: MlflowConfig = Field(default_factory=MlflowConfig)
    gate: GateOverrides = Field(default_factory=GateOverrides)
    prices: dict[Label, PriceConfig] = Field(default_factory=dict)
    """USD per million tokens, by model; overrides the suite's `prices` model by model."""
    max_cost_usd: Finite | None = Field(default=None, gt=0)
    """Budget: once the run has spent this much (priced usage), no new cell starts; the rest are recorded as
    not started and the verdict blocks."""
    output: OutputConfig = Field(default_factory=OutputConfig)
    keys: PathText | None = None
    """The answer-key file (keys.yaml) when `suite` holds only the suite's public part (`assay split`).
    The judge phase reads it; the answer phase refuses a config that names it."""
    customers: PathText | None = None
    """The answer phase: the customers file of a split suite (`assay split --customer`, customers.yaml):
    the conversational tickets' customers, which the runner plays and no agent's sandbox grants (the phase
    then refuses to run an agent program without the kernel's full sandbox). A missing file: the suite has no
    conversation. The judge phase reads the customers in the key and refuses a config that names this."""
    answers_dir: PathText | None = None
    """The answers tree: where `assay answer` writes and `assay score --config` reads."""
    answer_deadline_seconds: Finite | None = Field(default=None, gt=0, le=7 * 86400)
    """The answer phase stops itself after this long (unfinished cells are recorded as incomplete), so
    the judge phase still has time to give a verdict before the Job's deadline. At most a week."""
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    shard: ShardConfig | None = None
    """The answers in shards (an Indexed Job of answer pods): which one this answer phase answers, or how
    many the judge phase reads."""
    isolation: IsolationLevel = "best-effort"
    """`required`: refuse to start (exit 2) where the kernel cannot sandbox every agent program fully
    (Landlock ABI 6: files, TCP, signals and abstract sockets); `best-effort`: what the kernel has, recorded
    per cell. The suite's `isolation: required` wins over this."""
    resume: bool = False
    """The answer phase keeps the cells a previous attempt on the same inputs answered (sealed, no error)
    and answers only the missing or errored ones."""
    evidence: EvidenceConfig = Field(default_factory=EvidenceConfig)

    @field_validator("tickets")
    @classmethod
    def _each_ticket_once(cls, tickets: Selection | list[str]) -> Selection | list[str]:
        if isinstance(tickets, list):
            repeated = sorted({t for t in tickets if tickets.count(t) > 1})
            if repeated:
                raise ValueError(f"ticket(s) selected more than once: {', '.join(repeated)}")
        return tickets
