"""The `Campaign` resource (assay.dev/v1alpha1): several candidates over the same tickets, one decision.

The candidates are listed (`candidates`, up to 16) or are the cells of a grid (`grid`: brains x agents x
models, up to 256). A Campaign creates one Evaluation per candidate (and one for the incumbent, when
named) from the shared settings below, at most `maxParallel` at a time, and when all have a verdict writes
the comparison and the decision into its status: the highest mean (descriptive), the release-key
winner, and whether it may be promoted. The ranking is `assay_runner.core.decision`, the same code
`assay compare` runs.

Like the Evaluation, the spec names data and never the pod. The CRD is generated from these models.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from assay_operator import approvals
from assay_operator.evaluation.api import (
    MAX_PARALLELISM,
    AgentSpec,
    ApiModel,
    BrainRef,
    BundledRef,
    Condition,
    GateOverrides,
    MlflowSpec,
    PriceSpec,
    ResourcesSpec,
    SecretKeyRef,
    StorageSpec,
    SuiteRef,
    TicketSelection,
)
from assay_operator.objects import PrinterColumn
from assay_runner.core.standing import OnTie, Reduction, Role
from assay_runner.vocabulary import Verdict

KIND = "Campaign"
PLURAL = "campaigns"
SINGULAR = "campaign"
SHORT_NAMES = ["camp"]

# A candidate's name becomes part of its Evaluation's name and a label value: short and DNS-safe.
CANDIDATE_NAME = r"^[a-z0-9]([-a-z0-9]{0,28}[a-z0-9])?$"
# A grid cell is named by its axis values joined with "-": three of these stay within a label value (63).
AXIS_NAME = r"^[a-z0-9]([-a-z0-9]{0,18}[a-z0-9])?$"
MAX_CELLS = 256
MAX_REASONS, MAX_REASON_LENGTH, MAX_MESSAGE_LENGTH = 40, 1024, 4096
Approval = Literal["Automatic", "Manual"]
APPROVED_BY = approvals.APPROVED_BY
"""The annotation a person sets to approve a decided promotion (its value: who approved, which the chart's
admission policy checks is the requesting user; see assay_operator.approvals)."""
AWAITING_APPROVAL = "AwaitingApproval"


class ChildSettings(ApiModel):
    """The settings of an Evaluation's size and spending that a Campaign gives its Evaluations: shared in its
    spec, and per listed candidate (or incumbent), where a value given replaces the shared one whole —
    `prices` excepted, which is merged model by model over the shared table, as an Evaluation's prices are
    over its suite's. The bounds and admission rules are the Evaluation's own (the same models)."""

    parallelism: int | None = Field(default=None, ge=1, le=MAX_PARALLELISM)
    """Answer pods of each Evaluation (the Evaluation's default, 1, when omitted): its ticket x repetition
    cells are cut into this many shards, and one judge pod judges them all."""
    storage: StorageSpec | None = None
    """The volume each Evaluation keeps its answers and result on (the operator's defaults when omitted)."""
    gateway_token_secret_ref: SecretKeyRef | None = None
    """Bearer token for the gateway (the operator's default when omitted), mounted where the agents and the
    model judge call it."""
    judge_gateway_token_secret_ref: SecretKeyRef | None = None
    """A separate gateway token for the model judge (judge phase only)."""
    prices: dict[str, PriceSpec] | None = Field(default=None, max_length=64)
    """Price table by model name: turns each Evaluation's token usage into its `usage.costUsd`, the figure
    the `cost` reduction of the key ranks on; overrides the suite's `prices` model by model."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Each Evaluation's budget in US dollars (not the Campaign's total): once spent, no new ticket starts,
    and the Evaluation is Blocked, saying so (so it cannot win)."""


CHILD_SETTINGS = tuple(ChildSettings.model_fields)
"""The Evaluation fields a candidate may set for itself, over the Campaign's shared ones."""


class CandidateSpec(ChildSettings):
    """One contender: a brain, optionally its own agent (kind and model), and optionally its own size and
    spending (ChildSettings), which replace the Campaign's shared ones for its Evaluation."""

    name: str = Field(pattern=CANDIDATE_NAME, max_length=30)
    """Short name, unique in the campaign; the Evaluation is named `<campaign>-<name>`."""
    brain: BrainRef
    """The brain this candidate runs."""
    agent: AgentSpec | None = None
    """The agent (kind, model); spec.agent when omitted."""
    resources: ResourcesSpec | None = None
    """Resources of its runner pods; spec.resources when omitted."""
    concurrency: int | None = Field(default=None, ge=1, le=32)
    """Tickets answered at once in each of its answer pods; spec.concurrency when omitted."""


def _unique(field: str) -> str:
    return f"self.{field}.all(c, self.{field}.filter(d, d.name == c.name).size() == 1)"


class GridBrain(ApiModel):
    """One value of the brains axis."""

    name: str = Field(pattern=AXIS_NAME, max_length=20)
    """The brain's name in cell names."""
    brain: BrainRef
    """The brain."""


class GridAgent(ApiModel):
    """One value of the agents axis."""

    name: str = Field(pattern=AXIS_NAME, max_length=20)
    """The agent's name in cell names."""
    agent: AgentSpec
    """Kind (and command, timeout...); its model is the models axis' when that axis is given."""


class GridModel(ApiModel):
    """One value of the models axis."""

    name: str = Field(pattern=AXIS_NAME, max_length=20)
    """The model's name in cell names (model ids often hold characters a name cannot)."""
    model: str = Field(min_length=1, max_length=253)
    """The model id the agent is given."""


class GridSpec(ApiModel):
    """Candidates as the product of axes: one cell per brain x agent (x model), named
    `<brain>-<agent>[-<model>]`, the names `assay compare --grid` gives the same cells."""

    cel_rules = (
        (_unique("brains"), "brain names must be unique"),
        (_unique("agents"), "agent names must be unique"),
        ("!has(self.models) || " + _unique("models"), "model names must be unique"),
        (
            "size(self.brains) * size(self.agents) * (has(self.models) ? size(self.models) : 1)"
            f" <= {MAX_CELLS}",
            f"a grid has at most {MAX_CELLS} cells",
        ),
    )

    brains: list[GridBrain] = Field(min_length=1, max_length=64)
    """The brains axis."""
    agents: list[GridAgent] = Field(min_length=1, max_length=16)
    """The agents axis."""
    models: list[GridModel] | None = Field(default=None, min_length=1, max_length=16)
    """When omitted, each agent runs its own model."""


class CampaignSpec(ChildSettings):
    """The candidates and what every Evaluation shares; ChildSettings (parallelism, storage, the tokens,
    prices, budget) are shared here and may be set per listed candidate."""

    cel_rules = (
        (
            "has(self.candidates) != has(self.grid)",
            "give either candidates or grid",
        ),
        (
            "!has(self.candidates) || " + _unique("candidates"),
            "candidate names must be unique",
        ),
        (
            "!has(self.incumbent) || !has(self.candidates)"
            " || self.candidates.all(c, c.name != self.incumbent.name)",
            "the incumbent's name must differ from every candidate's",
        ),
        (
            "has(self.agent) || !has(self.candidates) || self.candidates.all(c, has(c.agent))",
            "give spec.agent, or an agent for every candidate",
        ),
        (
            "has(self.agent) || !has(self.incumbent) || has(self.incumbent.agent)",
            "give spec.agent, or an agent for the incumbent",
        ),
        ("self.key.all(k, self.key.filter(j, j == k).size() == 1)", "name each reduction in key once"),
        ("self.key[0] != 'cost'", "cost only breaks ties: name a reduction of quality first"),
    )

    candidates: list[CandidateSpec] | None = Field(default=None, min_length=1, max_length=16)
    """The challengers, listed (or give `grid`)."""
    grid: GridSpec | None = None
    """The challengers as a grid of brains x agents (x models)."""
    incumbent: CandidateSpec | None = None
    """What is released now, evaluated under the same settings. A winner replaces it only by a strict
    improvement on the key's first reduction."""
    agent: AgentSpec | None = None
    """The agent for candidates that do not name one."""
    suite: SuiteRef
    """The tickets, answer keys, KB and judges every candidate is evaluated on."""
    tickets: TicketSelection | None = None
    """Which tickets to run (all when omitted)."""
    repetitions: int = Field(default=3, ge=1, le=20)
    """Times each ticket is answered; fully-resolved counts tickets passing every time."""
    concurrency: int = Field(default=4, ge=1, le=32)
    """Tickets answered at once within one Evaluation."""
    max_parallel: int = Field(default=2, ge=1, le=16)
    """Evaluations running at once."""
    key: list[Reduction] = Field(default=["fully-resolved", "mean"], min_length=1, max_length=5)
    """The release key, most significant first: reductions the gate itself decides on. `cost` (each
    Evaluation's priced usage, `usage.costUsd`; lower is better) may follow them as a tie-breaker, e.g.
    [fully-resolved, mean, cost]: of two candidates equal on the rest, the cheaper wins."""

    @field_validator("key")
    @classmethod
    def _cost_breaks_ties_only(cls, key: list[Reduction]) -> list[Reduction]:
        if key and key[0] == "cost":  # the CRD's CEL rule refuses this; checked again for older objects
            raise ValueError("cost only breaks ties: name a reduction of quality first")
        return key

    on_tie: OnTie = "keep"
    """When the winner only matches the incumbent on the first reduction: `keep` the incumbent, or decide on
    the rest of the key (`full-key`)."""
    min_confidence: float | None = Field(default=None, gt=0, lt=1)
    """Promote only when the paired test against the incumbent (Holm-adjusted over the candidates) is at
    least this confident, e.g. 0.95. Without it the figures are reported but do not decide."""
    max_judge_drop: float | None = Field(default=None, ge=0, le=1)
    """Promote only when no judge's mean is below the incumbent's by more than this, e.g. 0.05."""
    approval: Approval = "Automatic"
    """`Manual`: a decided promotion waits (AwaitingApproval) until a person allowed to approve sets the
    annotation `assay.dev/approved-by: <their user name>`; `Automatic`: it is promoted when decided."""
    gate: GateOverrides | None = None
    """Overrides of the suite's gate, for every Evaluation."""
    gateway: str | None = Field(default=None, max_length=2048, pattern=r"^https?://\S+$")
    """OpenAI-compatible base URL of the model gateway (the operator's default when omitted)."""
    judge_model: str | None = Field(default=None, max_length=253)
    """Model for model judges that do not name one."""
    cassettes: BundledRef | None = None
    """Recorded model calls to replay."""
    mlflow: MlflowSpec | None = None
    """Where the runs are logged."""
    resources: ResourcesSpec | None = None
    """Runner pod resources of each Evaluation."""
    deadline_seconds: int = Field(default=1800, ge=60, le=86400)
    """Each Evaluation's deadline."""
    queue_name: str | None = Field(default=None, pattern=r"^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$")
    """Kueue LocalQueue for the Evaluations' Jobs."""


class VsIncumbentStatus(ApiModel):
    """A candidate against the incumbent, compact (a grid has up to 256 of these in one object)."""

    score_effect: float | None = None
    """Mean per-ticket score difference (candidate - incumbent)."""
    score_ci: list[float] | None = Field(default=None, min_length=2, max_length=2)
    """Its paired bootstrap confidence interval, [low, high]."""
    score_p: float | None = None
    """Two-sided sign-flip permutation p-value."""
    resolved_gained: int | None = None
    resolved_lost: int | None = None
    resolved_p: float | None = None
    """Exact McNemar p-value on fully resolved tickets."""
    confidence: float | None = None
    """1 - the deciding test's Holm-adjusted p-value."""
    judges_fallen: list[Annotated[str, Field(max_length=63)]] | None = Field(default=None, max_length=16)
    """Judges whose mean fell below the incumbent's by more than maxJudgeDrop."""


class CandidateStatus(ApiModel):
    """One contender's standing: its Evaluation's phase, verdict and the gate's reductions."""

    name: str
    role: Role
    evaluation: str
    """The Evaluation holding this candidate's verdict and details."""
    phase: Literal["Pending", "Running", "Finished"]
    verdict: Verdict | None = None
    mean: float | None = None
    pass_rate: float | None = None
    pass_at_k: float | None = None
    pass_hat_k: float | None = None
    fully_resolved: int | None = None
    tickets: int | None = None
    coverage: float | None = None
    """Share of ticket x repetition cells judged."""
    complete: bool | None = None
    eligible: bool | None = None
    """Complete coverage and its own gate verdict Pass."""
    cost_usd: float | None = None
    """Its Evaluation's priced usage in US dollars (the `cost` reduction; lower ranks higher)."""
    key: dict[str, float] | None = None
    """Its values of the release key's reductions (`cost` in US dollars)."""
    rank_by_key: int | None = None
    rank_by_mean: int | None = None
    vs_incumbent: VsIncumbentStatus | None = None
    """The paired comparison with the incumbent and the judges that fell below it."""


class ApprovalStatus(ApiModel):
    state: Literal["AwaitingApproval", "Approved"]
    winner: str
    """The candidate whose promotion awaits approval, or was approved."""
    generation: int
    """The Campaign's generation it concerns: an approval never carries over to another."""
    approved_by: str | None = Field(default=None, max_length=253)
    """Who approved, as the apiserver authenticated the request that set the annotation."""
    approved_at: str | None = None
    seal: str | None = Field(default=None, max_length=64)
    """The operator's seal over this approval and the Campaign's uid (assay_operator.seals): an approval
    without one that verifies was not written by the operator, and is undone."""

    def sealed_fields(self) -> dict[str, object]:
        return self.model_dump(by_alias=True, mode="json", exclude={"seal"})


class GridStatus(ApiModel):
    axes: dict[str, list[Annotated[str, Field(max_length=20)]]]
    """Axis -> its names, in order; a cell's name is its names joined with "-"."""
    cells: int


class CampaignStatus(ApiModel):
    observed_generation: int | None = None
    key: list[str] | None = None
    progress: str | None = None
    """"finished/total" Evaluations, for the printer column."""
    candidates: list[CandidateStatus] | None = Field(default=None, max_length=MAX_CELLS)
    grid: GridStatus | None = None
    approval: ApprovalStatus | None = None
    """For `approval: Manual`: the promotion awaiting a person, or who approved it."""
    incumbent: CandidateStatus | None = None
    highest_mean: str | None = None
    """The candidate with the highest mean: descriptive, never decisive."""
    winner: str | None = None
    """The release-key winner among candidates with complete coverage."""
    promote: bool | None = None
    """Whether the winner may replace the incumbent (Ready mirrors it)."""
    reasons: list[Annotated[str, Field(max_length=MAX_REASON_LENGTH)]] | None = Field(
        default=None, max_length=MAX_REASONS
    )
    """Why, one line each — even when the labels agree; past MAX_REASONS, a last line counts the rest
    (every candidate's own row says whether it is eligible)."""
    message: str | None = Field(default=None, max_length=MAX_MESSAGE_LENGTH)
    conditions: list[Condition] | None = Field(default=None, max_length=16)


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
