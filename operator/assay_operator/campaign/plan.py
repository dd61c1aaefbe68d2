"""Pure reconciliation of a Campaign: which Evaluations should exist, which to start now, and the decision.

No I/O here: the handlers list the Campaign's Evaluations, call `plan` and `campaign_status`, and apply the
result. The decision is `assay_runner.core.decision.decide`, fed with standings read from each Evaluation's
status — the numbers its gate decided on — so a Campaign and `assay compare` cannot disagree.

Fail closed: an Evaluation that ended without a readable summary (its Job failed) is a candidate with no
coverage, so it is visible but ineligible; candidates evaluated on different tickets, suites or repetition
counts are not compared at all; a campaign whose decision cannot be made promotes nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from assay_operator import conditions
from assay_operator.campaign.api import (
    AWAITING_APPROVAL,
    ApprovalStatus,
    CampaignSpec,
    CampaignStatus,
    CandidateSpec,
    CandidateStatus,
    GridModel,
    GridSpec,
    GridStatus,
    VsIncumbentStatus,
)
from assay_operator.evaluation.api import EvaluationSpec, EvaluationStatus, RuleStatus
from assay_operator.evaluation.builders import bounded_name
from assay_runner.core.decision import PromotionRules, decide
from assay_runner.core.decision_report import CandidateRow, DecisionReport, Versus, report_of
from assay_runner.core.standing import NotComparable, Role, Standing
from assay_runner.core.statistics import Paired
from assay_runner.vocabulary import GateRule

LABEL_CAMPAIGN = "assay.dev/campaign"
LABEL_CANDIDATE = "assay.dev/candidate"
LABEL_ROLE = "assay.dev/role"
# The Evaluation fields a Campaign shares with each of its Evaluations, copied as they are.
SHARED_FIELDS = (
    "suite",
    "tickets",
    "repetitions",
    "concurrency",
    "gate",
    "gateway",
    "judge_model",
    "cassettes",
    "mlflow",
    "resources",
    "deadline_seconds",
    "queue_name",
)
MAX_REASON = 1024

Obj = dict[str, Any]


@dataclass(frozen=True)
class Entry:
    """One Evaluation the Campaign wants: a candidate or the incumbent."""

    role: Role
    candidate: CandidateSpec
    evaluation: str
    """The Evaluation's name."""
    spec: Obj
    """Its spec, camelCase, as the apiserver stores it (no nulls)."""


def evaluation_name(campaign: str, candidate: str) -> str:
    return bounded_name(campaign, f"-{candidate}", 253)


def campaign_label(campaign: str) -> str:
    return bounded_name(campaign, "", 63)


def child_labels(campaign: str, entry: Entry) -> dict[str, str]:
    return {
        "app.kubernetes.io/managed-by": "assay-operator",
        "app.kubernetes.io/part-of": "assay",
        LABEL_CAMPAIGN: campaign_label(campaign),
        LABEL_CANDIDATE: entry.candidate.name,
        LABEL_ROLE: entry.role,
    }


def evaluation_spec(spec: CampaignSpec, candidate: CandidateSpec) -> Obj:
    agent = candidate.agent or spec.agent
    if agent is None:  # the CRD's CEL rules refuse this; checked again for objects that predate them
        raise ValueError(f"candidate {candidate.name} has no agent and spec.agent is not set")
    out: Obj = {
        "brain": candidate.brain.model_dump(by_alias=True, exclude_none=True, mode="json"),
        "agent": agent.model_dump(by_alias=True, exclude_none=True, mode="json"),
    }
    for name in SHARED_FIELDS:
        value = getattr(spec, name)
        if value is None:
            continue
        alias = CampaignSpec.model_fields[name].alias or name
        out[alias] = (
            value.model_dump(by_alias=True, exclude_none=True, mode="json")
            if isinstance(value, BaseModel)
            else value
        )
    return out


def grid_candidates(grid: GridSpec) -> list[CandidateSpec]:
    """One candidate per cell, named `<brain>-<agent>[-<model>]` (the names `assay compare --grid` gives),
    the last axis varying fastest."""
    models: list[GridModel | None] = list(grid.models) if grid.models else [None]
    out = []
    for brain, agent, model in itertools.product(grid.brains, grid.agents, models):
        parts = [brain.name, agent.name] + ([model.name] if model is not None else [])
        spec = agent.agent if model is None else agent.agent.model_copy(update={"model": model.model})
        # Built, not validated: each part is checked by its own pattern, and the joined name (up to 62
        # characters) is longer than a listed candidate's may be.
        out.append(CandidateSpec.model_construct(name="-".join(parts), brain=brain.brain, agent=spec))
    return out


def candidates_of(spec: CampaignSpec) -> list[CandidateSpec]:
    if spec.grid is not None and spec.candidates:
        raise ValueError("give either candidates or grid, not both")
    if spec.grid is not None:
        return grid_candidates(spec.grid)
    if not spec.candidates:
        raise ValueError("give candidates or a grid")
    return list(spec.candidates)


def grid_status(grid: GridSpec | None) -> GridStatus | None:
    if grid is None:
        return None
    axes = {"brain": [b.name for b in grid.brains], "agent": [a.name for a in grid.agents]}
    if grid.models:
        axes["model"] = [m.name for m in grid.models]
    cells = 1
    for names in axes.values():
        cells *= len(names)
    return GridStatus(axes=axes, cells=cells)


def entries(campaign: str, spec: CampaignSpec) -> list[Entry]:
    """Incumbent first: it is the reference every candidate is measured against."""
    wanted: list[tuple[Role, CandidateSpec]] = [("incumbent", spec.incumbent)] if spec.incumbent else []
    wanted += [("candidate", c) for c in candidates_of(spec)]
    names = [c.name for _, c in wanted]
    if len(set(names)) != len(names):
        raise ValueError(f"candidate names must be unique (the incumbent's included): {sorted(names)}")
    return [Entry(role, c, evaluation_name(campaign, c.name), evaluation_spec(spec, c)) for role, c in wanted]


def evaluation_body(campaign: str, entry: Entry) -> Obj:
    return {
        "apiVersion": "assay.dev/v1alpha1",
        "kind": "Evaluation",
        "metadata": {"name": entry.evaluation, "labels": child_labels(campaign, entry)},
        "spec": entry.spec,
    }


def evaluation_status(evaluation: Obj) -> EvaluationStatus:
    """An Evaluation's status as the typed model its operator wrote it from."""
    return EvaluationStatus.model_validate(evaluation.get("status") or {})


def finished(evaluation: Obj) -> bool:
    """The Evaluation's current generation has its verdict (a stale verdict of an older spec does not
    count)."""
    generation = evaluation["metadata"].get("generation")
    status = evaluation_status(evaluation)
    return (
        status.verdict is not None
        and status.observed_generation == generation
        and conditions.holds(status.conditions, conditions.COMPLETED, generation)
    )


def _normalised(spec: Obj) -> Obj | None:
    try:
        return EvaluationSpec.model_validate(spec).model_dump(by_alias=True, exclude_none=True, mode="json")
    except ValidationError:
        return None


def same_spec(have: Obj, want: Obj) -> bool:
    """Equal once both have the defaults filled in (the apiserver stores `have` with the CRD's defaults,
    which are the models' defaults)."""
    normal = _normalised(have)
    return normal is not None and normal == _normalised(want)


def up_to_date(entry: Entry, existing: Mapping[str, Obj]) -> Obj | None:
    """The entry's Evaluation when it exists with the spec the Campaign wants now."""
    have = existing.get(entry.evaluation)
    return have if have is not None and same_spec(have.get("spec") or {}, entry.spec) else None


@dataclass
class Plan:
    create: list[Entry] = field(default_factory=list)
    update: list[Entry] = field(default_factory=list)
    """Existing Evaluations whose spec no longer matches the Campaign's: their spec is replaced."""
    delete: list[str] = field(default_factory=list)
    """Evaluations of candidates no longer in the spec."""
    waiting: list[Entry] = field(default_factory=list)
    """Wanted but not started: maxParallel are running."""


def plan(wanted: list[Entry], existing: Mapping[str, Obj], max_parallel: int) -> Plan:
    """What to do now. At most `max_parallel` Evaluations run at a time — a re-run after a spec change
    counts like a new one — and entries start in order, so concurrent reconciles with slightly stale views
    pick the same next ones."""
    out = Plan()
    names = {e.evaluation for e in wanted}
    out.delete = sorted(name for name in existing if name not in names)
    current = {e.evaluation: up_to_date(e, existing) for e in wanted}
    running = sum(1 for have in current.values() if have is not None and not finished(have))
    for entry in wanted:
        if current[entry.evaluation] is not None:
            continue
        if running >= max_parallel:
            out.waiting.append(entry)
            continue
        (out.update if entry.evaluation in existing else out.create).append(entry)
        running += 1
    return out


def _rule(status: EvaluationStatus, name: GateRule) -> RuleStatus | None:
    return next((r for r in status.rules or [] if r.name == name), None)


def standing_of(name: str, status: EvaluationStatus) -> Standing:
    """A finished Evaluation as its gate left it, read from its status. Without a summary (the Job failed,
    the summary was unreadable) it has no coverage: visible, never eligible."""
    repetitions = status.repetitions
    score_rule, floor_rule, complete_rule = (
        _rule(status, rule) for rule in (GateRule.SCORE, GateRule.TICKET_FLOOR, GateRule.COMPLETE)
    )
    has_summary = status.score is not None and complete_rule is not None
    mean = status.score or 0.0
    if score_rule is not None and score_rule.value is not None:
        mean = score_rule.value  # unrounded: what the score rule compared
    failed_rules = tuple(f"{r.name}: {r.detail}" for r in status.rules or [] if not r.passed)
    return Standing(
        name=name,
        verdict=status.verdict or "Blocked",
        mean=mean,
        lowest_ticket=(floor_rule.value if floor_rule else None) or 0.0,
        judges_passing=status.judges_passing or 0,
        complete=bool(has_summary and complete_rule and complete_rule.passed),
        coverage=((complete_rule.value if complete_rule else None) or 0.0) if has_summary else 0.0,
        pass_rate=(repetitions.pass_rate if repetitions else None) or 0.0,
        pass_at_k=(repetitions.pass_at_k if repetitions else None) or 0.0,
        pass_hat_k=(repetitions.pass_hat_k if repetitions else None) or 0.0,
        fully_resolved=(repetitions.fully_resolved if repetitions else None) or 0,
        tickets=status.tickets.total if status.tickets else 0,
        k=repetitions.k if repetitions else 0,
        suite_digest=status.inputs.suite_digest if status.inputs else None,
        judge_means=dict(status.judges or {}),
        paired=_paired(status),
        blocked_because=failed_rules or ((str(status.message),) if not has_summary else ()),
    )


def _paired(status: EvaluationStatus) -> Paired | None:
    """Per-ticket figures keyed by the ticket list's digest and position: two Evaluations pair up only when
    they ran the same tickets (a paired test of different lists is refused, and decides nothing)."""
    paired = status.paired
    if paired is None or len(paired.scores) != len(paired.resolved):
        return None
    keys = [f"{paired.tickets_digest}#{i}" for i in range(len(paired.scores))]
    return Paired(
        scores=dict(zip(keys, paired.scores, strict=True)),
        resolved={k: flag == "1" for k, flag in zip(keys, paired.resolved, strict=True)},
    )


def standing(name: str, evaluation: Obj) -> Standing:
    return standing_of(name, evaluation_status(evaluation))


def _row(entry: Entry, evaluation: Obj | None, report: DecisionReport | None) -> CandidateStatus:
    phase = "Pending" if evaluation is None else ("Finished" if finished(evaluation) else "Running")
    row = CandidateStatus(
        name=entry.candidate.name, role=entry.role, evaluation=entry.evaluation, phase=phase
    )
    if evaluation is not None and phase == "Finished":
        row.verdict = evaluation_status(evaluation).verdict
    decided = report.row(entry.candidate.name) if report is not None and evaluation is not None else None
    if decided is not None:
        row = row.model_copy(update=_figures(decided))
    return row


def _figures(row: CandidateRow) -> dict[str, object]:
    """A decided candidate's figures, as the status's fields (a figure it does not have is left unset)."""
    s = row.standing
    figures: dict[str, object | None] = {
        "mean": s.mean,
        "pass_rate": s.pass_rate,
        "pass_at_k": s.pass_at_k,
        "pass_hat_k": s.pass_hat_k,
        "fully_resolved": s.fully_resolved,
        "tickets": s.tickets,
        "coverage": s.coverage,
        "complete": s.complete,
        "verdict": s.verdict,
        "eligible": s.eligible,
        "key": row.key,
        "rank_by_key": row.rank_by_key,  # None for the incumbent: the reference, not a contender
        "rank_by_mean": row.rank_by_mean,
        "vs_incumbent": vs_incumbent(row.vs_incumbent) if row.vs_incumbent is not None else None,
    }
    return {name: value for name, value in figures.items() if value is not None}


def vs_incumbent(versus: Versus) -> VsIncumbentStatus:
    """A candidate against the incumbent, compact: the figures a person reads in the status."""

    def r(value: float | None) -> float | None:
        return None if value is None else round(value, 4)

    paired = versus.paired
    fallen = list(versus.fallen)
    if paired is None:
        return VsIncumbentStatus(judges_fallen=fallen[:16] or None)
    s, p = paired.scores, paired.fully_resolved
    return VsIncumbentStatus(
        score_effect=r(s.effect),
        score_ci=[r(s.ci_low) or 0.0, r(s.ci_high) or 0.0],
        score_p=r(s.p_value),
        resolved_gained=p.gained,
        resolved_lost=p.lost,
        resolved_p=r(p.p_value),
        confidence=r(paired.confidence),
        judges_fallen=fallen[:16] or None,
    )


def awaiting_approval(winner: str, message: str) -> list[conditions.Desired]:
    """Decided to promote, waiting for a person: not Ready (nothing may gate on it yet), not stalled."""
    waiting = f"the promotion of {winner} awaits approval: annotate {APPROVAL_HINT}"
    return [
        conditions.Desired(conditions.READY, "False", AWAITING_APPROVAL, waiting),
        conditions.Desired(conditions.COMPLETED, "True", "Decided", message),
        conditions.Desired(conditions.RECONCILING, "False", AWAITING_APPROVAL, waiting),
        conditions.Desired(conditions.STALLED, "False", AWAITING_APPROVAL, waiting),
        conditions.Desired(AWAITING_APPROVAL, "True", AWAITING_APPROVAL, waiting),
    ]


APPROVAL_HINT = "the Campaign with assay.dev/approved-by=<who>"


def decided(promote: bool, reason: str, message: str) -> list[conditions.Desired]:
    """Ready = a promotion was decided. A campaign that keeps the incumbent is finished, not failing, but a
    promotion gated on it must not proceed: Ready False and Stalled True, as for a Blocked Evaluation."""
    return [
        conditions.Desired(conditions.READY, "True" if promote else "False", reason, message),
        conditions.Desired(conditions.COMPLETED, "True", "Decided", message),
        conditions.Desired(conditions.RECONCILING, "False", "Decided", "every Evaluation has a verdict"),
        conditions.Desired(conditions.STALLED, "False" if promote else "True", reason, message),
        conditions.Desired(AWAITING_APPROVAL, "False", reason, message),
    ]


def evaluating(message: str) -> list[conditions.Desired]:
    return [
        conditions.Desired(conditions.READY, "Unknown", "Evaluating", "no decision yet"),
        conditions.Desired(conditions.COMPLETED, "False", "Evaluating", message),
        conditions.Desired(conditions.RECONCILING, "True", "Evaluating", message),
        conditions.Desired(conditions.STALLED, "False", "Evaluating", "making progress"),
    ]


def _approval(
    spec: CampaignSpec,
    decision: DecisionReport,
    generation: int,
    current: CampaignStatus,
    approved_by: str | None,
    at: str,
) -> ApprovalStatus | None:
    """Manual approval of a decided promotion: kept once given for this generation and winner, given by
    the annotation's author, else awaited. None when nothing needs approving."""
    if spec.approval != "Manual" or not decision.promote or decision.winner is None:
        return None
    prior = current.approval
    if (
        prior is not None
        and prior.state == "Approved"
        and prior.generation == generation
        and prior.winner == decision.winner
    ):
        return prior
    if approved_by:
        return ApprovalStatus(
            state="Approved",
            winner=decision.winner,
            generation=generation,
            approved_by=approved_by[:253],
            approved_at=at,
        )
    return ApprovalStatus(state=AWAITING_APPROVAL, winner=decision.winner, generation=generation)


def campaign_status(
    spec: CampaignSpec,
    wanted: list[Entry],
    existing: Mapping[str, Obj],
    generation: int,
    current: CampaignStatus,
    approved_by: str | None = None,
) -> CampaignStatus:
    """The status of `generation`: progress while Evaluations run, the decision once all finished (a
    promotion under `approval: Manual` waits for `approved_by`, the approving annotation's value)."""
    children = {e.evaluation: have for e in wanted if (have := up_to_date(e, existing)) is not None}
    done = [e for e in wanted if e.evaluation in children and finished(children[e.evaluation])]
    progress = f"{len(done)}/{len(wanted)}"
    report: DecisionReport | None = None
    status = CampaignStatus(
        observed_generation=generation,
        key=list(spec.key),
        progress=progress,
        highest_mean=None,
        winner=None,
        promote=None,
        reasons=None,
        grid=grid_status(spec.grid),
    )
    if len(done) < len(wanted):
        message = f"{progress} Evaluations have a verdict; waiting for the rest"
        desired = evaluating(message)
    else:
        standings = {e.candidate.name: standing(e.candidate.name, children[e.evaluation]) for e in wanted}
        candidates = [standings[e.candidate.name] for e in wanted if e.role == "candidate"]
        incumbent = next((standings[e.candidate.name] for e in wanted if e.role == "incumbent"), None)
        try:
            rules = PromotionRules(min_confidence=spec.min_confidence, max_judge_drop=spec.max_judge_drop)
            report = report_of(decide(candidates, incumbent, tuple(spec.key), spec.on_tie, rules))
        except NotComparable as exc:
            message = f"no promotion: {exc}"
            status.promote = False
            status.reasons = [message[:MAX_REASON]]
            desired = decided(False, "NotComparable", message)
        else:
            status.highest_mean = report.highest_mean
            status.winner = report.winner
            status.promote = report.promote
            status.reasons = [r[:MAX_REASON] for r in report.reasons]
            message = report.verdict
            reason = "Promote" if report.promote else "NoPromotion" if report.winner else "NoWinner"
            desired = decided(report.promote, reason, message)
            status.approval = _approval(spec, report, generation, current, approved_by, conditions.now())
            if status.approval is not None and status.approval.state == AWAITING_APPROVAL:
                desired = awaiting_approval(status.approval.winner, message)
            elif status.approval is not None:
                message = f"{message}; approved by {status.approval.approved_by}"
                desired = decided(True, "Approved", message)
    rows = [_row(e, children.get(e.evaluation), report) for e in wanted]
    status.candidates = [r for r in rows if r.role == "candidate"]
    status.incumbent = next((r for r in rows if r.role == "incumbent"), None)
    status.message = message[:4096]
    status.conditions = conditions.merge(current.conditions, desired, generation)
    return status


def conflict_status(current: CampaignStatus, generation: int, message: str) -> CampaignStatus:
    """A child's name is taken by an object that is not ours: not decided, retried, stalled meanwhile."""
    return _undecided(current, generation, message, conditions.waiting("NameConflict", message, stalled=True))


def invalid_status(current: CampaignStatus, generation: int, message: str) -> CampaignStatus:
    return _undecided(current, generation, message, decided(False, "InvalidSpec", message))


def _undecided(
    current: CampaignStatus, generation: int, message: str, desired: list[conditions.Desired]
) -> CampaignStatus:
    return CampaignStatus(
        observed_generation=generation,
        promote=False,
        message=message[:4096],
        conditions=conditions.merge(current.conditions, desired, generation),
    )


def parse_status(status: Any) -> CampaignStatus:
    return CampaignStatus.model_validate(dict(status or {}))
