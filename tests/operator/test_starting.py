"""Why a run's pod cannot start, read from the pod and the kubelet's Events (pure), table-driven with the
kubelet's and the scheduler's own wording; on the cluster: tests/operator_cluster/test_pod_start.py."""

from __future__ import annotations

from typing import Any

import pytest

from assay_operator import conditions
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.evaluation.read import progress, starting
from assay_operator.evaluation.read.starting import StartProblem

Obj = dict[str, Any]


def pod(waiting: Obj | None = None, *, scheduled: Obj | None = None, running: bool = False) -> Obj:
    state: Obj = (
        {"running": {"startedAt": "t"}} if running else {"waiting": waiting or {"reason": "PodInitializing"}}
    )
    status: Obj = {"initContainerStatuses": [{"name": "answer", "state": state}]}
    if scheduled is not None:
        status["conditions"] = [{"type": "PodScheduled", "status": "False", **scheduled}]
    return {
        "metadata": {"name": "e-g1-abcde"},
        "spec": {
            "initContainers": [{"name": "answer", "image": "quay.io/assay/runner:9"}],
            "containers": [{"name": "runner", "image": "quay.io/assay/runner:9"}],
            "volumes": [
                {"name": "gateway-token", "secret": {"secretName": "gw", "items": [{"key": "token"}]}}
            ],
        },
        "status": status,
    }


def event(reason: str, message: str, kind: str = "Pod", type_: str = "Warning") -> Obj:
    return {
        "type": type_,
        "reason": reason,
        "message": message,
        "involvedObject": {"kind": kind, "name": "e-g1-abcde"},
    }


@pytest.mark.parametrize(
    ("waiting", "reason", "names"),
    [
        (
            {"reason": "CreateContainerConfigError", "message": 'secret "gw" not found'},
            "SecretNotFound",
            "Secret 'gw' not found",
        ),
        (
            {"reason": "CreateContainerConfigError", "message": "couldn't find key token in Secret ns/gw"},
            "SecretKeyNotFound",
            "Secret 'gw' has no key 'token'",
        ),
        (
            {"reason": "CreateContainerConfigError", "message": 'configmap "kb" not found'},
            "ConfigMapNotFound",
            "ConfigMap 'kb' not found",
        ),
        (
            {"reason": "ErrImagePull", "message": "failed to pull and unpack image: not found"},
            "ImagePullFailed",
            "image 'quay.io/assay/runner:9'",
        ),
        (
            {"reason": "ImagePullBackOff", "message": 'Back-off pulling image "quay.io/assay/runner:9"'},
            "ImagePullFailed",
            "cannot pull image",
        ),
        ({"reason": "CreateContainerConfigError", "message": "odd"}, "ContainerConfigError", "odd"),
    ],
)
def test_a_waiting_container_names_what_is_missing(waiting: Obj, reason: str, names: str) -> None:
    problem = starting.from_pod(pod(waiting))
    assert problem is not None and problem.reason == reason and names in problem.message
    assert not problem.heals and "e-g1-abcde" in problem.message


def test_unschedulable_is_reported_but_can_heal() -> None:
    message = "0/1 nodes are available: 1 Insufficient cpu."
    problem = starting.from_pod(pod(scheduled={"reason": "Unschedulable", "message": message}))
    assert problem is not None and problem.reason == "Unschedulable" and problem.heals
    assert "Insufficient cpu" in problem.message


def test_a_pod_merely_starting_or_running_has_no_problem() -> None:
    assert starting.from_pod(pod()) is None  # PodInitializing: kubelet's default, no message
    assert starting.from_pod(pod({"reason": "ContainerCreating"})) is None
    assert starting.from_pod(pod(running=True)) is None and starting.started(pod(running=True))
    assert not starting.started(pod())


@pytest.mark.parametrize(
    ("message", "reason", "names"),
    [
        (
            'MountVolume.SetUp failed for volume "gateway-token" : secret "gw" not found',
            "SecretNotFound",
            "'gw'",
        ),
        (
            'MountVolume.SetUp failed for volume "gateway-token" : references non-existent secret key: token',
            "SecretKeyNotFound",
            "Secret 'gw' has no key 'token'",
        ),
        ('MountVolume.SetUp failed for volume "kb" : configmaps "kb" not found', "ConfigMapNotFound", "'kb'"),
    ],
)
def test_a_failed_mount_event_names_the_secret(message: str, reason: str, names: str) -> None:
    problem = starting.from_event(event("FailedMount", message), pod())
    assert problem is not None and (problem.reason, problem.heals) == (reason, False)
    assert names in problem.message


def test_other_events_say_nothing() -> None:
    assert starting.from_event(event("FailedMount", 'secret "gw" not found', type_="Normal")) is None
    assert starting.from_event(event("FailedMount", 'secret "gw" not found', kind="Job")) is None
    assert starting.from_event(event("BackOff", "Back-off restarting failed container")) is None
    scheduling = starting.from_event(event("FailedScheduling", "0/3 nodes are available"))
    assert scheduling is not None and scheduling.heals


def test_a_problem_that_cannot_heal_comes_first() -> None:
    heals = StartProblem("Unschedulable", "no room", heals=True)
    stuck = StartProblem("SecretNotFound", "no secret")
    assert starting.first([None, heals, stuck]) is stuck and starting.first([heals]) is heals
    assert starting.first([None]) is None


def test_blocked_then_started_keeps_the_run_reconciling() -> None:
    problem = StartProblem("SecretNotFound", "pod p cannot start: Secret 'gw' not found")
    blocked = progress.start_blocked_status(EvaluationStatus(), 1, problem, "2026-12-04T10:00:00Z")
    found = conditions.find(blocked.conditions, conditions.START_BLOCKED)
    assert found is not None and (found.status, found.reason) == ("True", "SecretNotFound")
    assert "ends Stalled at 2026-12-04T10:00:00Z" in (blocked.message or "")
    reconciling = conditions.find(blocked.conditions, conditions.RECONCILING)
    assert reconciling is not None and reconciling.status == "True"
    assert set(blocked.to_patch()) == {"message", "conditions"}  # the run's other figures stay as they are
    started = progress.started_status(blocked, 1, "e-g1")
    found = conditions.find(started.conditions, conditions.START_BLOCKED)
    assert found is not None and (found.status, found.reason) == ("False", "Started")


@pytest.mark.parametrize(("judging", "state"), [(False, "Running"), (True, "Judging")])
def test_a_queued_job_reads_queued_then_what_it_does_once_admitted(judging: bool, state: str) -> None:
    """The State column (Reconciling's reason) tells a queued run from a starting one, for either Job."""
    queued = progress.queued_status(EvaluationStatus(), 1, "e-g1-judge", "evals")
    reconciling = conditions.find(queued.conditions, conditions.RECONCILING)
    assert reconciling is not None and (reconciling.status, reconciling.reason) == ("True", "Queued")
    admitted = progress.admitted_status(queued, 1, "e-g1-judge", "evals", judging)
    found = conditions.find(admitted.conditions, conditions.QUEUED)
    assert found is not None and (found.status, found.reason) == ("False", "Admitted")
    reconciling = conditions.find(admitted.conditions, conditions.RECONCILING)
    assert reconciling is not None and reconciling.reason == state
