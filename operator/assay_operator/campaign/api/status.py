"""The `Campaign`'s status: each candidate's standing, the comparison and the decision, and its approval."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from assay_operator import approvals
from assay_operator.campaign.api.spec import MAX_CELLS
from assay_operator.evaluation.api import ApiModel, Condition
from assay_runner.core.standing import Role
from assay_runner.vocabulary import Verdict

MAX_REASONS, MAX_REASON_LENGTH, MAX_MESSAGE_LENGTH = 40, 1024, 4096
APPROVED_BY = approvals.APPROVED_BY
"""The annotation a person sets to approve a decided promotion (its value: who approved, which the chart's
admission policy checks is the requesting user; see assay_operator.approvals)."""
AWAITING_APPROVAL = "AwaitingApproval"


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
