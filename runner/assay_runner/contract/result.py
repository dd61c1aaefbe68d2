"""`result.json`: the full result of one evaluation, cell by cell."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from assay_runner.contract.run_config import AnswerSecondsPercentile, Finite, PriceConfig
from assay_runner.contract.trajectory import Trajectory
from assay_runner.contract.wire import WireModel, no_items
from assay_runner.vocabulary import UNSHADOWABLE_RULES, Containment, GateRule, Selection, Verdict

RESULT_SCHEMA_VERSION = 1


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
    containment: Containment | None = None
    """What ended every process the cell's agent started (`vocabulary.Containment`); None: it ran none."""
    isolation: Isolation | None = None
    """The sandbox the agent ran in (None: recorded before Assay recorded it)."""
    conversation: ConversationRecord | None = None
    """A conversational ticket's exchange, turn by turn (None: a ticket of one question and one answer)."""


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
    shadow: str | None = None
    """Why this judge does not gate (declared `shadow: true`, or no valid calibration): it runs and is
    recorded, reported and compared like any judge, and `passed` says whether it would pass, but it never
    decides (not the score, the judges rule, a floor or completeness). None: it gates."""


class RuleResult(WireModel):
    name: str
    passed: bool
    value: float | None
    threshold: float | None
    detail: str
    offenders: list[str] = Field(default_factory=list)
    """The judges or tickets that break the rule."""
    shadow: bool = False
    """Evaluated and reported but not deciding (`gate.shadowRules`): `passed: false` reads "would block"."""


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
    flaky: list[str] = Field(default_factory=list)
    """Tickets that pass in some repetitions and not in others (a missing repetition does not pass), in
    ticket order (the RunSummary keeps the first few; `flakyTickets` in its counts says how many)."""


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


ConversationEnd = Literal["answered", "turnLimit", "timeLimit", "budget", "agentFailed", "customerFailed"]
"""Why a conversation ended: the agent answered with nothing left to ask; or it was cut short (each of the
others blocks the cell, its reason named)."""


class ConversationTurn(WireModel):
    """One message of a conversation: the customer's or the agent's."""

    index: int = Field(ge=0)
    """The turn it belongs to: turn 0 is the ticket's question and the agent's first reply."""
    speaker: Literal["customer", "agent"]
    text: str
    usage: Usage | None = None
    """What this message cost: the agent's model calls for its reply, or the model customer's call."""
    asked: list[str] = Field(default_factory=list)
    """An agent message: the hidden facts it asked for (by name)."""
    revealed: list[str] = Field(default_factory=list)
    """A customer message: the hidden facts it said (by name)."""
    wall_seconds: float | None = None
    trajectory: Trajectory | None = None
    """An agent message: the steps of this turn alone, as its agent returned them (on the turn's own clock;
    a CLI's). The cell's `trajectory` is every turn's joined; this is what the trajectory judges and the
    trace read per turn."""


class ConversationRecord(WireModel):
    """A conversational ticket's exchange as the runner kept it (never as the agent told it): recorded in the
    cell's sealed record and the authenticated result."""

    turns: list[ConversationTurn]
    """Customer and agent in turn, starting with the ticket's question."""
    turn_limit: int
    ended: ConversationEnd
    reason: str = ""
    """Why it ended, in words (the limit reached, the error)."""
    customer: Literal["scripted", "model"] = "scripted"
    customer_model: str | None = None
    agent_usage: Usage = Field(default_factory=Usage)
    """The agent's model calls over every turn."""
    customer_usage: Usage = Field(default_factory=Usage)
    """The model customer's calls (a scripted customer costs nothing), metered apart from the agent's."""

    @property
    def agent_turns(self) -> int:
        return sum(1 for turn in self.turns if turn.speaker == "agent")


class ConversationCost(WireModel):
    """What a run's conversations cost, agent and customer apart (`Result.conversations`)."""

    conversations: int = 0
    turns: int = 0
    """Agent turns over every conversation."""
    agent: Usage = Field(default_factory=Usage)
    customer: Usage = Field(default_factory=Usage)


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
    suite_artifact_digest: str | None = None
    """The OCI artifact's manifest digest (sha256:...) when the suite was given as `oci://...@sha256:...`;
    `suite_digest` stays the content digest of what was loaded from it."""
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
    shadow: str | None = None
    """Why the judge does not gate (a shadow judge); None: it gates."""


class GateSettings(WireModel):
    # Every share is in [0, 1] and every limit finite and above 0: -1, 2, NaN or 1e9 would make the gate
    # pass everything or nothing.
    min_score: float = Field(default=0.90, ge=0, le=1)
    ticket_floor: float = Field(default=0.70, ge=0, le=1)
    min_pass_hat_k: float | None = Field(default=None, ge=0, le=1)
    """When set and k > 1: the share of tickets that must pass in every repetition (1.0 = all)."""
    require_mlflow: bool = False
    """Block when logging to MLflow failed."""
    max_answer_seconds: Finite | None = Field(default=None, gt=0)
    """Every cell's agent wall time (`wallSeconds`: the agent's own time, not the queue) at most this many
    seconds; a cell without a recorded wall time blocks."""
    answer_seconds_percentile: AnswerSecondsPercentile | None = None
    """A percentile of the cells' agent wall times (nearest rank) at most `maxSeconds`."""
    max_ticket_cost_usd: Finite | None = Field(default=None, gt=0)
    """Every cell's priced cost (US dollars, from the metering proxy's counts) at most this: a ticket's cost
    is its dearest repetition's. A cell without usage, or a run with an unpriced model, blocks."""
    max_run_cost_usd: Finite | None = Field(default=None, gt=0)
    """The run's total priced cost (agents and model judges) at most this; distinct from the budget
    (`maxCostUsd`), which stops spending. An unpriced model blocks."""
    shadow_rules: list[str] = Field(default_factory=no_items)  # built as the suite loads: see no_items
    """Rules evaluated and reported ("would block") that do not decide the verdict, like a metric's dry run
    in Argo Rollouts. `complete` and `verified` cannot be shadowed: a run that was not judged whole, or a
    verdict the judges do not reproduce, always blocks."""

    @field_validator("shadow_rules")
    @classmethod
    def _shadowable(cls, rules: list[str]) -> list[str]:
        # Names, not the enum: a suite is validated strictly, and YAML gives strings. The gate's rule names
        # are GateRule's, so a new rule is shadowable as soon as it exists.
        unknown = sorted(set(rules) - {str(rule) for rule in GateRule})
        if unknown:
            raise ValueError(
                f"no gate rule {', '.join(unknown)} (rules: {', '.join(str(r) for r in GateRule)})"
            )
        refused = sorted(set(rules) & {str(rule) for rule in UNSHADOWABLE_RULES})
        if refused:
            raise ValueError(
                f"{', '.join(refused)} cannot be a shadow rule: it is what keeps the gate closed"
            )
        if len(set(rules)) != len(rules):
            raise ValueError("a rule is named twice")
        return rules


class PassCriterion(WireModel):
    """When a ticket repetition counts as passing, for pass rate, pass@k and pass^k."""

    kind: Literal["allJudgesTop", "allJudgesThreshold", "minTicketScore"] = "allJudgesTop"
    min_ticket_score: float | None = Field(default=None, ge=0, le=1)


class ResultConfig(WireModel):
    judges: list[JudgeConfigSummary]
    gate: GateSettings
    pass_criterion: PassCriterion
    unpriced: list[str] | None = None
    """Who called a model the run had no price for ("the agent's model 'm'"); empty when every model was
    priced, None when the run did not say (online judging, older results): the cost rules block unless it
    is empty, since what was not priced cost $0 only on paper."""


class RunRequest(WireModel):
    """What the run was asked to cover, before the suite resolved it: `assay gate --verify` checks the
    selection against the suite with it (or with the RunConfig it is given)."""

    tickets: Selection | list[str]
    repetitions: int


class ResultEvidence(WireModel):
    """How result.json is authenticated (`assay_runner.core.evidence`): MACs under the run's evidence key,
    which no agent holds. Absent on a result nothing authenticated (a hand-made answers tree, a re-gate)."""

    key_id: str
    """Names the run's evidence key (derived from it; a lookup id, not a secret)."""
    cells: dict[str, str]
    """`<ticket>/<repetition>` -> the MAC of that cell as the result records it."""
    mac: str
    """The MAC of the whole result (every field but this block)."""


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
    conversations: ConversationCost | None = None
    """The cost of the conversational tickets' exchanges, agent and customer apart (also in `usage`, which
    is the whole run's); None when no ticket is a conversation."""
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
    evidence: ResultEvidence | None = None
    """None: unauthenticated (`assay gate --verify` never accepts it as a release verdict)."""
