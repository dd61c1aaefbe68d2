"""From Job and pod states to the Evaluation status: every failure path blocks, with its reason."""

from __future__ import annotations

from typing import Any

from assay_operator import conditions
from assay_operator.cluster_views import Job, Pod
from assay_operator.evaluation.api import MAX_MESSAGE_LENGTH, EvaluationStatus
from assay_operator.evaluation.read import outcome as job_outcome
from assay_operator.evaluation.read import reconcile
from assay_runner.contract import Inputs, RunSummary, SummaryCounts, SummaryRule


def summary(verdict: str = "Pass") -> RunSummary:
    return RunSummary(
        verdict=verdict,
        score=0.95 if verdict == "Pass" else 0.5,
        judges={"kb": 1.0, "quality": None},
        rules=[SummaryRule(name="score", passed=verdict == "Pass", detail="score 0.950 >= 0.900")],
        counts=SummaryCounts(tickets=4, passed_tickets=4 if verdict == "Pass" else 1, cells=4, errors=0),
        failing_tickets=[] if verdict == "Pass" else ["T-2", "T-3", "T-4"],
        inputs=Inputs(suite_digest="sha256:s", judges_digest="sha256:j", brain_digest="sha256:b"),
    )


def job_body(condition: str | None, reason: str = "", message: str = "") -> dict[str, Any]:
    status: dict[str, Any] = {}
    if condition:
        status["conditions"] = [{"type": condition, "status": "True", "reason": reason, "message": message}]
    return {"metadata": {"name": "e-g1"}, "status": status}


def job(condition: str | None, reason: str = "", message: str = "") -> Job:
    return Job.of(job_body(condition, reason, message))


def pod(phase: str, exit_code: int, message: str = "", reason: str = "Completed") -> Pod:
    terminated = {"exitCode": exit_code, "reason": reason, "message": message}
    return Pod.of(
        {
            "status": {
                "phase": phase,
                "containerStatuses": [{"name": "judge", "state": {"terminated": terminated}}],
            }
        }
    )


def test_running() -> None:
    assert job_outcome.classify(job(None), []).state == "running"


def test_success_with_valid_summary() -> None:
    outcome = job_outcome.classify(
        job("Complete"), [pod("Succeeded", 0, summary().model_dump_json(by_alias=True))]
    )
    assert outcome.state == "succeeded" and outcome.summary is not None and outcome.summary.verdict == "Pass"


def test_success_without_summary_is_unreadable() -> None:
    outcome = job_outcome.classify(job("Complete"), [pod("Succeeded", 0, "")])
    assert (outcome.state, outcome.reason) == ("failed", "ResultUnreadable")
    assert "no summary" in outcome.message


def test_a_summary_of_another_schema_version_is_unreadable() -> None:
    future = summary().model_copy(update={"schema_version": 2}).model_dump_json(by_alias=True)
    outcome = job_outcome.classify(job("Complete"), [pod("Succeeded", 0, future)])
    assert (outcome.state, outcome.reason) == ("failed", "ResultUnreadable")
    assert "schemaVersion 2" in outcome.message


def test_garbage_summary_is_unreadable() -> None:
    outcome = job_outcome.classify(job("Complete"), [pod("Succeeded", 0, '{"verdict": "Pass"}')])
    assert outcome.reason == "ResultUnreadable" and "not a valid RunSummary" in outcome.message


def test_pass_claim_from_a_failed_container_is_not_accepted() -> None:
    outcome = job_outcome.classify(
        job("Complete"), [pod("Succeeded", 1, summary().model_dump_json(by_alias=True))]
    )
    assert outcome.reason == "ResultUnreadable"


def test_deadline() -> None:
    outcome = job_outcome.classify(
        job("Failed", "DeadlineExceeded", "Job was active longer than specified"), []
    )
    assert outcome.reason == "DeadlineExceeded" and "spec.deadlineSeconds" in outcome.message


def test_oom_is_named() -> None:
    outcome = job_outcome.classify(
        job("Failed", "BackoffLimitExceeded"), [pod("Failed", 137, "", "OOMKilled")]
    )
    assert outcome.reason == "OOMKilled" and "OOMKilled" in outcome.message and "memory" in outcome.message


def test_bad_input_carries_the_runners_message() -> None:
    outcome = job_outcome.classify(
        job("Failed", "PodFailurePolicy"),
        [pod("Failed", 2, "assay: error: bad input\nsuite.yaml:3: judges[0]...", "Error")],
    )
    assert outcome.reason == "PodFailurePolicy" and "suite.yaml:3" in outcome.message


def mounted(brain: str = "sha256:b", public: str | None = None, key: str | None = None) -> Job:
    """A finished Job annotated with the digests of the snapshots it mounted."""
    annotations = {"assay.dev/brain-digest": brain}
    if public is not None and key is not None:
        annotations |= {"assay.dev/suite-public-digest": public, "assay.dev/suite-key-digest": key}
    return Job.of({**job_body("Complete"), "metadata": {"name": "e-g1", "annotations": annotations}})


def test_a_summary_bound_to_the_mounted_snapshots_is_accepted() -> None:
    bound = summary()
    bound.inputs.public_digest, bound.inputs.key_digest = "sha256:p", "sha256:k"
    message = bound.model_dump_json(by_alias=True)
    outcome = job_outcome.classify(mounted(public="sha256:p", key="sha256:k"), [pod("Succeeded", 0, message)])
    assert outcome.state == "succeeded"


def test_a_foreign_brain_digest_blocks() -> None:
    message = summary().model_dump_json(by_alias=True)  # brain sha256:b
    outcome = job_outcome.classify(mounted(brain="sha256:other"), [pod("Succeeded", 0, message)])
    assert (outcome.state, outcome.reason) == ("failed", "ResultUnreadable")
    assert "brain digest sha256:b is not the snapshot's sha256:other" in outcome.message


def test_a_foreign_suite_part_blocks() -> None:
    bound = summary()
    bound.inputs.public_digest, bound.inputs.key_digest = "sha256:p", "sha256:forged"
    message = bound.model_dump_json(by_alias=True)
    outcome = job_outcome.classify(mounted(public="sha256:p", key="sha256:k"), [pod("Succeeded", 0, message)])
    assert outcome.reason == "ResultUnreadable" and "answer key digest sha256:forged" in outcome.message
    unbound = summary().model_dump_json(by_alias=True)  # no suite digests at all: not accepted either
    outcome = job_outcome.classify(mounted(public="sha256:p", key="sha256:k"), [pod("Succeeded", 0, unbound)])
    assert outcome.reason == "ResultUnreadable" and "(none)" in outcome.message


def test_an_oom_in_the_answer_phase_is_named() -> None:
    killed = {"exitCode": 137, "reason": "OOMKilled", "message": ""}
    failed = Pod.of(
        {
            "status": {
                "phase": "Failed",
                "initContainerStatuses": [{"name": "answer", "state": {"terminated": killed}}],
            }
        }
    )
    outcome = job_outcome.classify(job("Failed", "BackoffLimitExceeded"), [failed])
    assert outcome.reason == "OOMKilled" and "the answer container was OOMKilled" in outcome.message


def test_finished_status_pass() -> None:
    outcome = job_outcome.Outcome("succeeded", "Completed", "", summary())
    status = reconcile.finished_status(
        outcome, EvaluationStatus(), 4, "2026-12-02T00:00:00Z", "e-g4"
    ).to_patch()
    assert status["verdict"] == "Pass" and status["score"] == 0.95 and status["observedGeneration"] == 4
    # "flaky": null: this (older) summary does not count them, and the patch clears any stored count.
    assert status["tickets"] == {"total": 4, "passed": 4, "summary": "4/4", "failing": [], "flaky": None}
    ready, stalled = (next(c for c in status["conditions"] if c["type"] == t) for t in ("Ready", "Stalled"))
    assert ready["status"] == "True" and ready["observedGeneration"] == 4
    assert stalled and stalled["status"] == "False"


def test_finished_status_blocked_is_stalled_with_reason() -> None:
    outcome = job_outcome.Outcome("succeeded", "Completed", "", summary("Blocked"))
    status = reconcile.finished_status(outcome, EvaluationStatus(), 1, "t", "e-g1").to_patch()
    stalled, completed = (
        next(c for c in status["conditions"] if c["type"] == t) for t in ("Stalled", "Completed")
    )
    assert status["verdict"] == "Blocked" and stalled and stalled["status"] == "True"
    assert stalled["reason"] == "GateBlocked" and completed and completed["status"] == "True"
    assert status["tickets"]["failing"] == ["T-2", "T-3", "T-4"]


def test_failure_status_blocks() -> None:
    status = reconcile.finished_status(
        job_outcome.Outcome("failed", "OOMKilled", "boom"), EvaluationStatus(), 2, "t", "e-g2"
    ).to_patch()
    assert status["verdict"] == "Blocked" and "OOMKilled" in status["message"]
    assert next(c for c in status["conditions"] if c["type"] == "Stalled")["reason"] == "OOMKilled"


def test_transition_time_changes_only_on_flip() -> None:
    first = conditions.merge(None, conditions.running("m"), 1, at="T1")
    again = first
    for _ in range(10):
        again = conditions.merge(again, conditions.running("m2"), 1, at="T2")
    assert [c.last_transition_time for c in again] == ["T1"] * 4
    done = conditions.merge(again, conditions.finished("Pass", "Passed", "ok"), 1, at="T3")
    times = {c.type: c.last_transition_time for c in done}
    assert times == {"Ready": "T3", "Completed": "T3", "Reconciling": "T3", "Stalled": "T1"}


def test_an_override_records_who_why_and_what_the_gate_said() -> None:
    blocked = reconcile.finished_status(
        job_outcome.Outcome("failed", "DeadlineExceeded", "too slow"), EvaluationStatus(), 2, "t", "e-g2"
    )
    passed = reconcile.overridden_status(blocked, 2, "Pass", "known flaky ticket", "alice", "t2")
    assert passed.verdict == "Pass" and passed.override is not None
    assert (passed.override.by, passed.override.gate_verdict, passed.override.generation) == (
        "alice",
        "Blocked",
        2,
    )
    conditions_by_type = {c.type: c for c in passed.conditions or []}
    assert (conditions_by_type["Ready"].status, conditions_by_type["Ready"].reason) == ("True", "Overridden")
    assert conditions_by_type["Stalled"].status == "False"
    assert "by override of alice: known flaky ticket" in (passed.message or "")
    assert "the gate's verdict: Blocked" in (passed.message or "")
    # Overriding again keeps what the gate itself said; a new run clears the override.
    merged = EvaluationStatus.model_validate({**blocked.to_patch(), **passed.to_patch()})
    again = reconcile.overridden_status(merged, 2, "Blocked", "on second thought", "bob", "t3")
    assert again.override is not None and again.override.gate_verdict == "Blocked"
    running = reconcile.running_status(merged, 3, "e-g3", "sha256:b", "t4")
    assert running.to_patch()["override"] is None


def test_an_override_is_sealed_for_its_evaluation_and_one_not_sealed_is_undone() -> None:
    blocked = reconcile.finished_status(
        job_outcome.Outcome("failed", "DeadlineExceeded", "too slow"), EvaluationStatus(), 1, "t", "e-g1"
    )
    passed = reconcile.overridden_status(blocked, 1, "Pass", "flaky", "alice", "t2", uid="uid-1")
    assert passed.override is not None
    assert reconcile.override_written_by_operator(passed.override, "uid-1")
    assert not reconcile.override_written_by_operator(passed.override, "uid-2")  # another object's
    changed = passed.override.model_copy(update={"by": "mallory"})
    assert not reconcile.override_written_by_operator(changed, "uid-1")
    unsealed = passed.override.model_copy(update={"seal": None})
    assert not reconcile.override_written_by_operator(unsealed, "uid-1")

    merged = EvaluationStatus.model_validate({**blocked.to_patch(), **passed.to_patch()})
    undone = reconcile.decision_reverted(merged, 1, "status.override was not written by the operator")
    patch = undone.to_patch()
    assert patch["override"] is None and patch["verdict"] == "Blocked"
    by_type = {c.type: c for c in undone.conditions or []}
    assert (by_type["Ready"].status, by_type["Ready"].reason) == ("False", "DecisionReverted")
    assert (by_type["Stalled"].status, by_type["Stalled"].reason) == ("True", "DecisionReverted")


def test_every_status_message_is_cut_to_the_schemas_one_bound() -> None:
    """status.message has one bound, the schema's (api.MAX_MESSAGE_LENGTH): every writer cuts to it, none
    to a shorter one of its own, and none writes more than the apiserver would take."""
    long = "x" * (3 * MAX_MESSAGE_LENGTH)
    written = [
        reconcile.invalid_status(EvaluationStatus(), 1, long),
        reconcile.waiting_status(EvaluationStatus(), 1, "BrainNotFound", long, stalled=False),
        reconcile.refused_status(EvaluationStatus(), 1, long),
        reconcile.finished_status(
            job_outcome.Outcome("failed", "BadInput", long),
            EvaluationStatus(),
            1,
            "2026-01-01T00:00:00Z",
            "j",
        ),
    ]
    assert [len(status.message or "") for status in written] == [MAX_MESSAGE_LENGTH] * len(written)
