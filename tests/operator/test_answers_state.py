"""An answer Job's shards, read from the Job and its pods: what succeeded, what failed for good and why, the
cells answered, and whether the judge runs."""

from __future__ import annotations

from typing import Any

import pytest

from assay_operator.cluster_views import Job, Pod
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.evaluation.read import answers_state, progress, reconcile
from assay_runner.contract import AnswerSummary
from assay_runner.sandbox.policy import shortfall


def job(
    shards: int, completed: str = "", failed: str = "", condition: str | None = None, reason: str = ""
) -> Job:
    status: dict[str, Any] = {"completedIndexes": completed, "failedIndexes": failed}
    if condition:
        status["conditions"] = [{"type": condition, "status": "True", "reason": reason, "message": "m"}]
    return Job.of({"metadata": {"name": "e-g1-answer"}, "spec": {"completions": shards}, "status": status})


def pod(
    index: int,
    phase: str,
    exit_code: int = 0,
    message: str = "",
    reason: str = "Completed",
    created: str = "2026-01-01T00:00:00Z",
    evicted: bool = False,
) -> Pod:
    terminated = {"exitCode": exit_code, "reason": reason, "message": message}
    conditions = [{"type": "DisruptionTarget", "status": "True"}] if evicted else []
    return Pod.of(
        {
            "metadata": {
                "annotations": {"batch.kubernetes.io/job-completion-index": str(index)},
                "creationTimestamp": created,
            },
            "status": {
                "phase": phase,
                "conditions": conditions,
                "containerStatuses": [{"name": "answer", "state": {"terminated": terminated}}],
            },
        }
    )


def summary(index: int, answered: int) -> str:
    return AnswerSummary(shard=(index, 3), cells=5, answered=answered, total=15).to_json()


@pytest.mark.parametrize(
    ("text", "expected"), [("", set()), (None, set()), ("0", {0}), ("1,3-5,9", {1, 3, 4, 5, 9})]
)
def test_indexes_are_read_as_the_job_writes_them(text: str | None, expected: set[int]) -> None:
    assert answers_state.indexes(text) == expected


def test_progress_counts_cells_of_the_shards_that_finished() -> None:
    pods = [
        pod(0, "Succeeded", message=summary(0, 5)),
        pod(2, "Succeeded", message=summary(2, 4)),
        pod(1, "Running"),
    ]
    state = answers_state.read(job(3, completed="0,2"), pods)
    assert not state.finished and not state.judge and state.failure is None
    assert (state.succeeded, state.cells_done, state.cells_total) == (frozenset({0, 2}), 9, 15)
    status = progress.answer_status(state, "e-g1-answer", "e-g1-answers")
    assert (status.shards_summary, status.cells_summary) == ("2/3", "9/15")


def test_a_shard_that_failed_for_good_is_judged_with_its_reason_named() -> None:
    pods = [
        pod(0, "Succeeded", message=summary(0, 5)),
        pod(2, "Succeeded", message=summary(2, 5)),
        pod(1, "Failed", 137, reason="OOMKilled", created="2026-01-01T00:00:01Z"),
        pod(1, "Failed", 137, reason="OOMKilled", created="2026-01-01T00:00:09Z"),
        pod(1, "Failed", 137, reason="Error", evicted=True),  # an eviction is not an attempt
    ]
    state = answers_state.read(job(3, "0,2", "1", "Failed", "FailedIndexes"), pods)
    assert state.finished and state.judge and set(state.failed) == {1}
    reason = state.failed[1]
    assert reason.startswith(
        "its pod failed 2 times; the last: the answer container was OOMKilled (exit code 137)"
    )
    assert "spec.resources.memory" in reason
    status = progress.answer_status(state, "e-g1-answer", None)
    assert status.shards_summary == "2/3 (1 failed)" and status.failed[0].index == 1


def test_a_crash_names_the_exit_code_and_the_runners_last_words() -> None:
    pods = [pod(0, "Succeeded"), pod(1, "Failed", 1, "Traceback ... RuntimeError: boom", reason="Error")]
    state = answers_state.read(job(2, "0", "1", "Failed", "FailedIndexes"), pods)
    assert state.judge and state.failed == {
        1: "its pod failed 1 time; the last: the answer container exited 1: Traceback ... RuntimeError: boom"
    }
    assert state.cells_done is None  # a runner that wrote no summary: unknown, not zero


def test_a_shard_deleted_on_every_attempt_says_sigterm_stopped_it() -> None:
    stopped = AnswerSummary(shard=(1, 2), cells=3, answered=1, total=6, stopped="signal").to_json()
    pods = [pod(0, "Succeeded"), pod(1, "Failed", 143, stopped, reason="Error")]
    state = answers_state.read(job(2, "0", "1", "Failed", "FailedIndexes"), pods)
    assert state.failed == {
        1: "its pod failed 1 time; the last: the answer container was stopped by SIGTERM (exit code 143: its "
        "pod was deleted, evicted, drained or preempted) before every cell finished"
    }


def test_nothing_answered_ends_the_run_with_the_answer_jobs_own_reason() -> None:
    pods = [pod(0, "Failed", 137, reason="OOMKilled"), pod(0, "Failed", 137, reason="OOMKilled")]
    state = answers_state.read(job(1, "", "0", "Failed", "FailedIndexes"), pods)
    assert state.finished and not state.judge and state.failure is not None
    assert (
        state.failure.reason == "OOMKilled" and "the answer container was OOMKilled" in state.failure.message
    )
    crashed = answers_state.read(
        job(1, "", "0", "Failed", "FailedIndexes"), [pod(0, "Failed", 1, reason="Error")]
    )
    assert crashed.failure is not None and crashed.failure.reason == "BackoffLimitExceeded"


def test_bad_input_is_never_judged_even_when_a_shard_finished_first() -> None:
    pods = [pod(0, "Succeeded"), pod(1, "Failed", 2, "bad input: no judge named vibes", reason="Error")]
    state = answers_state.read(job(2, "0", "", "Failed", "PodFailurePolicy"), pods)
    assert state.failure is not None and state.failure.reason == "PodFailurePolicy"
    assert "vibes" in state.failure.message


@pytest.mark.parametrize("abi", [0, 5])
def test_isolation_required_on_a_kernel_short_of_it_is_an_invalid_spec(abi: int) -> None:
    """The answer pod's runner refused `isolation: required` (exit 2): its log's tail, the termination message
    (FallbackToLogsOnError), holds the runner's own words. The run ends Blocked, Stalled with reason
    InvalidSpec, the message naming what the kernel offers and the ABI needed."""
    log = f"reading suite\nassay: error: bad input\n{shortfall(abi)}\n"
    pods = [pod(0, "Failed", 2, log, reason="Error"), pod(1, "Failed", 2, log, reason="Error")]
    state = answers_state.read(job(2, "", "0,1", "Failed", "PodFailurePolicy"), pods)
    assert state.finished and not state.judge and state.failure is not None
    assert state.failure.reason == "InvalidSpec", state.failure
    offers = "no Landlock" if abi == 0 else f"Landlock ABI {abi}"
    assert f"this kernel offers {offers}; ABI 6 or later" in state.failure.message
    status = reconcile.finished_status(state.failure, EvaluationStatus(), 3, "t", "e-g3").to_patch()
    stalled = next(c for c in status["conditions"] if c["type"] == "Stalled")
    assert (
        status["verdict"] == "Blocked" and stalled["status"] == "True" and stalled["reason"] == "InvalidSpec"
    )
    assert f"this kernel offers {offers}" in stalled["message"] and offers in status["message"]


def test_other_bad_input_keeps_the_jobs_reason() -> None:
    """Only the runner's own isolation refusal is read as the spec's: a message that merely quotes it from
    a container that did not exit 2 is the Job's failure as before."""
    quoted = f"Traceback ... {shortfall(0)}"
    pods = [pod(0, "Failed", 1, quoted, reason="Error")]
    state = answers_state.read(job(1, "", "0", "Failed", "FailedIndexes"), pods)
    assert state.failure is not None and state.failure.reason == "BackoffLimitExceeded"


def test_a_deadline_judges_what_was_answered_and_blocks_the_rest() -> None:
    pods = [pod(0, "Succeeded"), pod(1, "Failed", 143, reason="Error")]
    state = answers_state.read(job(3, "0", "", "Failed", "DeadlineExceeded"), pods)
    assert state.judge and set(state.failed) == {1, 2}
    assert state.failed[2] == "the answer Job ended (DeadlineExceeded) before this shard finished"
    never = answers_state.read(job(2, "", "", "Failed", "DeadlineExceeded"), [])
    assert never.failure is not None and never.failure.reason == "DeadlineExceeded"


def test_a_complete_job_is_judged_whole() -> None:
    state = answers_state.read(job(2, "0-1", "", "Complete"), [pod(0, "Succeeded"), pod(1, "Succeeded")])
    assert state.judge and state.failed == {} and state.succeeded == frozenset({0, 1})
