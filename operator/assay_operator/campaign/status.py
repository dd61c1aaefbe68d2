"""A Campaign's status: progress while its Evaluations run, then the decision, as typed `CampaignStatus` with
standard conditions (Ready = a promotion was decided; Stalled = none will be), and the approval a manual
promotion waits for.

Pure: built from the wanted entries and the parsed children; the handlers patch it. Fail closed: candidates
evaluated on different tickets, suites or repetition counts are not compared at all; a campaign whose
decision cannot be made promotes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay_operator import approvals, bounded, conditions, seals, status_writer
from assay_operator.campaign.api import (
    APPROVED_BY,
    AWAITING_APPROVAL,
    MAX_MESSAGE_LENGTH,
    MAX_REASON_LENGTH,
    MAX_REASONS,
    ApprovalStatus,
    CampaignSpec,
    CampaignStatus,
    GridSpec,
    GridStatus,
)
from assay_operator.campaign.children import Child, finished
from assay_operator.campaign.plan import Entry, up_to_date
from assay_operator.campaign.standings import _row, standing
from assay_runner.core.decision import PromotionRules, decide
from assay_runner.core.decision_report import DecisionReport, report_of
from assay_runner.core.standing import NotComparable

REASONS_ELSEWHERE = "each candidate's row in status.candidates says whether it is eligible"


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


def awaiting_approval(winner: str, generation: int, message: str) -> list[conditions.Desired]:
    """Decided to promote, waiting for a person: not Ready (nothing may gate on it yet), not stalled."""
    waiting = f"the promotion of {winner} awaits approval: annotate {approval_hint(generation, winner)}"
    return [
        conditions.Desired(conditions.READY, "False", AWAITING_APPROVAL, waiting),
        conditions.Desired(conditions.COMPLETED, "True", "Decided", message),
        conditions.Desired(conditions.RECONCILING, "False", AWAITING_APPROVAL, waiting),
        conditions.Desired(conditions.STALLED, "False", AWAITING_APPROVAL, waiting),
        conditions.Desired(AWAITING_APPROVAL, "True", AWAITING_APPROVAL, waiting),
    ]


def approval_hint(generation: int, winner: str) -> str:
    """What a person writes to approve this promotion, their own user name first."""
    return f"the Campaign with {APPROVED_BY}={approvals.binding_value('<you>', generation, winner)}"


APPROVAL = "approval"
"""The kind of decision an approval's seal names (assay_operator.seals)."""


def sealed(approval: ApprovalStatus, uid: str) -> ApprovalStatus:
    """The approval with the operator's seal over it and the Campaign's uid. Every field is set (None too),
    so the merge patch replaces a stored approval whole: no field of another writer's survives beside it."""
    fields = approval.sealed_fields()
    return ApprovalStatus.model_validate({**fields, "seal": seals.seal(APPROVAL, uid, fields)})


def written_by_operator(approval: ApprovalStatus, uid: str) -> bool:
    return seals.verifies(APPROVAL, uid, approval.sealed_fields(), approval.seal)


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
    uid: str,
) -> ApprovalStatus | None:
    """Manual approval of a decided promotion: kept once given for this generation and winner (and sealed
    by the operator: one it did not write counts for nothing), given by an annotation naming this
    generation and winner (`alice@g1:cited`), else awaited. None when nothing needs approving."""
    if spec.approval != "Manual" or not decision.promote or decision.winner is None:
        return None
    prior = current.approval
    if (
        prior is not None
        and prior.state == "Approved"
        and prior.generation == generation
        and prior.winner == decision.winner
        and written_by_operator(prior, uid)
    ):
        return prior
    bound = approvals.parse_binding(approved_by)
    if (
        approved_by
        and bound is not None
        and approvals.binding_problem(approved_by, generation, decision.winner, "promotion") is None
    ):
        approval = ApprovalStatus(
            state="Approved",
            winner=decision.winner,
            generation=generation,
            approved_by=bound.user[:253],
            approved_at=at,
        )
    else:
        approval = ApprovalStatus(state=AWAITING_APPROVAL, winner=decision.winner, generation=generation)
    return sealed(approval, uid)


def campaign_status(
    spec: CampaignSpec,
    wanted: list[Entry],
    existing: Mapping[str, Child],
    generation: int,
    current: CampaignStatus,
    approved_by: str | None = None,
    uid: str = "",
) -> CampaignStatus:
    """The status of `generation`: progress while Evaluations run, the decision once all finished (a
    promotion under `approval: Manual` waits for `approved_by`, the approving annotation's value; `uid`,
    the Campaign's, is in the approval's seal)."""
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
        approval=None,  # set, so the patch clears an approval of another generation (or not the operator's)
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
            status.reasons = [bounded.text(message, MAX_REASON_LENGTH)]
            desired = decided(False, "NotComparable", message)
        else:
            status.highest_mean = report.highest_mean
            status.winner = report.winner
            status.promote = report.promote
            status.reasons = bounded.lines(report.reasons, MAX_REASONS, MAX_REASON_LENGTH, REASONS_ELSEWHERE)
            message = report.verdict
            reason = "Promote" if report.promote else "NoPromotion" if report.winner else "NoWinner"
            desired = decided(report.promote, reason, message)
            at = conditions.now()
            status.approval = _approval(spec, report, generation, current, approved_by, at, uid)
            if status.approval is not None and status.approval.state == AWAITING_APPROVAL:
                desired = awaiting_approval(status.approval.winner, generation, message)
            elif status.approval is not None:
                message = f"{message}; approved by {status.approval.approved_by}"
                desired = decided(True, "Approved", message)
    rows = [_row(e, children.get(e.evaluation), report) for e in wanted]
    status.candidates = [r for r in rows if r.role == "candidate"]
    status.incumbent = next((r for r in rows if r.role == "incumbent"), None)
    status.message = bounded.text(message, MAX_MESSAGE_LENGTH)
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
        approval=None,  # nothing is approved while undecided (and an approval not the operator's goes)
        message=bounded.text(message, MAX_MESSAGE_LENGTH),
        conditions=conditions.merge(current.conditions, desired, generation),
    )


def refused_status(current: CampaignStatus, generation: int, problem: str) -> CampaignStatus:
    """The status the operator meant to write was refused or could not be made: Stalled with the reason, so
    nobody waits for a decision that never comes. The conditions are replaced whole."""
    message = bounded.text(
        f"the operator could not write this Campaign's status: {problem}", MAX_REASON_LENGTH
    )
    desired = conditions.waiting(status_writer.REASON, message, stalled=True)
    return CampaignStatus(
        observed_generation=generation,
        message=message,
        conditions=conditions.merge(None, desired, generation),
    )


def parse_status(status: Any) -> CampaignStatus:
    return CampaignStatus.model_validate(dict(status or {}))
