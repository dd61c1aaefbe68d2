"""Where a run's answer Job stands (pure), read from the Job and its pods: which shards succeeded, which
failed for good and why, how many cells are answered of how many, and — once the Job is over — whether the
judge phase runs.

The judge runs when at least one shard succeeded: the shards that failed for good go to it with their reason
(`shard.failed` in its RunConfig) and block the verdict on their cells, named. With no shard answered, or
bad input (the Job failed at once: every shard reads the same inputs), there is nothing to judge: the run
ends with the answer Job's own failure (outcome.classify), as a one-pod run did.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import ValidationError

from assay_operator import bounded
from assay_operator.cluster_views import Job, Pod, Terminated, holds
from assay_operator.evaluation.api import MAX_SHARD_REASON
from assay_operator.evaluation.build.layout import ANSWER_CONTAINER, SPLIT_CONTAINER
from assay_operator.evaluation.read.outcome import Outcome, classify
from assay_runner.contract import AnswerSummary
from assay_runner.errors import ExitCode

INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
REASONS = {"FailedIndexes": "BackoffLimitExceeded"}
"""The answer Job's own reasons, as the Evaluation reports them (every shard used up its retries)."""
NO_JUDGE_REASONS = frozenset({"PodFailurePolicy"})
"""The answer Job failed for a reason no shard escapes: nothing is judged."""


@dataclass(frozen=True)
class AnswersState:
    shards: int
    succeeded: frozenset[int] = frozenset()
    failed: dict[int, str] = field(default_factory=dict)
    """Shards that failed for good -> why (only once the Job is over, or the Job says so)."""
    cells_done: int | None = None
    cells_total: int | None = None
    finished: bool = False
    failure: Outcome | None = None
    """Set when the Job is over and nothing can be judged: the run's outcome."""

    @property
    def judge(self) -> bool:
        return self.finished and self.failure is None


def indexes(text: str | None) -> set[int]:
    """A Job's `completedIndexes` / `failedIndexes`: "1,3-5" -> {1, 3, 4, 5}."""
    found: set[int] = set()
    for part in (text or "").split(","):
        if not part.strip():
            continue
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


def _index(pod: Pod) -> int | None:
    value = pod.metadata.annotations.get(INDEX_ANNOTATION)
    return int(value) if value is not None and value.isdigit() else None


def _terminated(pod: Pod) -> tuple[str, Terminated] | None:
    """The container that ended the pod: the split (when it failed) or the answer container."""
    for name in (SPLIT_CONTAINER, ANSWER_CONTAINER):
        for container in pod.containers:
            if container.name != name:
                continue
            terminated = container.state.terminated
            if terminated is not None and (terminated.exit_code or name == ANSWER_CONTAINER):
                return name, terminated
    return None


def _evicted(pod: Pod) -> bool:
    return holds(pod.status.conditions, "DisruptionTarget") is not None


def shard_failure(pods: list[Pod]) -> str:
    """Why one shard failed for good, from its pods (every attempt): how often, and how the last ended."""
    failed = [p for p in pods if p.status.phase == "Failed" and not _evicted(p)]
    if not failed:
        return "the answer Job stopped it before it finished"
    failed.sort(key=lambda p: p.metadata.creation_timestamp or "")
    attempts = f"its pod failed {len(failed)} time{'s' if len(failed) > 1 else ''}"
    ended = _terminated(failed[-1])
    if ended is None:
        return f"{attempts}: {failed[-1].status.reason or 'no container ran'}"
    name, terminated = ended
    code = terminated.exit_code
    if terminated.reason == "OOMKilled":
        detail = (
            f"the {name} container was OOMKilled (exit code {code}): raise spec.resources.memory or lower "
            "spec.concurrency"
        )
    elif code == ExitCode.TERMINATED and name == ANSWER_CONTAINER:
        # Its message is the AnswerSummary of what it had answered: the words say more.
        detail = (
            f"the {name} container was stopped by SIGTERM (exit code {code}: its pod was deleted, evicted, "
            "drained or preempted) before every cell finished"
        )
    else:
        message = (terminated.message or "").strip()
        detail = f"the {name} container exited {code}" + (f": {message[-300:]}" if message else "")
    return bounded.text(f"{attempts}; the last: {detail}", MAX_SHARD_REASON)


def _summary(pod: Pod) -> AnswerSummary | None:
    ended = _terminated(pod)
    if ended is None or ended[0] != ANSWER_CONTAINER:
        return None
    try:
        return AnswerSummary.model_validate_json(ended[1].message or "")
    except ValidationError:
        return None  # a runner that wrote none: the count is unknown, not wrong


def read(job: Job, pods: list[Pod]) -> AnswersState:
    shards = job.spec.completions or 1
    succeeded = frozenset(indexes(job.status.completed_indexes))
    by_index: dict[int, list[Pod]] = {}
    for pod in pods:
        index = _index(pod)
        if index is not None:
            by_index.setdefault(index, []).append(pod)
    summaries = [
        found
        for index in succeeded
        for pod in by_index.get(index, [])
        if pod.status.phase == "Succeeded" and (found := _summary(pod)) is not None
    ]
    cells_done = sum(s.answered for s in summaries) if summaries else None
    cells_total = summaries[0].total if summaries else None
    failed_indexes = indexes(job.status.failed_indexes)
    complete, failed_job = job.condition("Complete"), job.condition("Failed")
    if complete is None and failed_job is None:
        failed = {i: shard_failure(by_index.get(i, [])) for i in sorted(failed_indexes)}
        return AnswersState(shards, succeeded, failed, cells_done, cells_total)
    reason = (failed_job.reason if failed_job is not None else None) or ""
    unfinished = set(range(shards)) - succeeded
    failed = {}
    for index in sorted(unfinished):
        if index in failed_indexes:
            failed[index] = shard_failure(by_index.get(index, []))
        else:  # the Job ended first (its deadline): what the shard had answered is not sealed
            failed[index] = f"the answer Job ended ({reason or 'failed'}) before this shard finished"
    failure = None
    if failed_job is not None and (not succeeded or reason in NO_JUDGE_REASONS):
        outcome = classify(job, pods)
        failure = Outcome(outcome.state, REASONS.get(outcome.reason, outcome.reason), outcome.message)
    return AnswersState(shards, succeeded, failed, cells_done, cells_total, True, failure)
