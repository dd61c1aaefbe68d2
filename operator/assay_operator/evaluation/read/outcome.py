"""What became of a run's Job, read from the Job and its pods (pure): still running, succeeded with a
RunSummary bound to what the Job mounted (the judge Job), or failed with the precise reason (either Job).

Fail closed: a Job that failed, ran out of time, was OOM-killed, or finished without a summary that validates
is an outcome "failed" with the reason — never a Pass. The summary is accepted only from a container that
exited 0 (the runner exits 0 for both verdicts in a Job; non-zero means it could not run).

A `split` that fails for a `suite.oci` is named SuitePullFailed with the runner's words (the registry could
not be reached, refused the digest, the bytes did not verify, or the artifact is not a suite). One bad
input is the spec's and says so: `isolation: required` on a node whose kernel lacks the Landlock ABI
it needs (the runner exits 2 naming the ABI) is InvalidSpec, the reason an Evaluation refused before its Job
has, rather than the Job's PodFailurePolicy.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from assay_operator.cluster_views import Job, Pod, Terminated
from assay_operator.evaluation.build.layout import ANSWER_CONTAINER, JUDGE_CONTAINER, SPLIT_CONTAINER
from assay_operator.evaluation.build.names import (
    ANNOTATION_BRAIN,
    ANNOTATION_KEY,
    ANNOTATION_PUBLIC,
    ANNOTATION_SUITE_ARTIFACT,
)
from assay_runner.contract import SUMMARY_SCHEMA_VERSION, RunSummary, isolation_shortfall

SUITE_PULL_FAILED = "SuitePullFailed"
"""A `suite.oci` artifact that could not be pulled (registry unreachable, refused, no such digest), did not
verify against its digest, or is not a suite: its `split` init container exited 2."""


@dataclass(frozen=True)
class Outcome:
    """What became of a Job."""

    state: str
    """running | succeeded | failed"""
    reason: str = ""
    message: str = ""
    summary: RunSummary | None = None


def _terminated(pod: Pod, name: str = JUDGE_CONTAINER) -> Terminated | None:
    container = pod.container(name)
    if container is None:
        return None
    return container.state.terminated or container.last_state.terminated


def _phases_terminated(pod: Pod) -> list[tuple[str, Terminated]]:
    """Each phase's container that terminated, the pod's order (the answer phase first)."""
    found = []
    for name in (SPLIT_CONTAINER, ANSWER_CONTAINER, JUDGE_CONTAINER):
        terminated = _terminated(pod, name)
        if terminated is not None:
            found.append((name, terminated))
    return found


def _oom(pods: list[Pod]) -> tuple[str, Terminated] | None:
    for pod in pods:
        for name, terminated in _phases_terminated(pod):
            if terminated.reason == "OOMKilled" or terminated.exit_code == 137:
                return name, terminated
    return None


def digest_mismatch(job: Job, summary: RunSummary) -> str:
    """Empty when the RunSummary is bound to what this Job mounted: the brain snapshot, and for a ConfigMap
    suite the public part and the key. A summary that names other inputs is not this Job's verdict."""
    annotations = job.metadata.annotations
    reported = summary.inputs
    checks = (
        ("brain", ANNOTATION_BRAIN, reported.brain_digest),
        ("suite's public part", ANNOTATION_PUBLIC, reported.public_digest),
        ("answer key", ANNOTATION_KEY, reported.key_digest),
    )
    for what, annotation, value in checks:
        expected = annotations.get(annotation)
        if expected is not None and value != expected:
            return (
                f"the RunSummary's {what} digest {value or '(none)'} is not the snapshot's {expected}: the "
                "verdict is not bound to what this Job mounted"
            )
    return ""


def parse_summary(message: str) -> tuple[RunSummary | None, str]:
    if not message.strip():
        return None, "the runner wrote no summary to its termination message"
    try:
        summary = RunSummary.model_validate_json(message)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        return None, f"the termination message is not a valid RunSummary: {where}: {first['msg']}"
    if summary.schema_version != SUMMARY_SCHEMA_VERSION:
        # Fail closed: a newer runner's summary may mean something this operator cannot read.
        return None, (
            f"the RunSummary has schemaVersion {summary.schema_version}; this operator reads "
            f"{SUMMARY_SCHEMA_VERSION}: run a runner image that matches the operator"
        )
    return summary, ""


def classify(job: Job, pods: list[Pod]) -> Outcome:
    complete = job.condition("Complete")
    failed = job.condition("Failed")
    if complete is None and failed is None:
        return Outcome("running")
    if failed is not None:
        reason = failed.reason or "JobFailed"
        message = failed.message or ""
        oom = _oom(pods)
        if oom is not None:
            container, killed = oom
            return Outcome(
                "failed",
                "OOMKilled",
                f"the {container} container was OOMKilled (exit code {killed.exit_code}): raise "
                f"spec.resources.memory or lower spec.concurrency. Job: {reason}: {message}",
            )
        hints = {
            "DeadlineExceeded": "the evaluation ran past spec.deadlineSeconds (or its pod never started): "
            "raise the deadline, lower the ticket count or raise concurrency",
            "BackoffLimitExceeded": "the runner pod failed and its retries are used up; see the pod's logs",
            "PodFailurePolicy": "the runner could not run (bad input); its message says what is wrong",
            "FailedIndexes": "every answer shard failed and used up its retries; see the pods' logs",
        }
        failures = [
            (name, t) for pod in pods for name, t in _phases_terminated(pod) if t.message and t.exit_code
        ]
        artifact = job.metadata.annotations.get(ANNOTATION_SUITE_ARTIFACT)
        if failures and failures[0][0] == SPLIT_CONTAINER and artifact is not None:
            return Outcome(
                "failed",
                SUITE_PULL_FAILED,
                f"the suite artifact {artifact} could not be pulled, verified and split (spec.suite.oci): "
                f"{(failures[0][1].message or '').strip()[:600]}",
            )
        terminal = failures[0][1] if failures else None
        shortfall = (
            isolation_shortfall(terminal.message or "") if terminal and terminal.exit_code == 2 else None
        )
        if shortfall is not None:
            return Outcome(
                "failed",
                "InvalidSpec",
                f"the node that ran the answer pod cannot meet the suite: {shortfall[:600]}",
            )
        detail = f": {(terminal.message or '').strip()[:400]}" if terminal else ""
        return Outcome("failed", reason, f"{hints.get(reason, 'the Job failed')} ({message}){detail}")
    succeeded = [p for p in pods if p.status.phase == "Succeeded"]
    terminated = next((t for t in map(_terminated, succeeded) if t is not None), None)
    if terminated is None:
        return Outcome(
            "failed",
            "ResultUnreadable",
            "the Job completed but no runner pod with a termination message was found (pods gone?)",
        )
    if terminated.exit_code != 0:
        return Outcome("failed", "ResultUnreadable", f"the runner exited {terminated.exit_code}")
    summary, problem = parse_summary(terminated.message or "")
    if summary is None:
        return Outcome("failed", "ResultUnreadable", problem)
    mismatch = digest_mismatch(job, summary)
    if mismatch:
        return Outcome("failed", "ResultUnreadable", mismatch)
    return Outcome("succeeded", "Completed", "", summary)
