"""The `Campaign`'s spec: the candidates (listed, or a grid's cells), the settings their Evaluations share,
and how the decision is made and approved. Like the Evaluation's, it names data and never the pod."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from assay_operator.evaluation.api import (
    MAX_PARALLELISM,
    AgentSpec,
    ApiModel,
    BrainRef,
    BundledRef,
    GateOverrides,
    MlflowSpec,
    PriceSpec,
    ResourcesSpec,
    SecretKeyRef,
    StorageSpec,
    SuiteRef,
    TicketSelection,
)
from assay_runner.core.standing import OnTie, Reduction

# A candidate's name becomes part of its Evaluation's name and a label value: short and DNS-safe.
CANDIDATE_NAME = r"^[a-z0-9]([-a-z0-9]{0,28}[a-z0-9])?$"
# A grid cell is named by its axis values joined with "-": three of these stay within a label value (63).
AXIS_NAME = r"^[a-z0-9]([-a-z0-9]{0,18}[a-z0-9])?$"
MAX_CELLS = 256
Approval = Literal["Automatic", "Manual"]


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
