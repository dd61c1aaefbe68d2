"""The `Evaluation`'s status: what the operator observed and decided of a generation's run."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from assay_operator.conditions import Condition
from assay_operator.schema import ApiModel
from assay_runner.vocabulary import Verdict

# The status's bounds, which the status builders cut to (assay_operator.bounded) so a status always fits.
MAX_RULES, MAX_DETAIL, MAX_FAILING, MAX_PAIRED, MAX_MESSAGE_LENGTH = 16, 512, 10, 500, 4096
MAX_FLAKY = 10
MAX_FAILED_SHARDS, MAX_SHARD_REASON = 16, 512
MAX_SHADOW_JUDGES, MAX_SHADOW_REASON = 32, 512


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


class ConversationsStatus(ApiModel):
    """What the conversational tickets' exchanges cost: the agent's turns and the customer's replies apart
    (a scripted customer costs nothing; a model customer's calls go through the judge's gateway)."""

    conversations: int = 0
    """Conversational cells (ticket x repetition)."""
    turns: int = 0
    """Agent turns over every conversation."""
    agent: UsageStatus = Field(default_factory=UsageStatus)
    customer: UsageStatus = Field(default_factory=UsageStatus)


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
    conversations: ConversationsStatus | None = None
    """The cost of the conversational tickets, agent and customer apart (within `usage`); absent when no
    ticket is a conversation."""
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
