"""The public result contracts: `result.json`, the RunSummary and the judge-verdict shapes.

Users script against these and the operator validates the RunSummary it reads from the pod's termination
message, so this module depends on pydantic alone (the operator may import it; it must never pull in judge
code). Keys are camelCase on the wire, like the Evaluation resource.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from assay_runner.vocabulary import AgentKind, CassetteMode, IsolationLevel, Selection, Verdict

RESULT_SCHEMA_VERSION = 1
SUMMARY_SCHEMA_VERSION = 1
SUMMARY_MAX_BYTES = 4096  # kubelet truncates a termination message beyond this


def is_brain_file(relative: str) -> bool:
    """Whether a file under a brain directory is part of the brain (and of its digest).

    One rule for both sides: the operator digests a brain ConfigMap's keys, the runner the files the kubelet
    mounts from it. The kubelet's atomic writer adds `..data` and `..<timestamp>` entries beside the keys;
    the apiserver refuses keys that start with `..`, so skipping exactly those parts keeps every real key,
    dot-named ones such as `.clinerules` included.
    """
    return not any(part.startswith("..") for part in PurePosixPath(relative).parts)


UNIT_SCALE: tuple[float, float] = (0.0, 1.0)
MODEL_SCALE: tuple[int, int] = (1, 5)
"""A model judge's rubric scale when the suite does not give one."""


def judge_scale(judge_type: str, scale: tuple[float, float] | None = None) -> tuple[float, float]:
    """The scale a judge's threshold and floor are given on: a model judge's own (its rubric's), [0, 1] for
    every other judge."""
    if judge_type != "model":
        return UNIT_SCALE
    low, high = scale or MODEL_SCALE
    return (float(low), float(high))


def threshold_problem(label: str, value: float, scale: tuple[float, float]) -> str | None:
    """Why `value` cannot be a judge's threshold or floor on `scale`, or None when it can.

    The one check behind every place a threshold enters: a suite's judges, a RunConfig's or Evaluation's
    `gate.thresholds`, `assay gate --threshold`, and a stored result read back. A value off the scale would
    make the judges rule pass or fail whatever the answers say.
    """
    low, high = scale
    if not (math.isfinite(value) and low <= value <= high):
        return f"{label} {value:g} is outside the judge's scale [{low:g}, {high:g}]"
    return None


class WireModel(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown keys are errors, never silently dropped."""

    # defer_build: schemas are built on first use, so importing the contract stays cheap for the CLI.
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", defer_build=True
    )

    def to_wire(self) -> dict[str, object]:
        return self.model_dump(mode="json", by_alias=True)

    def to_json(self, indent: int | None = None) -> str:
        """The wire form as JSON text, serialised by pydantic-core (the stdlib encoder falls back to pure
        Python when indenting: tens of milliseconds for a large result.json)."""
        return self.model_dump_json(by_alias=True, indent=indent)


def digest_files(files: Mapping[str, bytes]) -> str:
    """sha256 over sorted (path, length, content): how brain, suite and judge digests are computed, here so
    that the operator (which snapshots the brain) and the runner agree byte for byte."""
    hasher = hashlib.sha256()
    for path in sorted(files):
        content = files[path]
        hasher.update(f"{path}\0{len(content)}\0".encode())
        hasher.update(content)
    return f"sha256:{hasher.hexdigest()}"


class JudgeVerdict(WireModel):
    """One judge's verdict on one ticket repetition."""

    score: float | None = None
    """Normalised score in [0, 1]; None when the judge did not apply or errored."""
    reason: str = ""
    """Human-readable explanation of the score."""
    applicable: bool = True
    """False when the judge had nothing to check on this ticket (excluded, never a free 1.0)."""
    error: str | None = None
    """Set when the judge could not produce a score (blocks the verdict)."""
    raw: float | None = None
    """Score on the judge's own scale (model judges: the median of the samples)."""
    samples: list[float] | None = None
    """Raw scores of the individual samples (model judges)."""
    spread: float | None = None
    """max - min of the samples on the raw scale (model judges)."""


ToolAction = Literal["list", "read", "search", "write", "edit", "shell", "web", "delegate", "other"]
"""What a tool call did, whichever CLI made it: the words a trajectory judge's `allowedTools` uses."""
TRAJECTORY_TEXT_CHARS = 2000
"""Each text in a trajectory (a tool result, a model turn's text, a long argument) keeps at most this
many characters; the rest is cut and the step says how many were cut."""
TRAJECTORY_MAX_STEPS = 300


class ModelTurn(WireModel):
    """One reply of the model, as the CLI reported it: its text (narration or the final message)."""

    type: Literal["model"] = "model"
    start: float | None = None
    """Seconds from the agent's start to when the turn began (when the runner saw the step before it)."""
    end: float | None = None
    """Seconds from the agent's start to when the runner saw the turn's output."""
    text: str = ""
    input_tokens: int | None = None
    """Prompt tokens of this turn, cached included, when the CLI reports them per turn."""
    output_tokens: int | None = None
    cut: int = 0
    """Characters cut from `text` (see TRAJECTORY_TEXT_CHARS)."""


class ToolCall(WireModel):
    """One tool call with its arguments and what it returned."""

    type: Literal["tool"] = "tool"
    start: float | None = None
    end: float | None = None
    tool: str
    """The CLI's own name for the tool (`read`, `Read`, `exec_command`)."""
    action: ToolAction
    """What the call did, in words shared by the three CLIs (a shell command is read for what it ran)."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    paths: list[str] = Field(default_factory=list)
    """Files and folders the call named, relative to the workspace (`kb/KB-1001.md`)."""
    result: str = ""
    ok: bool = True
    """False when the tool reported an error (the error text is the result)."""
    cut: int = 0
    """Characters cut from the result and the arguments' texts."""


class AgentError(WireModel):
    """An error the CLI reported outside any tool call (an API failure, a turn limit)."""

    type: Literal["error"] = "error"
    start: float | None = None
    end: float | None = None
    message: str


TrajectoryStep = Annotated[ModelTurn | ToolCall | AgentError, Field(discriminator="type")]


class Trajectory(WireModel):
    """What the agent did, step by step, normalised from its CLI's own transcript (docs/agents.md)."""

    agent: str
    """The preset whose transcript this was read from (`opencode`, `claude-code`, `codex`)."""
    steps: list[TrajectoryStep] = Field(default_factory=list)
    dropped_steps: int = 0
    """Steps left out past TRAJECTORY_MAX_STEPS (the first ones are kept)."""
    input_tokens: int | None = None
    """The run's prompt tokens as the CLI reported them (per turn where it reports them per turn)."""
    output_tokens: int | None = None

    def tool_calls(self) -> list[ToolCall]:
        return [step for step in self.steps if isinstance(step, ToolCall)]


class RepetitionResult(WireModel):
    """One ticket answered once: the cell of the ticket x repetition grid."""

    index: int
    score: float
    """Weighted mean of the applicable weighted judges (0 when the cell errored)."""
    passed: bool
    """Whether the cell passes the suite's pass criterion."""
    exit_code: int | None = None
    error: str | None = None
    """Why the cell could not be judged (missing answer, no applicable judge, ...)."""
    judges: dict[str, JudgeVerdict] = Field(default_factory=dict)
    answer: str | None = None
    """The answer text, kept so results can be re-gated and reported without the answers directory."""
    answer_digest: str | None = None
    """sha256 of the answer's UTF-8 bytes: `assay gate --verify --answers DIR` checks it against the tree."""
    transcript: str | None = None
    """The tail of the agent's transcript (stdout, stderr), for the report and debugging."""
    started_at: float | None = None
    """When the agent started (seconds since the epoch), for the MLflow trace's timeline."""
    wall_seconds: float | None = None
    """The agent's wall time."""
    judge_seconds: float | None = None
    """Wall time of judging the answer (the judges run side by side)."""
    usage: Usage | None = None
    trajectory: Trajectory | None = None
    """The agent's steps (model turns, tool calls, errors), when its CLI's transcript tells them."""
    isolation: Isolation | None = None
    """The sandbox the agent ran in (None: recorded before Assay recorded it)."""


class TicketResult(WireModel):
    id: str
    split: str
    score: float
    """Mean of the ticket's repetition scores."""
    passed: bool
    """Ticket score at or above the floor, and no judge floor broken."""
    question: str = ""
    key: dict[str, Any] | None = None
    """The ticket's answer key (kb, mustMention, forbidden, shouldAbstain, scopePolicy, notes)."""
    repetitions: list[RepetitionResult] = Field(default_factory=list)


class JudgeSummary(WireModel):
    type: str
    weight: float
    mean: float | None
    """Mean over the tickets where the judge applied (repetitions averaged per ticket first), in [0, 1]."""
    raw_mean: float | None = None
    """Mean on the judge's own scale (model judges)."""
    threshold: float
    """The threshold as configured (model judges: on their raw scale)."""
    passed: bool
    applicable_tickets: int
    errors: int = 0


class RuleResult(WireModel):
    name: str
    passed: bool
    value: float | None
    threshold: float | None
    detail: str
    offenders: list[str] = Field(default_factory=list)
    """The judges or tickets that break the rule."""


class RepetitionFigures(WireModel):
    k: int
    pass_rate: float
    """Passing cells / all cells."""
    pass_at_k: float
    """Share of tickets that pass in at least one repetition."""
    pass_hat_k: float
    """Share of tickets that pass in every repetition (pass^k)."""
    fully_resolved: int
    """Number of tickets that pass in every repetition."""
    cells: int
    passing_cells: int


class Usage(WireModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def plus(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=round(self.cost_usd + other.cost_usd, 6),
        )

    def priced(self, price: PriceConfig | None) -> Usage:
        """These tokens at `price` (no price: no cost)."""
        cost = price.cost_usd(self.input_tokens, self.output_tokens) if price is not None else 0.0
        return self.model_copy(update={"cost_usd": round(cost, 6)})


# --- isolation (the `sandbox` helper's addition: assay_runner.sandbox) ---
class Isolation(WireModel):
    """The kernel's protections in force around one cell's agent program (Landlock, `assay_runner.sandbox`):
    what it could read and write, whom it could connect to, signal or reach by abstract socket."""

    landlock_abi: int = Field(default=0, ge=0)
    """The Landlock ABI the cell's ruleset used; 0: no Landlock domain."""
    filesystem: bool = False
    """Reads and writes limited to the cell's workspace, inputs and the toolchain."""
    network: bool = False
    """TCP connect limited to the cell's gateway port, and no bind (ABI 4)."""
    scoped: bool = False
    """Signals and abstract Unix sockets limited to the cell's own processes (ABI 6)."""
    unix_sockets_refused: bool = False
    """No Unix socket of its own (seccomp), so no pathname socket reachable (Landlock checks none)."""
    reason: str | None = None
    """What is missing, and why (no program ran, the kernel lacks an ABI, ...)."""


class Inputs(WireModel):
    brain_digest: str | None = None
    suite_digest: str
    judges_digest: str
    """The judges, their code, the pass criterion and the effective gate (suite defaults + overrides)."""
    tickets_digest: str | None = None
    """The resolved ticket selection: the ordered list of ticket ids the verdict covers."""
    public_digest: str | None = None
    """The suite's public part as mounted (suite.yaml, questions, judge code), when the suite came split."""
    key_digest: str | None = None
    """The answer-key file as mounted, when the suite came split."""
    answers_digest: str | None = None
    """The answers judged: the sealed tree's digest (`answers.json` treeDigest) when judged from a tree,
    else a digest over every cell's answer digest."""


class MlflowRef(WireModel):
    tracking_uri: str | None = None
    experiment_id: str | None = None
    run_id: str | None = None
    logged: bool = False
    error: str | None = None


class JudgeConfigSummary(WireModel):
    """What re-gating needs to know about a judge, copied into the result."""

    name: str
    type: str
    weight: float
    threshold: float
    floor: float | None = None
    scale: tuple[float, float] | None = None


class GateSettings(WireModel):
    # Every bound is a share in [0, 1]: -1, 2, NaN or 1e9 would make the gate pass everything or nothing.
    min_score: float = Field(default=0.90, ge=0, le=1)
    ticket_floor: float = Field(default=0.70, ge=0, le=1)
    min_pass_hat_k: float | None = Field(default=None, ge=0, le=1)
    """When set and k > 1: the share of tickets that must pass in every repetition (1.0 = all)."""
    require_mlflow: bool = False
    """Block when logging to MLflow failed."""


class PassCriterion(WireModel):
    """When a ticket repetition counts as passing, for pass rate, pass@k and pass^k."""

    kind: Literal["allJudgesTop", "allJudgesThreshold", "minTicketScore"] = "allJudgesTop"
    min_ticket_score: float | None = Field(default=None, ge=0, le=1)


class ResultConfig(WireModel):
    judges: list[JudgeConfigSummary]
    gate: GateSettings
    pass_criterion: PassCriterion


class RunRequest(WireModel):
    """What the run was asked to cover, before the suite resolved it: `assay gate --verify` checks the
    selection against the suite with it (or with the RunConfig it is given)."""

    tickets: Selection | list[str]
    repetitions: int


class Result(WireModel):
    """The full result of one evaluation (`result.json`)."""

    schema_version: int = RESULT_SCHEMA_VERSION
    run_name: str | None = None
    suite: str
    mode: Literal["release", "online"] = "release"
    verdict: Verdict
    score: float
    reasons: list[str] = Field(default_factory=list)
    """One line per failed rule, empty on Pass."""
    judges: dict[str, JudgeSummary]
    rules: list[RuleResult]
    tickets: list[TicketResult]
    repetitions: RepetitionFigures
    usage: Usage = Field(default_factory=Usage)
    inputs: Inputs
    mlflow: MlflowRef = Field(default_factory=MlflowRef)
    config: ResultConfig
    selection: list[str] = Field(default_factory=list)
    """The ticket ids the verdict covers, in order (their digest is `inputs.ticketsDigest`)."""
    request: RunRequest | None = None
    """The selection and repetitions the run was asked for (None: online judging, older results)."""
    warnings: list[str] = Field(default_factory=list)
    """What does not block but weakens the verdict (a judge model equal to the agent's model)."""
    started_at: str | None = None
    finished_at: str | None = None


class SummaryRule(WireModel):
    name: str
    passed: bool
    detail: str
    value: float | None = None
    """The number the rule was decided on (a Campaign ranks candidates by these)."""


class SummaryCounts(WireModel):
    tickets: int
    passed_tickets: int
    cells: int
    errors: int
    judges_passing: int | None = None
    """Judges at or above their thresholds (the judges rule's count)."""


ANSWER_SUMMARY_SCHEMA_VERSION = 1
MAX_STOPPED = 300


class AnswerSummary(WireModel):
    """What the answer phase (`assay answer`) writes to `output.summaryPath` when the RunConfig names one:
    on the cluster, each answer pod's termination message, which the operator reads for the Evaluation's
    progress (cells done of the total). Small by construction: far under the 4096-byte bound."""

    schema_version: int = ANSWER_SUMMARY_SCHEMA_VERSION
    shard: tuple[int, int] | None = None
    """(index, count) of the shard this phase answered; None for a whole run's cells."""
    cells: int = Field(ge=0)
    """The cells this phase had to answer (its shard's)."""
    answered: int = Field(ge=0)
    """Of those, the cells answered without an error (kept ones included)."""
    kept: int = Field(default=0, ge=0)
    """Of those, the cells kept from an earlier attempt (resume)."""
    total: int = Field(ge=0)
    """Every cell of the run (tickets x repetitions, all shards)."""
    stopped: str | None = Field(default=None, max_length=MAX_STOPPED)
    """Why the phase ended before every cell was answered (deadline, signal, error)."""


class PairedTickets(WireModel):
    """Per-ticket figures, so two evaluations of the same tickets can be compared ticket by ticket (a
    Campaign's paired tests). Tickets in the order of their sorted ids; `tickets_digest` names that list."""

    tickets_digest: str
    """sha256 of the sorted ticket ids, one per line."""
    scores: list[float]
    """Each ticket's score (the mean over its repetitions), rounded to four places."""
    resolved: str
    """One character per ticket: 1 when it passed in every repetition, else 0."""


class RunSummary(WireModel):
    """The bounded summary a runner pod writes to its termination message (<= 4096 bytes)."""

    schema_version: int = SUMMARY_SCHEMA_VERSION
    verdict: Verdict
    score: float
    judges: dict[str, float | None]
    rules: list[SummaryRule]
    counts: SummaryCounts
    failing_tickets: list[str] = Field(default_factory=list)
    repetitions: RepetitionFigures | None = None
    usage: Usage = Field(default_factory=Usage)
    inputs: Inputs
    mlflow: MlflowRef = Field(default_factory=MlflowRef)
    truncated: bool = False
    """True when lists were shortened to fit the size bound."""
    paired: PairedTickets | None = None
    """Per-ticket figures for paired comparisons; dropped (truncated) when they do not fit."""


# --- The run configuration: rendered by the operator into a ConfigMap, or built from `assay run` flags. ---
# Strict in type and range: a RunConfig is written by a program (the operator) or by hand, and a value
# that only coerces ("4" for 4, "yes" for true, 1 for true) is a mistake to report, never to guess at.


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty or only whitespace")
    return text


NonBlank = Annotated[str, AfterValidator(_not_blank)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


class ConfigModel(WireModel):
    """A part of the RunConfig: no lax coercion (`strict`), and every float finite."""

    model_config = ConfigDict(strict=True)


class AgentConfig(ConfigModel):
    kind: AgentKind = "chat"
    """`command` (an argv template), a CLI preset, `chat` (one gateway call) or `replay` (recorded
    answers)."""
    command: list[str] | None = Field(default=None, min_length=1)
    """argv template for `command`, with placeholders such as {prompt_file} and {model}."""
    model: NonBlank | None = None
    """Model the agent uses, through the gateway."""
    timeout_seconds: Finite = Field(default=600.0, gt=0, le=86400)
    """Per ticket: a slower agent is killed and the cell scored with exit code 124."""
    answers: NonBlank | None = None
    """Directory of recorded answers for `replay`."""


class CassetteConfig(ConfigModel):
    dir: NonBlank
    mode: CassetteMode = "replay"


class MlflowConfig(ConfigModel):
    tracking_uri: NonBlank | None = None
    """Tracking server or store; a SQLite file in the working directory when empty."""
    experiment: NonBlank = "assay"
    enabled: bool = True


class GateOverrides(ConfigModel):
    min_score: Finite | None = Field(default=None, ge=0, le=1)
    ticket_floor: Finite | None = Field(default=None, ge=0, le=1)
    min_pass_hat_k: Finite | None = Field(default=None, ge=0, le=1)
    require_mlflow: bool | None = None
    thresholds: dict[str, float] = Field(default_factory=dict)
    """Per-judge thresholds, by judge name (model judges on their raw scale)."""


class PriceConfig(ConfigModel):
    """USD per million input and output tokens of one model."""

    input_per_million: Finite = Field(ge=0)
    output_per_million: Finite = Field(ge=0)

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        """The one pricing formula: every cost Assay reports or budgets is computed here."""
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1e6


class OutputConfig(ConfigModel):
    dir: NonBlank = "assay-out"
    """Where result.json, summary.json and the report go."""
    summary_path: NonBlank | None = None
    """Also write the RunSummary here (on the cluster: /dev/termination-log)."""
    blocked_exit_code: int = Field(default=1, ge=0, le=1)
    """Exit code for a Blocked verdict: 1 on a terminal; 0 only in the operator's Job, where only "could not
    run" fails the pod and the verdict travels in the RunSummary (honoured only where the Job's environment
    says so: `ASSAY_JOB`)."""
    keep_workspaces: bool = False
    workspace_root: NonBlank | None = None


class LimitsConfig(ConfigModel):
    """The largest files the judge phase reads per cell: bigger ones are a cell error (Blocked), never
    read, so one answer cannot exhaust the judge's memory (about 30 MB per MB of answer is judged)."""

    max_answer_bytes: int = Field(default=8 << 20, ge=1, le=1 << 30)
    """`answer.md`."""
    max_side_file_bytes: int = Field(default=1 << 20, ge=1, le=1 << 30)
    """Each other file of a cell (code judges' `outputs.files`), and the transcript's tail."""


TicketId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")]
SHARD_INDEX_ENV = "JOB_COMPLETION_INDEX"
"""Where an answer pod of an Indexed Job finds its shard (the Job controller sets it)."""
SHARD_DIR = "shard-{index}"
"""The judge phase reads shard i's tree from `answersDir/shard-i` when the answers come in shards."""
GATEWAY_SOCKET_ENV = "ASSAY_GATEWAY_SOCKET"
"""The answer phase reaches the gateway through the gateway sidecar's Unix socket at this path, and then
holds no gateway token (the sidecar does: `assay gateway-sidecar`)."""
GATEWAY_LEDGER_ENV = "ASSAY_GATEWAY_LEDGER_DIR"
"""The judge phase reconciles each answers tree with the gateway sidecar's ledger found here: `ledger.json`
for a whole run's tree, `shard-<i>/ledger.json` for shard i's."""
POD_UID_ENV = "ASSAY_POD_UID"
"""The gateway sidecar's pod (the downward API's metadata.uid): a ledger another pod left (a retried
shard's earlier attempt) is set aside, not carried on."""


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


class RunConfig(ConfigModel):
    """Everything one evaluation needs: `assay run --config FILE` (YAML or JSON)."""

    schema_version: Literal[1] = 1
    run_name: NonBlank | None = None
    suite: NonBlank
    """Suite directory."""
    kb: NonBlank | None = None
    """KB articles directory, when not the suite's own `kb/` (on the cluster: their ConfigMap)."""
    brain: NonBlank | None = None
    """Brain directory (AGENTS.md and other files)."""
    tickets: Selection | Annotated[list[TicketId], Field(min_length=1)] = "all"
    agent: AgentConfig = Field(default_factory=AgentConfig)
    repetitions: int = Field(default=1, ge=1, le=100)
    concurrency: int = Field(default=4, ge=1, le=64)
    gateway: NonBlank | None = None
    """OpenAI-compatible base URL of the model gateway."""
    judge_model: NonBlank | None = None
    cassettes: CassetteConfig | None = None
    mlflow: MlflowConfig = Field(default_factory=MlflowConfig)
    gate: GateOverrides = Field(default_factory=GateOverrides)
    prices: dict[NonBlank, PriceConfig] = Field(default_factory=dict)
    """USD per million tokens, by model; overrides the suite's `prices` model by model."""
    max_cost_usd: Finite | None = Field(default=None, gt=0)
    """Budget: once the run has spent this much (priced usage), no new cell starts; the rest are recorded as
    not started and the verdict blocks."""
    output: OutputConfig = Field(default_factory=OutputConfig)
    keys: NonBlank | None = None
    """The answer-key file (keys.yaml) when `suite` holds only the suite's public part (`assay split`).
    The judge phase reads it; the answer phase refuses a config that names it."""
    answers_dir: NonBlank | None = None
    """The answers tree: where `assay answer` writes and `assay score --config` reads."""
    answer_deadline_seconds: Finite | None = Field(default=None, gt=0)
    """The answer phase stops itself after this long (unfinished cells are recorded as incomplete), so
    the judge phase still has time to give a verdict before the Job's deadline."""
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

    @field_validator("tickets")
    @classmethod
    def _each_ticket_once(cls, tickets: Selection | list[str]) -> Selection | list[str]:
        if isinstance(tickets, list):
            repeated = sorted({t for t in tickets if tickets.count(t) > 1})
            if repeated:
                raise ValueError(f"ticket(s) selected more than once: {', '.join(repeated)}")
        return tickets
