"""Pure reconciliation of a Campaign: which Evaluations should exist, which to start now, and the decision.

No I/O here: the handlers list the Campaign's Evaluations, call `plan` and `campaign_status`, and apply the
result. The decision is `assay_runner.core.decision.decide`, fed with standings read from each Evaluation's
status — the numbers its gate decided on — so a Campaign and `assay compare` cannot disagree.

Fail closed: an Evaluation that ended without a readable summary (its Job failed) is a candidate with no
coverage, so it is visible but ineligible; candidates evaluated on different tickets, suites or repetition
counts are not compared at all; a campaign whose decision cannot be made promotes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from assay_operator import conditions
from assay_operator.campaign.api import CampaignSpec, CandidateSpec
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.builders import bounded_name
from assay_runner.core.decision import Decision, NotComparable, Standing, decide, standing_row

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

Role = Literal["candidate", "incumbent"]
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


def entries(campaign: str, spec: CampaignSpec) -> list[Entry]:
    """Incumbent first: it is the reference every candidate is measured against."""
    wanted: list[tuple[Role, CandidateSpec]] = [("incumbent", spec.incumbent)] if spec.incumbent else []
    wanted += [("candidate", c) for c in spec.candidates]
    return [Entry(role, c, evaluation_name(campaign, c.name), evaluation_spec(spec, c)) for role, c in wanted]


def evaluation_body(campaign: str, entry: Entry) -> Obj:
    return {
        "apiVersion": "assay.dev/v1alpha1",
        "kind": "Evaluation",
        "metadata": {"name": entry.evaluation, "labels": child_labels(campaign, entry)},
        "spec": entry.spec,
    }


def finished(evaluation: Obj) -> bool:
    """The Evaluation's current generation has its verdict (a stale verdict of an older spec does not
    count)."""
    generation = evaluation["metadata"].get("generation")
    status = evaluation.get("status") or {}
    completed = conditions.find(status.get("conditions"), conditions.COMPLETED)
    return (
        status.get("verdict") in ("Pass", "Blocked")
        and status.get("observedGeneration") == generation
        and completed is not None
        and completed.get("status") == "True"
        and completed.get("observedGeneration") == generation
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


def _rule(status: Obj, name: str) -> Obj | None:
    return next((r for r in status.get("rules") or [] if r.get("name") == name), None)


def standing(name: str, evaluation: Obj) -> Standing:
    """A finished Evaluation's standing, read from its status. Without a summary (the Job failed, the
    summary was unreadable) it has no coverage: visible, never eligible."""
    status = evaluation.get("status") or {}
    repetitions = status.get("repetitions") or {}
    tickets = status.get("tickets") or {}
    score_rule, floor_rule, complete_rule = (_rule(status, n) for n in ("score", "ticketFloor", "complete"))
    has_summary = status.get("score") is not None and complete_rule is not None
    mean = float(status.get("score") or 0.0)
    if score_rule is not None and score_rule.get("value") is not None:
        mean = float(score_rule["value"])  # unrounded: what the score rule compared
    fully_resolved = int(repetitions.get("fullyResolved") or 0)
    failed_rules = tuple(
        f"{r['name']}: {r.get('detail', '')}" for r in status.get("rules") or [] if not r.get("passed")
    )
    return Standing(
        name=name,
        verdict=str(status.get("verdict") or "Blocked"),
        mean=mean,
        reductions={
            "fully-resolved": float(fully_resolved),
            "mean": mean,
            "lowest-ticket": float((floor_rule or {}).get("value") or 0.0),
            "judges-passing": float(status.get("judgesPassing") or 0),
        },
        complete=bool(has_summary and complete_rule and complete_rule.get("passed")),
        coverage=float((complete_rule or {}).get("value") or 0.0) if has_summary else 0.0,
        pass_rate=float(repetitions.get("passRate") or 0.0),
        pass_at_k=float(repetitions.get("passAtK") or 0.0),
        pass_hat_k=float(repetitions.get("passHatK") or 0.0),
        fully_resolved=fully_resolved,
        tickets=int(tickets.get("total") or 0),
        k=int(repetitions.get("k") or 0),
        suite_digest=(status.get("inputs") or {}).get("suiteDigest"),
        blocked_because=failed_rules or ((str(status.get("message")),) if not has_summary else ()),
    )


def _row(entry: Entry, evaluation: Obj | None, decision: Decision | None) -> Obj:
    phase = "Pending" if evaluation is None else ("Finished" if finished(evaluation) else "Running")
    row: Obj = {
        "name": entry.candidate.name,
        "role": entry.role,
        "evaluation": entry.evaluation,
        "phase": phase,
    }
    if evaluation is not None and phase == "Finished":
        row["verdict"] = (evaluation.get("status") or {}).get("verdict")
    if decision is not None and evaluation is not None:
        found = next(
            (s for s in [*decision.candidates, decision.incumbent] if s and s.name == entry.candidate.name),
            None,
        )
        if found is not None:
            row.update({k: v for k, v in standing_row(decision, found).items() if v is not None})
            if entry.role == "incumbent":
                row.pop("rankByKey", None)
                row.pop("rankByMean", None)
    return row


def decided(promote: bool, reason: str, message: str) -> list[conditions.Desired]:
    """Ready = a promotion was decided. A campaign that keeps the incumbent is finished, not failing, but a
    promotion gated on it must not proceed: Ready False and Stalled True, as for a Blocked Evaluation."""
    return [
        conditions.Desired(conditions.READY, "True" if promote else "False", reason, message),
        conditions.Desired(conditions.COMPLETED, "True", "Decided", message),
        conditions.Desired(conditions.RECONCILING, "False", "Decided", "every Evaluation has a verdict"),
        conditions.Desired(conditions.STALLED, "False" if promote else "True", reason, message),
    ]


def campaign_status(
    spec: CampaignSpec, wanted: list[Entry], existing: Mapping[str, Obj], generation: int, current: Obj
) -> Obj:
    """The status block of `generation`: progress while Evaluations run, the decision once all finished."""
    children = {e.evaluation: have for e in wanted if (have := up_to_date(e, existing)) is not None}
    done = [e for e in wanted if e.evaluation in children and finished(children[e.evaluation])]
    progress = f"{len(done)}/{len(wanted)}"
    decision: Decision | None = None
    status: Obj = {
        "observedGeneration": generation,
        "key": list(spec.key),
        "progress": progress,
        "highestMean": None,
        "winner": None,
        "promote": None,
        "reasons": None,
    }
    if len(done) < len(wanted):
        message = f"{progress} Evaluations have a verdict; waiting for the rest"
        desired = [
            conditions.Desired(conditions.READY, "Unknown", "Evaluating", "no decision yet"),
            conditions.Desired(conditions.COMPLETED, "False", "Evaluating", message),
            conditions.Desired(conditions.RECONCILING, "True", "Evaluating", message),
            conditions.Desired(conditions.STALLED, "False", "Evaluating", "making progress"),
        ]
    else:
        standings = {e.candidate.name: standing(e.candidate.name, children[e.evaluation]) for e in wanted}
        candidates = [standings[e.candidate.name] for e in wanted if e.role == "candidate"]
        incumbent = next((standings[e.candidate.name] for e in wanted if e.role == "incumbent"), None)
        try:
            decision = decide(candidates, incumbent, tuple(spec.key), spec.on_tie)
        except NotComparable as exc:
            message = f"no promotion: {exc}"
            status.update({"promote": False, "reasons": [message[:MAX_REASON]]})
            desired = decided(False, "NotComparable", message)
        else:
            status.update(
                {
                    "highestMean": decision.highest_mean,
                    "winner": decision.winner,
                    "promote": decision.promote,
                    "reasons": [r[:MAX_REASON] for r in decision.reasons],
                }
            )
            message = decision.reasons[-1]
            reason = "Promote" if decision.promote else "NoPromotion" if decision.winner else "NoWinner"
            desired = decided(decision.promote, reason, message)
    rows = [_row(e, children.get(e.evaluation), decision) for e in wanted]
    status["candidates"] = [r for r in rows if r["role"] == "candidate"]
    status["incumbent"] = next((r for r in rows if r["role"] == "incumbent"), None)
    status["message"] = message[:4096]
    status["conditions"] = conditions.merge(current.get("conditions"), desired, generation)
    return status


def conflict_status(current: Obj, generation: int, message: str) -> Obj:
    """A child's name is taken by an object that is not ours: not decided, retried, stalled meanwhile."""
    return _undecided(current, generation, message, conditions.waiting("NameConflict", message, stalled=True))


def invalid_status(current: Obj, generation: int, message: str) -> Obj:
    return _undecided(current, generation, message, decided(False, "InvalidSpec", message))


def _undecided(current: Obj, generation: int, message: str, desired: list[conditions.Desired]) -> Obj:
    return {
        "observedGeneration": generation,
        "promote": False,
        "message": message[:4096],
        "conditions": conditions.merge(current.get("conditions"), desired, generation),
    }
