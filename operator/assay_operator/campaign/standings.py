"""Standings: what each finished Evaluation's gate decided on, read from its status, and each contender's row
of the Campaign's table once the decision is made. The decision itself is
`assay_runner.core.decision.decide`, the code `assay compare` runs, so a Campaign and `assay compare` cannot
disagree.

Fail closed: an Evaluation that ended without a readable summary (its Job failed) is a candidate with no
coverage, so it is visible but ineligible.
"""

from __future__ import annotations

from assay_operator.campaign.api import CandidateStatus, VsIncumbentStatus
from assay_operator.campaign.children import Child, evaluation_status, finished
from assay_operator.campaign.plan import Entry
from assay_operator.evaluation.api import EvaluationStatus, RuleStatus
from assay_runner.core.decision_report import CandidateRow, DecisionReport, Versus, row_figures
from assay_runner.core.standing import Standing
from assay_runner.core.statistics import Paired
from assay_runner.vocabulary import GateRule


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
    failed_rules = tuple(f"{r.name}: {r.detail}" for r in status.rules or [] if not r.passed and not r.shadow)
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
        shadow_judges=frozenset(status.shadow_judges or {}),
        cost_usd=status.usage.cost_usd if status.usage is not None else None,
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


def standing(name: str, evaluation: Child) -> Standing:
    return standing_of(name, evaluation_status(evaluation))


def _row(entry: Entry, evaluation: Child | None, report: DecisionReport | None) -> CandidateStatus:
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
    """A decided candidate's figures, as the status's fields (a figure it does not have is left unset): the
    runner's one list (decision_report.row_figures), as `assay compare --json` shows them."""
    figures = {
        **row_figures(row),
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
