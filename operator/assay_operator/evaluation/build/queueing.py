"""Kueue: an Evaluation that names a LocalQueue (`spec.queueName`) has its Job created suspended with the
queue label; Kueue makes a Workload of it, admits it when the ClusterQueue has quota, and resumes it.

Everything the operator knows about queueing lives here: the labels a run's Jobs carry and how to read,
from a Job, whether it waits in its queue or was admitted. The unit of admission is a Job: the answer Job's
pods form one Workload (an Indexed Job's parallelism is one pod set, so its shards are admitted together),
and the judge Job, made once the answers are in, is a second Workload in the same queue — its pod holds a
runner's requests too, so it waits for quota like any other rather than run beside the quota.
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
