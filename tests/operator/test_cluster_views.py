"""The typed views of what the operator reads (assay_operator.cluster_views) read a body as the raw readers
did: a missing or null field says nothing, fields the operator does not read are ignored, and an owner
reference is found under the API's spelling or the client's."""

from __future__ import annotations

import pytest

from assay_operator.cluster_views import Job, Object, Pod


def test_a_job_without_status_is_running_and_nulls_say_nothing() -> None:
    job = Job.of({"metadata": {"name": "j", "labels": None}, "status": {"conditions": None}, "spec": None})
    assert job.metadata.labels == {} and job.status.conditions == [] and job.spec.completions is None
    assert not job.finished and job.condition("Failed") is None


def test_only_a_condition_that_holds_counts() -> None:
    conditions = [
        {"type": "Failed", "status": "False"},
        {"type": "Complete", "status": "True", "reason": "r"},
    ]
    job = Job.of({"status": {"conditions": conditions, "unknownField": 1}})
    assert job.condition("Failed") is None
    complete = job.condition("Complete")
    assert complete is not None and complete.reason == "r" and job.finished


@pytest.mark.parametrize(
    ("state", "started"),
    [
        ({}, False),
        ({"waiting": {"reason": "ContainerCreating"}}, False),
        ({"running": {}}, True),
        ({"terminated": {"exitCode": 1}}, True),
    ],
)
def test_a_pod_has_started_once_a_container_runs_or_ran(state: dict[str, object], started: bool) -> None:
    pod = Pod.of({"status": {"initContainerStatuses": [{"name": "split", "state": state}]}})
    assert pod.started is started


def test_the_init_containers_come_first_and_a_terminated_state_is_typed() -> None:
    pod = Pod.of(
        {
            "status": {
                "containerStatuses": [
                    {"name": "judge", "state": {"terminated": {"exitCode": 0, "message": "m"}}}
                ],
                "initContainerStatuses": [{"name": "answer", "lastState": {"terminated": {"exitCode": 137}}}],
            }
        }
    )
    assert [c.name for c in pod.containers] == ["answer", "judge"]
    judge = pod.container("judge")
    assert judge is not None and judge.state.terminated is not None and judge.state.terminated.message == "m"
    answer = pod.container("answer")
    assert answer is not None and answer.last_state.terminated is not None
    assert answer.last_state.terminated.exit_code == 137


@pytest.mark.parametrize("key", ["ownerReferences", "owner_references"])
def test_ownership_is_read_under_either_spelling(key: str) -> None:
    child = Object.of({"metadata": {key: [{"kind": "Evaluation", "name": "e", "uid": "u1"}]}})
    assert child.metadata.owned_by("u1") and not child.metadata.owned_by("u2")
    owner = child.metadata.owner("Evaluation")
    assert owner is not None and owner.name == "e" and child.metadata.owner("Campaign") is None
