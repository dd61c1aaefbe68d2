"""Kueue: an Evaluation that names a LocalQueue (`spec.queueName`) has its Job created suspended with the
queue label; Kueue makes a Workload of it, admits it when the ClusterQueue has quota, and resumes it.

Everything the operator knows about queueing lives here: the labels a run's Job carries and how to read,
from the Job, whether it waits in its queue or was admitted. The unit of admission is the run's Job; when a
run becomes several Jobs (an answer Job of several shards and a judge Job), the shards must still be admitted
together: the answer Job's pods form one Workload (an Indexed Job's parallelism is one pod set), and only that
Job carries the queue label (the judge Job runs after it, on the quota the answer phase released).
"""

from __future__ import annotations

from dataclasses import dataclass

from assay_operator.cluster_views import Job
from assay_operator.evaluation.api import EvaluationSpec

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def job_labels(spec: EvaluationSpec) -> dict[str, str]:
    return {QUEUE_LABEL: spec.queue_name} if spec.queue_name else {}


def suspended(spec: EvaluationSpec) -> bool | None:
    """Created suspended when queued (Kueue resumes it on admission); otherwise the API's default."""
    return True if spec.queue_name else None


@dataclass(frozen=True)
class QueueState:
    queue: str
    admitted: bool


def queue_state(job: Job) -> QueueState | None:
    """Whether a queued run's Job still waits for admission (suspended) or was admitted (resumed); None for
    a Job that names no queue."""
    queue = job.metadata.labels.get(QUEUE_LABEL)
    if not queue:
        return None
    return QueueState(queue=queue, admitted=not job.spec.suspend)
