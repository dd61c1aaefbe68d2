"""A decision in an Evaluation's status that the operator did not write — its verdict, score, judges' means
or Ready/Completed conditions changed around admission, with no override (read/verdict_seal.py: their seal
does not verify) — is undone: re-derived from the run's judge Job when the operator can still read it (the
Job of this generation's run, owned by this Evaluation, finished: its pod's termination message is the
RunSummary the verdict was made from), else failed closed to Blocked (reason DecisionReverted) until the
Evaluation runs again. A Warning Event DecisionReverted names who wrote it, as managedFields record it.

A status with an override follows the override; one whose sealed override stands but whose verdict does
not verify fails closed too (the override is removed: it may be given again)."""

from __future__ import annotations

import logging

from assay_operator import conditions, events, field_managers
from assay_operator.evaluation.build import names
from assay_operator.evaluation.read import reconcile, verdict_seal
from assay_operator.evaluation.read.outcome import Outcome, classify
from assay_operator.evaluation.steps import finish
from assay_operator.evaluation.steps.watched import Watched

log = logging.getLogger("assay.operator.verdict")
DECISIVE_PATHS = [
    ("status", "verdict"),
    ("status", "score"),
    ("status", "judges"),
    ("status", "conditions"),
    ("status", "observedGeneration"),
    ("status", "jobName"),
    ("status", "verdictSeal"),
]


def foreign(watched: Watched) -> bool:
    """The status states a decision the operator did not seal."""
    return not verdict_seal.written_by_operator(watched.status, watched.uid)


def undo_foreign_latest(namespace: str, name: str) -> None:
    """`undo_foreign` on the Evaluation as it is now (a retry must not act on an older event's body)."""
    watched = Watched.read(namespace, name)
    if watched is not None and foreign(watched):
        undo_foreign(watched)


def judged(watched: Watched) -> tuple[str, Outcome] | None:
    """The finished judge Job of this generation's run and its outcome, as `finish` reads it; None when
    there is none to read (not finished, deleted after its TTL, not this Evaluation's)."""
    job_name = names.job_name(watched.name, watched.generation, watched.rerun)
    job = finish.read_job(job_name, watched.namespace)
    if job is None or not watched.owns(job) or not job.finished:
        return None
    if job.metadata.labels.get(names.LABEL_GENERATION) != str(watched.generation):
        return None
    outcome = classify(job, finish.pods_of(watched.namespace, job_name))
    return None if outcome.state == "running" else (job_name, outcome)


def undo_foreign(watched: Watched) -> None:
    status, generation = watched.status, watched.generation
    writer = field_managers.last_writer_of_any(watched.body, DECISIVE_PATHS)
    ready = conditions.find(status.conditions, conditions.READY)
    stated = (
        f"verdict {status.verdict}, score {status.score}, Ready "
        f"{'absent' if ready is None else f'{ready.status} ({ready.reason})'}"
    )
    found = None if status.override is not None else judged(watched)
    head = (
        f"the decision in the status ({stated}) was not written by the operator (no valid seal); written by "
        f"{writer}"
    )
    if found is not None:
        job_name, outcome = found
        completed = status.completion_time or conditions.now()
        written = watched.write(
            lambda: reconcile.finished_status(outcome, status, generation, completed, job_name)
        )
        if written is None:
            return
        message = f"{head}: restored from the run's judge Job {job_name}: {written.message or ''}"
    else:
        message = (
            f"{head}: undone, and the verdict is Blocked until the Evaluation runs again (set "
            f"{names.RERUN_ANNOTATION})"
        )
        if watched.write(lambda: reconcile.decision_reverted(status, generation, message)) is None:
            return
    events.warning(watched.body, "DecisionReverted", message)
    log.info("Evaluation %s/%s: %s", watched.namespace, watched.name, message)  # the Event warns
