"""A queued run's place in its Kueue queue, shown on the Evaluation: the Queued condition is True (reason
Queued, naming the queue and the Job) while Kueue keeps one of the run's Jobs suspended, and turns False
(reason Admitted) when Kueue admits that Job and resumes it — the answer Job first, then the judge Job.
Read from the Job's watch events (queueing.queue_state): Kueue's own Workload objects are not read, so the
operator needs no permission on them."""

from __future__ import annotations

import threading

from assay_operator import conditions
from assay_operator.cluster_views import Job
from assay_operator.evaluation.build import names, queueing
from assay_operator.evaluation.read import progress, reconcile
from assay_operator.evaluation.steps import serial
from assay_operator.evaluation.steps.watched import Watched

_lock = threading.Lock()
_shown: dict[tuple[str, str], bool] = {}
"""(namespace, job) -> the admission last written, so a Job event that changes nothing costs no request."""


def job_seen(job: Job, namespace: str, evaluation: str, generation: int) -> None:
    state = queueing.queue_state(job)
    if state is None:
        return
    name = job.metadata.name
    with _lock:
        if _shown.get((namespace, name)) == state.admitted:
            return
    # After the run's start has written its status (the start holds this lock): what is read here names
    # the run's Jobs.
    with serial.lock(namespace, evaluation):
        _show(job, state, namespace, evaluation, generation)


def _show(job: Job, state: queueing.QueueState, namespace: str, evaluation: str, generation: int) -> None:
    name = job.metadata.name
    watched = Watched.read(namespace, evaluation)
    if watched is None or watched.generation != generation:
        return
    status = watched.status
    if name not in reconcile.run_jobs(status) or conditions.holds(
        status.conditions, conditions.COMPLETED, generation
    ):
        return  # not the current run, or it already has its verdict
    queued = conditions.find(status.conditions, conditions.QUEUED)
    want = "False" if state.admitted else "True"
    if queued is None or queued.status != want or queued.observed_generation != generation:
        if state.admitted:
            judging = job.metadata.labels.get(names.LABEL_COMPONENT) == names.JUDGE
            patch = progress.admitted_status(status, generation, name, state.queue, judging)
        else:
            patch = progress.queued_status(status, generation, name, state.queue)
        if watched.write(patch) is None:
            return
    with _lock:
        _shown[(namespace, name)] = state.admitted
