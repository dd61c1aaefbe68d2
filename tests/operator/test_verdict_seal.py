"""The operator's seal on the decision an Evaluation's status states (evaluation/read/verdict_seal.py): each
status the operator writes is merge-patched onto a stored status here as the apiserver does (RFC 7386) and
read back, so what is checked is what a later event would see. On the control plane:
tests/operator_cluster/test_approvals.py."""

from __future__ import annotations

from typing import Any

import pytest

from assay_operator import conditions, seals
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.evaluation.read import outcome as job_outcome
from assay_operator.evaluation.read import progress, reconcile, verdict_seal
from tests.operator.test_reconcile import summary
from tests.operator.test_status_schema import full_summary

UID = "uid-1"


class Stored:
    """One Evaluation's stored status, written through the operator's one sealing path."""

    def __init__(self) -> None:
        self.body: dict[str, Any] = {}

    @property
    def status(self) -> EvaluationStatus:
        return reconcile.parse_status(self.body)

    def operator_writes(self, written: EvaluationStatus) -> None:
        self.body = verdict_seal.merge_patch(
            self.body, verdict_seal.sealed(written, self.status, UID).to_patch()
        )

    def someone_writes(self, patch: dict[str, Any]) -> None:
        self.body = verdict_seal.merge_patch(self.body, patch)

    def verifies(self, uid: str = UID) -> bool:
        return verdict_seal.written_by_operator(self.status, uid)


@pytest.fixture(autouse=True)
def process_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seals.KEY_FILE, raising=False)
    seals.KEY.reset()


def blocked_run(generation: int = 1) -> Stored:
    """An Evaluation whose run of `generation` the gate Blocked, each step written as the operator does."""
    stored = Stored()
    assert stored.verifies()  # a new Evaluation states no decision: nothing to seal
    job = f"e-g{generation}"
    stored.operator_writes(reconcile.running_status(stored.status, generation, job, "sha256:b", "t0"))
    stored.operator_writes(progress.queued_status(stored.status, generation, job, "q"))
    stored.operator_writes(progress.admitted_status(stored.status, generation, job, "q", judging=False))
    outcome = job_outcome.Outcome("succeeded", "Completed", "", summary("Blocked"))
    stored.operator_writes(reconcile.finished_status(outcome, stored.status, generation, "t1", job))
    return stored


def test_every_write_of_a_run_leaves_a_decision_that_verifies() -> None:
    stored = blocked_run()
    assert stored.verifies()
    assert stored.status.verdict == "Blocked" and stored.status.verdict_seal is not None
    # The judges' means as stored: "quality" (null: it applied nowhere) is not kept, and still verifies.
    assert stored.body["judges"] == {"kb": 1.0}
    # Writes that leave the decision alone keep the stored seal: observations, someone's message.
    seal = stored.status.verdict_seal
    stored.operator_writes(EvaluationStatus(message="an observation"))
    stored.someone_writes({"mlflow": {"runId": "r-3"}, "message": "someone else's note"})
    assert stored.verifies() and stored.status.verdict_seal == seal
    # An override the operator writes seals the decision it makes, and a new run reseals its own.
    stored.operator_writes(reconcile.overridden_status(stored.status, 1, "Pass", "flaky", "alice", "t2", UID))
    assert stored.verifies() and stored.status.verdict == "Pass" and stored.status.verdict_seal != seal
    stored.operator_writes(reconcile.running_status(stored.status, 2, "e-g2", "sha256:b", "t3"))
    assert stored.verifies() and stored.status.verdict is None
    assert not stored.verifies("uid-2")  # another object's decision


@pytest.mark.parametrize(
    "forged",
    [
        {"verdict": "Pass"},
        {"score": 0.99},
        {"judges": {"kb": 1.0, "quality": 0.9}},
        {"verdictSeal": None},
        {"observedGeneration": 2},
        {"usage": {"costUsd": 0.001}},  # a Campaign's key may rank on cost: its figure is decisive too
    ],
)
def test_a_decisive_field_written_around_the_operator_does_not_verify(forged: dict[str, Any]) -> None:
    stored = blocked_run()
    stored.someone_writes(forged)
    assert not stored.verifies()


def test_a_blocked_flipped_to_pass_is_never_sealed_by_a_later_partial_write() -> None:
    stored = blocked_run()
    ready = conditions.find(stored.status.conditions, conditions.READY)
    assert ready is not None and ready.status == "False"
    flipped = [
        {**c.to_patch(), "status": "True", "reason": "Passed"} if c.type == conditions.READY else c.to_patch()
        for c in stored.status.conditions or []
    ]
    stored.someone_writes({"verdict": "Pass", "score": 0.95, "conditions": flipped})
    assert not stored.verifies()
    # The operator's writes that do not replace the whole decision do not vouch for the forged one, neither
    # those that leave it as it is nor one that changes a part (the conditions) and keeps the forged score.
    stored.operator_writes(EvaluationStatus(message="an observation"))
    stored.operator_writes(progress.queued_status(stored.status, 1, "e-g1", "q"))
    stored.operator_writes(reconcile.waiting_status(stored.status, 1, "BrainNotFound", "gone", stalled=False))
    assert not stored.verifies() and (stored.status.verdict, stored.status.score) == ("Pass", 0.95)
    # ...its undo does, and states Blocked.
    stored.operator_writes(reconcile.decision_reverted(stored.status, 1, "not the operator's"))
    assert stored.verifies()
    assert (stored.status.verdict, stored.status.score, stored.status.judges) == ("Blocked", None, None)
    ready = conditions.find(stored.status.conditions, conditions.READY)
    assert ready is not None and (ready.status, ready.reason) == ("False", "DecisionReverted")


@pytest.mark.parametrize(
    "outcome",
    [
        job_outcome.Outcome("succeeded", "Completed", "", full_summary("Blocked")),
        job_outcome.Outcome("succeeded", "Completed", "", summary("Blocked")),
        job_outcome.Outcome("failed", "DeadlineExceeded", "too slow"),
    ],
    ids=["full-summary", "summary", "no-summary"],
)
def test_the_verdict_restored_from_the_judge_job_replaces_every_forged_figure(
    outcome: job_outcome.Outcome,
) -> None:
    """The undo re-derives the status from the judge Job's outcome over a forged one: every figure a
    Campaign reads is the outcome's again, and the whole is sealed (else it would be undone for ever)."""
    stored = Stored()
    stored.operator_writes(reconcile.running_status(stored.status, 1, "e-g1", "sha256:b", "t0"))
    stored.operator_writes(reconcile.finished_status(outcome, stored.status, 1, "t1", "e-g1"))
    assert stored.verifies()
    gate = dict(stored.body)
    stored.someone_writes(
        {
            "verdict": "Pass",
            "judgesPassing": 9,
            "rules": [{"name": "score", "passed": True, "detail": "fine"}],
            "tickets": {"total": 9, "passed": 9, "summary": "9/9"},
            "repetitions": {"k": 9, "passRate": 1.0, "passAtK": 1.0, "passHatK": 1.0, "fullyResolved": 9},
            "paired": {"ticketsDigest": "sha256:t", "scores": [1.0], "resolved": "1"},
        }
    )
    assert not stored.verifies()
    stored.operator_writes(reconcile.finished_status(outcome, stored.status, 1, "t1", "e-g1"))
    assert stored.verifies()
    figures = ("verdict", "score", "judges", "judgesPassing", "rules", "tickets", "repetitions", "paired")
    assert {k: stored.body.get(k) for k in figures} == {k: gate.get(k) for k in figures}


def test_an_old_sealed_decision_copied_onto_a_newer_run_does_not_verify() -> None:
    passed = Stored()
    passed.operator_writes(reconcile.running_status(passed.status, 1, "e-g1", "sha256:b", "t0"))
    outcome = job_outcome.Outcome("succeeded", "Completed", "", summary("Pass"))
    passed.operator_writes(reconcile.finished_status(outcome, passed.status, 1, "t1", "e-g1"))
    assert passed.verifies() and passed.status.verdict == "Pass"
    old = {k: passed.body[k] for k in ("verdict", "score", "judges", "conditions", "verdictSeal")}
    # The same Evaluation's second run (a newer generation; a rerun names another Job): the old block
    # copied back onto it states a decision of another run.
    for generation, job in ((2, "e-g2"), (1, "e-g1-r0123abcd")):
        newer = Stored()
        newer.body = dict(passed.body)
        newer.operator_writes(reconcile.running_status(newer.status, generation, job, "sha256:b", "t2"))
        assert newer.verifies()
        newer.someone_writes(old)
        assert not newer.verifies(), job
    # And onto another Evaluation with the same run names: another uid.
    assert not passed.verifies("uid-2")
