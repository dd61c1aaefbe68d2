"""Between a run's two Jobs: as the answer Job's shards finish, their progress goes into the status (shards
and cells done); once it is over, the judge Job is made — its RunConfig names the shards that failed for
good, so the verdict blocks on their cells with the reason — or, when nothing can be judged, the run ends
with the answer Job's own failure (answers_state.py).

Exactly one judge Job per run: its name is fixed by the run (the answer Job's annotation names it) and a
409 is adopted, so the watch, the run's start taking a second look, a restarted operator or a second
replica never make two.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import cast

import kopf

from assay_operator import events, kube, metrics
from assay_operator.cluster_views import Job
from assay_operator.evaluation.api import AnswerStatus
from assay_operator.evaluation.build import judge_job, runconfig
from assay_operator.evaluation.build.names import ANNOTATION_JUDGE_JOB, claim_name
from assay_operator.evaluation.build.snapshots import Snapshots
from assay_operator.evaluation.read import answers_state, progress, reconcile
from assay_operator.evaluation.steps import finish, serial
from assay_operator.evaluation.steps.watched import Watched
from assay_operator.startup import settings

log = logging.getLogger("assay.operator")


def _current(job: Job, namespace: str, evaluation: str, generation: int) -> tuple[Watched, str] | None:
    """The Evaluation and the run's judge Job, when `job` is the answer Job of its current run and that run
    has no verdict yet."""
    watched = Watched.read(namespace, evaluation)
    if watched is None or watched.generation != generation:
        return None
    if not watched.owns(job):
        return None  # the answer Job of a deleted Evaluation that had this name
    judge = job.metadata.annotations.get(ANNOTATION_JUDGE_JOB)
    status = watched.status
    if judge is None or status.job_name != judge or reconcile.verdict_written(status, generation, judge):
        return None
    return watched, judge


def answer_job_seen(job: Job, namespace: str, evaluation: str, generation: int) -> None:
    with serial.lock(namespace, evaluation):
        current = _current(job, namespace, evaluation, generation)
        if current is None:
            return
        watched, judge = current
        status = watched.status
        answer_name = job.metadata.name
        state = answers_state.read(job, finish.pods_of(namespace, answer_name))
        answer = progress.answer_status(state, answer_name, claim_name(evaluation, generation))
        if not state.finished:
            if status.answer != answer:
                watched.write(progress.answering_status(answer))
            return
        if state.failure is not None:  # nothing to judge: the answer Job's failure is the run's outcome
            watched.write(progress.answering_status(answer))
            finish.record(state.failure, watched, generation, judge, job.status.start_time)
            return
        _start_judge(watched, job, judge, state, answer)


def _start_judge(
    watched: Watched,
    answer_job: Job,
    judge: str,
    state: answers_state.AnswersState,
    answer: AnswerStatus,
) -> None:
    namespace, evaluation, generation = watched.namespace, watched.name, watched.generation
    status = watched.status
    spec = watched.spec  # valid: its answer Job exists
    operator = settings()
    started = answer_job.status.start_time
    elapsed = reconcile.seconds_between(started, datetime.now(UTC)) if started else 0.0
    snapshots = Snapshots.from_annotations(evaluation, answer_job.metadata.annotations)
    rerun = status.rerun
    config_map = runconfig.build_judge_config_map(
        spec, evaluation, namespace, generation, operator, state.failed, rerun
    ).body()
    job = judge_job.build_judge_job(
        spec,
        evaluation,
        generation,
        snapshots,
        operator,
        runconfig.judge_deadline(spec.deadline_seconds, elapsed),
        rerun,
    ).body()
    assert job["metadata"]["name"] == judge, (job["metadata"]["name"], judge)
    # The status first: the judge Job's verdict (seconds later at the earliest) must not be overwritten.
    if status.answer != answer or not (status.message or "").startswith("judging"):
        written = watched.write(progress.judging_status(status, generation, judge, answer))
        if written is None:
            return
    for child in (config_map, job):
        kopf.adopt(child, owner=cast(kopf.Body, watched.body))
    kube.create(kube.core().create_namespaced_config_map, namespace, config_map)
    if kube.create(kube.batch().create_namespaced_job, namespace, job):
        metrics.JOBS_CREATED.inc()
        failed = (
            f"; shard(s) {', '.join(map(str, sorted(state.failed)))} failed for good" if state.failed else ""
        )
        events.normal(
            watched.body,
            "JudgeJobCreated",
            f"created Job {judge}: judging {answer.shards_summary} shards{failed}",
        )
        log.info("Evaluation %s/%s: answers in, judging with Job %s", namespace, evaluation, judge)
