"""The RunSummary: the bounded summary a runner pod writes to its termination message."""

from __future__ import annotations

from pydantic import Field

from assay_runner.contract.result import ConversationCost, Inputs, MlflowRef, RepetitionFigures, Usage
from assay_runner.contract.wire import WireModel
from assay_runner.vocabulary import Verdict

SUMMARY_SCHEMA_VERSION = 1
SUMMARY_MAX_BYTES = 4096  # kubelet truncates a termination message beyond this


class SummaryRule(WireModel):
    name: str
    passed: bool
    detail: str
    value: float | None = None
    """The number the rule was decided on (a Campaign ranks candidates by these)."""
    shadow: bool = False
    """Evaluated but not deciding (`gate.shadowRules`): `passed: false` reads "would block"."""


class SummaryCounts(WireModel):
    tickets: int
    passed_tickets: int
    cells: int
    errors: int
    judges_passing: int | None = None
    """Gating judges at or above their thresholds (the judges rule's count; shadow judges left out)."""
    flaky_tickets: int | None = None
    """Tickets that pass in some repetitions and not in others (`repetitions.flaky` names the first few)."""


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
    conversations: ConversationCost | None = None
    """What the conversational tickets' exchanges cost, agent and customer apart (None: no conversation)."""
    inputs: Inputs
    mlflow: MlflowRef = Field(default_factory=MlflowRef)
    truncated: bool = False
    """True when lists were shortened to fit the size bound."""
    paired: PairedTickets | None = None
    """Per-ticket figures for paired comparisons; dropped (truncated) when they do not fit."""
    shadow_judges: dict[str, str] = Field(default_factory=dict)
    """Judges recorded but not deciding (their means are in `judges`), each with why."""
