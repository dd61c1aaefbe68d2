"""Pure reconciliation: from what the cluster shows (the run's outcome, outcome.py) to the Evaluation's
status.

Every shape the status takes — waiting for a dependency, invalid, running, finished, refused — is built here,
once, as a typed `EvaluationStatus` cut to the schema's bounds (assay_operator.bounded); the handlers only
patch it. Fail closed everywhere: a failed run gives verdict Blocked with Stalled=True and the precise
reason — never Pass, never silence.

The status is two things. Some fields are a journal: the operator reads them back on a later event to decide
what to do, so a write there is a decision. The rest are observations: written for people, dashboards and
GitOps tools, never read back to decide anything.

- journal (read back): `observedGeneration` (whose run: run_started, verdict_written, superseded_run);
  `jobName` and `rerun` (which run: run_started, run_jobs, superseded_run, judging's check of the answer
  Job's judge); `answer` (run_jobs; judging writes it only when it changed); the conditions Completed,
  Stalled, Queued and StartBlocked (verdict_written, admission, pod_start, the wait for a ConfigMap,
  override); `startTime` (pod_start's grace, finish's run seconds); `verdict`, `message` and `override`
  (override keeps the gate's own verdict and words; judging looks whether `message` says "judging").
- observations (never read back): `score`, `judges`, `judgesPassing`, `shadowJudges`, `rules`, `tickets`,
  `repetitions`, `usage`, `inputs`, `mlflow`, `paired` (the RunSummary's figures), `completionTime`, and
  the conditions Ready and Reconciling.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from assay_operator import bounded, conditions, seals, status_writer
from assay_operator.evaluation.api import (
    MAX_DETAIL,
    MAX_FAILING,
    MAX_FLAKY,
    MAX_MESSAGE_LENGTH,
    MAX_PAIRED,
    MAX_RULES,
    MAX_SHADOW_JUDGES,
    MAX_SHADOW_REASON,
    AnswerStatus,
    ConversationsStatus,
    EvaluationStatus,
    InputsStatus,
    MlflowStatus,
    OverrideStatus,
    PairedStatus,
    RepetitionsStatus,
    RuleStatus,
    TicketsStatus,
    UsageStatus,
)
from assay_operator.evaluation.read.outcome import Outcome
from assay_runner.contract import RunSummary
from assay_runner.vocabulary import Verdict


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def verdict_status(summary: RunSummary) -> EvaluationStatus:
    """The figures of a RunSummary, as the status shows them (scores to three places)."""
    counts = summary.counts
    figures = summary.repetitions
    return EvaluationStatus(
        verdict=summary.verdict,
        score=_round(summary.score),
        judges={name: _round(mean) for name, mean in summary.judges.items()},
        rules=_rules(summary),
        judges_passing=counts.judges_passing,
        shadow_judges=_shadow_judges(summary),
        tickets=TicketsStatus(
            total=counts.tickets,
            passed=counts.passed_tickets,
            summary=f"{counts.passed_tickets}/{counts.tickets}",
            failing=list(summary.failing_tickets)[:MAX_FAILING],
            flaky=counts.flaky_tickets,
        ),
        usage=UsageStatus(
            input_tokens=summary.usage.input_tokens,
            output_tokens=summary.usage.output_tokens,
            cost_usd=round(summary.usage.cost_usd, 6),
        ),
        conversations=None
        if summary.conversations is None
        else ConversationsStatus.model_validate(summary.conversations.model_dump()),
        inputs=InputsStatus.model_validate(summary.inputs.model_dump()),
        paired=_paired(summary),
        mlflow=MlflowStatus(
            tracking_uri=summary.mlflow.tracking_uri,
            experiment_id=summary.mlflow.experiment_id,
            run_id=summary.mlflow.run_id,
            logged=summary.mlflow.logged,
        ),
        repetitions=None
        if figures is None
        else RepetitionsStatus(
            k=figures.k,
            pass_rate=_round(figures.pass_rate),
            pass_at_k=_round(figures.pass_at_k),
            pass_hat_k=_round(figures.pass_hat_k),
            fully_resolved=figures.fully_resolved,
            flaky=figures.flaky[:MAX_FLAKY],
        ),
    )


def _rules(summary: RunSummary) -> list[RuleStatus]:
    """The gate's rules, at most MAX_RULES: failed rules first when there are more, the last line counting
    the rules left out (the full list is in the result on MLflow)."""
    rules = [
        RuleStatus(
            name=r.name,
            passed=r.passed,
            detail=bounded.text(r.detail, MAX_DETAIL),
            value=r.value,
            shadow=True if r.shadow else None,
        )
        for r in summary.rules
    ]
    if len(rules) <= MAX_RULES:
        return rules
    ordered = sorted(rules, key=lambda r: r.passed)  # stable: failed rules first, each group in order
    kept, left = ordered[: MAX_RULES - 1], ordered[MAX_RULES - 1 :]
    detail = f"{len(left)} more rules ({sum(not r.passed for r in left)} failed): see the full result"
    return [*kept, RuleStatus(name="more", passed=all(r.passed for r in left), detail=detail)]


def _shadow_judges(summary: RunSummary) -> dict[str, str] | None:
    """The judges that ran without gating, with why (None when every judge gates, as before they existed)."""
    if not summary.shadow_judges:
        return None
    kept = list(summary.shadow_judges.items())[:MAX_SHADOW_JUDGES]
    return {name: bounded.text(why, MAX_SHADOW_REASON) for name, why in kept}


def _paired(summary: RunSummary) -> PairedStatus | None:
    """Per-ticket figures for a Campaign's paired tests; left out past MAX_PAIRED tickets (a Campaign then
    compares those Evaluations by their reductions only, as when the summary had no room)."""
    paired = summary.paired
    if paired is None or len(paired.scores) > MAX_PAIRED or len(paired.resolved) > MAX_PAIRED:
        return None
    return PairedStatus.model_validate(paired.model_dump())


NO_FIGURES: dict[str, None] = dict.fromkeys(
    (
        "score",
        "judges",
        "judges_passing",
        "shadow_judges",
        "rules",
        "tickets",
        "repetitions",
        "paired",
        "usage",
    )
)
"""A Blocked status that rests on no gate's figures clears them all: named (set to None), each is sent as
a null in the status patch, which removes what an earlier run or a forged write left."""


def blocked_reasons(summary: RunSummary) -> str:
    """The gate's failed rules, each with its detail, as status.message says them (cut to its bound)."""
    failed = [f"{r.name}: {r.detail}" for r in summary.rules if not r.passed and not r.shadow]
    return bounded.text("Blocked: " + "; ".join(failed), MAX_MESSAGE_LENGTH)


def finished_status(
    outcome: Outcome, current: EvaluationStatus, generation: int, completion_time: str, job_name: str
) -> EvaluationStatus:
    """The status of a finished run of `generation`: the verdict, or Blocked with the reason the Job gave."""
    if outcome.summary is not None:
        summary = outcome.summary
        status = verdict_status(summary)
        if status.inputs is not None and current.inputs is not None:
            # A `suite.oci` run's artifact, set at its start: the judge pod's split pulled it by that digest
            # and verified it (the runner's `assay score` reads the split folder, not the artifact).
            status.inputs.suite_artifact_digest = (
                status.inputs.suite_artifact_digest or current.inputs.suite_artifact_digest
            )
        if summary.verdict == "Pass":
            message = f"Pass: score {summary.score:.3f}, every gate rule passed"
            desired = conditions.finished("Pass", "Passed", message)
        else:
            message = blocked_reasons(summary)
            desired = conditions.finished("Blocked", "GateBlocked", message)
    else:
        message = bounded.text(f"Blocked: {outcome.reason}: {outcome.message}", MAX_MESSAGE_LENGTH)
        status = EvaluationStatus(verdict="Blocked", **NO_FIGURES)
        desired = conditions.finished("Blocked", outcome.reason, message)
    status.observed_generation = generation
    status.job_name = job_name
    status.completion_time = completion_time
    status.message = message
    ended = conditions.settled(current.conditions, "RunEnded", "the run ended")
    status.conditions = conditions.merge(current.conditions, [*desired, *ended], generation)
    return status


def running_status(
    current: EvaluationStatus,
    generation: int,
    job_name: str,
    brain_digest: str,
    started: str,
    suite_digests: tuple[str | None, str | None] = (None, None),
    rerun: str | None = None,
    answer: AnswerStatus | None = None,
    suite_artifact: str | None = None,
) -> EvaluationStatus:
    """A new run of `generation` has its answer Job (`answer`); `job_name` is its judge Job, made once the
    answers are in. Every figure of an earlier run is cleared. `suite_artifact`: the manifest digest of a
    `suite.oci` suite, which its pods pull by."""
    again = f" (rerun {rerun[:64]!r})" if rerun else ""
    if answer is None:
        message = f"running Job {job_name} for generation {generation}{again}"
    else:
        message = (
            f"answering with Job {answer.job_name} ({answer.shards} shard(s)) for generation {generation}"
            f"{again}; then judging with Job {job_name}"
        )
    return EvaluationStatus(
        observed_generation=generation,
        job_name=job_name,
        answer=answer,
        rerun=rerun[:253] if rerun else None,
        start_time=started,
        completion_time=None,
        verdict=None,
        score=None,
        judges=None,
        judges_passing=None,
        shadow_judges=None,
        rules=None,
        tickets=None,
        repetitions=None,
        usage=None,
        mlflow=None,
        paired=None,
        override=None,
        message=message,
        inputs=InputsStatus(
            brain_digest=brain_digest,
            public_digest=suite_digests[0],
            key_digest=suite_digests[1],
            suite_artifact_digest=suite_artifact,
        ),
        conditions=conditions.merge(
            current.conditions,
            [*conditions.running(message), *conditions.settled(current.conditions, "NewRun", message)],
            generation,
        ),
    )


def with_conditions(
    status: EvaluationStatus, desired: list[conditions.Desired], generation: int
) -> EvaluationStatus:
    """`status` with `desired` merged into its conditions (the network probe's beside the run's)."""
    if not desired:
        return status
    merged = conditions.merge(status.conditions, desired, generation)
    return status.model_copy(update={"conditions": merged})


def waiting_status(
    current: EvaluationStatus, generation: int, reason: str, message: str, stalled: bool
) -> EvaluationStatus:
    """A dependency (the brain's or the suite's ConfigMap) does not exist yet."""
    message = bounded.text(message, MAX_MESSAGE_LENGTH)
    return EvaluationStatus(
        observed_generation=generation,
        message=message,
        conditions=conditions.merge(
            current.conditions, conditions.waiting(reason, message, stalled), generation
        ),
    )


def invalid_status(current: EvaluationStatus, generation: int, message: str) -> EvaluationStatus:
    """The spec cannot be run: Blocked at once, no Job."""
    message = bounded.text(message, MAX_MESSAGE_LENGTH)
    return EvaluationStatus(
        observed_generation=generation,
        verdict="Blocked",
        message=message,
        conditions=conditions.merge(
            current.conditions, conditions.finished("Blocked", "InvalidSpec", message), generation
        ),
    )


def image_refused_status(
    current: EvaluationStatus, generation: int, reason: str, message: str
) -> EvaluationStatus:
    """The runner image failed verification: Blocked at once, no Job, the ImageVerified condition naming
    why (assay_operator.image_verification's reasons)."""
    return verification_refused_status(current, generation, conditions.IMAGE_VERIFIED, reason, message)


def verification_refused_status(
    current: EvaluationStatus, generation: int, condition: str, reason: str, message: str
) -> EvaluationStatus:
    """What the run needs failed verification (the runner image: ImageVerified; the suite's artifact:
    SuiteVerified): Blocked at once, no Job, that condition False naming why."""
    message = bounded.text(message, MAX_MESSAGE_LENGTH)
    desired = [
        *conditions.finished("Blocked", reason, message),
        conditions.Desired(condition, "False", reason, message),
    ]
    return EvaluationStatus(
        observed_generation=generation,
        verdict="Blocked",
        message=message,
        conditions=conditions.merge(current.conditions, desired, generation),
    )


OVERRIDE = "override"
"""The kind of decision an override's seal names (assay_operator.seals)."""


def override_written_by_operator(override: OverrideStatus, uid: str) -> bool:
    return seals.verifies(OVERRIDE, uid, override.sealed_fields(), override.seal)


def overridden_status(
    current: EvaluationStatus,
    generation: int,
    verdict: Verdict,
    reason: str,
    by: str,
    at: str,
    uid: str = "",
) -> EvaluationStatus:
    """A person overrode the verdict of `generation`: the verdict and the conditions follow the override
    (Ready, Stalled: what GitOps tools act on), the status says who, why and what the gate said; the
    override carries the operator's seal (with `uid`, the Evaluation's)."""
    gate = current.override.gate_verdict if current.override is not None else current.verdict or "Blocked"
    message = bounded.text(
        f"{verdict} by override of {by}: {reason} (the gate's verdict: {gate}: {current.message or ''})",
        MAX_MESSAGE_LENGTH,
    )
    override = OverrideStatus(
        verdict=verdict,
        gate_verdict=gate,
        reason=bounded.text(reason, 1024),
        by=bounded.text(by, 253),
        at=at,
        generation=generation,
    )
    override.seal = seals.seal(OVERRIDE, uid, override.sealed_fields())
    passed = verdict == "Pass"
    desired = [
        conditions.Desired(conditions.READY, "True" if passed else "False", "Overridden", message),
        conditions.Desired(conditions.COMPLETED, "True", "Overridden", message),
        conditions.Desired(conditions.RECONCILING, "False", "Completed", "the run finished"),
        conditions.Desired(conditions.STALLED, "False" if passed else "True", "Overridden", message),
    ]
    return EvaluationStatus(
        verdict=verdict,
        override=override,
        message=message,
        conditions=conditions.merge(current.conditions, desired, generation),
    )


def decision_reverted(current: EvaluationStatus, generation: int, message: str) -> EvaluationStatus:
    """The decision in the status (an override, or the verdict itself) was not written by the operator:
    the override removed, and the verdict fails closed until the Evaluation runs again. Every decisive
    field is written (verdict_seal.FIELDS), none kept from the status it replaces, which is not the
    operator's: the score, the judges' means and the figures a Campaign reads are cleared; the run named is
    the one the status names."""
    message = bounded.text(message, MAX_MESSAGE_LENGTH)
    return EvaluationStatus(
        observed_generation=generation,
        job_name=current.job_name,
        verdict="Blocked",
        **NO_FIGURES,
        override=None,
        message=message,
        conditions=conditions.merge(
            current.conditions, conditions.finished("Blocked", "DecisionReverted", message), generation
        ),
    )


def refused_status(current: EvaluationStatus, generation: int, problem: str) -> EvaluationStatus:
    """The status the operator meant to write was refused (assay_operator.status_writer): Stalled with the
    reason, so nobody waits for a status that never comes. The conditions are replaced whole: only what
    this says is certain."""
    message = bounded.text(
        f"the operator could not write this Evaluation's status: {problem}", MAX_MESSAGE_LENGTH
    )
    desired = conditions.waiting(status_writer.REASON, message, stalled=True)
    return EvaluationStatus(
        observed_generation=generation,
        message=message,
        conditions=conditions.merge(None, desired, generation),
    )


def run_started(current: EvaluationStatus, generation: int, job_name: str, rerun: str | None = None) -> bool:
    """The status already names this generation's Job (resumed after a restart: its watch brings the
    verdict) — or the run was a rerun and the annotation is gone now, which asks for nothing new."""
    if current.observed_generation != generation:
        return False
    return current.job_name == job_name or (not rerun and current.rerun is not None)


def run_jobs(current: EvaluationStatus) -> set[str]:
    """The Jobs of the run the status describes: its answer Job and its judge Job."""
    found = {current.job_name} if current.job_name else set()
    if current.answer is not None and current.answer.job_name:
        found.add(current.answer.job_name)
    return found


def superseded_run(current: EvaluationStatus, generation: int, job_name: str) -> bool:
    """The Job is an earlier run of this generation, replaced by a rerun: its result is not the verdict."""
    return (
        current.observed_generation == generation
        and current.job_name is not None
        and current.job_name != job_name
    )


def verdict_written(current: EvaluationStatus, generation: int, job_name: str) -> bool:
    return (
        conditions.holds(current.conditions, conditions.COMPLETED, generation)
        and current.job_name == job_name
    )


def seconds_between(start: str, end: datetime) -> float:
    """Seconds from an RFC 3339 timestamp (a Job's startTime) to `end`, never negative."""
    started = datetime.fromisoformat(start.replace("Z", "+00:00"))
    return max(0.0, (end - started).total_seconds())


def parse_status(status: Any) -> EvaluationStatus:
    """The stored status as the typed model (the apiserver has pruned it to the schema's fields)."""
    return EvaluationStatus.model_validate(dict(status or {}))
