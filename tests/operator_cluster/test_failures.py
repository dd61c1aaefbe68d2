"""Failure paths on the real control plane: each ends with a verdict and a precise reason, never silence and
never Pass. The Job controller, the garbage collector and the TTL controller are the real ones; faults come
from the local kubelet (OOM kill, eviction, a pull that never ends) or from the runner itself."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi, LocalKubelet
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import (
    HANGING_AGENT,
    Obj,
    OperatorProcess,
    condition,
    replay_spec,
)
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster


# --- helpers ------------------------------------------------------------------------------------------------


def assert_stalled(obj: Obj, reason: str, *hints: str) -> None:
    """Blocked, Stalled=True with `reason`, Ready=False, Completed=True, and a message naming `hints`."""
    status = obj["status"]
    assert status["verdict"] == "Blocked", support.summarize(obj)
    assert status.get("score") is None
    generation = obj["metadata"]["generation"]
    stalled, ready, completed = (condition(obj, k) for k in ("Stalled", "Ready", "Completed"))
    assert stalled is not None and stalled["status"] == "True" and stalled["reason"] == reason, stalled
    assert ready is not None and ready["status"] == "False" and ready["reason"] == reason, ready
    assert completed is not None and completed["status"] == "True", completed
    assert support.condition_status(obj, "Reconciling") == "False"
    for c in status["conditions"]:
        assert c["observedGeneration"] == generation, c
    message = status["message"]
    assert message.startswith(f"Blocked: {reason}"), message
    for hint in hints:
        assert hint in message, f"{hint!r} not in {message!r}"
    assert stalled["message"] == message


# --- deadline ----------------------------------------------------------------------------------------------


def test_a_hanging_agent_is_judged_at_the_answer_deadline_and_a_pod_that_never_starts_exceeds_it(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    """The smallest deadline the schema allows is 60 s: both cases share that wait, in two namespaces (the
    runner image is an operator setting). A hanging agent no longer costs the verdict: the answer phase
    stops itself at its share of the deadline (30 s of 60) and the judge phase blocks on the unanswered
    cells, saying why; a pod that never starts still exceeds the Job's deadline."""
    other = f"{namespace[:52]}-pull"
    control_plane.create_namespace(other)
    try:
        brain = brains("v1")
        admin.create(support.config_maps_path(other), support.brain_config_map(brain, "v1"))
        real = operators(namespace)
        stuck = operators(other, image=support.images().never_starts)
        support.create_evaluation(
            admin, namespace, "hangs", replay_spec(brain, agent=HANGING_AGENT, deadlineSeconds=60)
        )
        support.create_evaluation(admin, other, "never-starts", replay_spec(brain, deadlineSeconds=60))
        support.running_pod(admin, namespace, "hangs-g1-answer")
        hung = support.wait_for_verdict(admin, namespace, "hangs", timeout=180, operator=real)
        never = support.wait_for_verdict(admin, other, "never-starts", timeout=180, operator=stuck)
        assert hung["status"]["verdict"] == "Blocked", support.summarize(hung)
        stalled = condition(hung, "Stalled")
        assert stalled is not None and stalled["reason"] == "GateBlocked", stalled
        assert "the answer phase reached its deadline (30 s)" in hung["status"]["message"]
        assert support.job_status(admin, namespace, "hangs-g1-answer").get("succeeded") == 1
        assert support.job_status(admin, namespace, "hangs-g1").get("succeeded") == 1
        # Nothing answered: nothing to judge, no judge Job; the answer Job's own reason.
        assert_stalled(never, "DeadlineExceeded", "spec.deadlineSeconds", "never started")
        assert support.job_failed_reason(admin, other, "never-starts-g1-answer") == "DeadlineExceeded"
        assert [j["metadata"]["name"] for j in support.jobs_of(admin, other, "never-starts")] == [
            "never-starts-g1-answer"
        ]
        support.wait_for_events(admin, namespace, "hangs", {"Blocked"})
        # Its Event too, before the namespace goes: kopf posts Events in the background, and a post into a
        # terminating namespace is refused (a 403 in the operator's log at teardown).
        support.wait_for_events(admin, other, "never-starts", {"Blocked"})
    finally:
        control_plane.delete_namespace(other)


# --- OOM ---------------------------------------------------------------------------------------------------


def test_an_oom_killed_runner_is_named_in_the_message(
    admin: KubeApi,
    kubelet: LocalKubelet,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    support.create_evaluation(admin, namespace, "oom", replay_spec(brains("v1"), agent=HANGING_AGENT))
    killed: set[str] = set()
    # backoffLimitPerIndex 1: the retry is OOM-killed too, as it would be with the same memory limit. The
    # agent runs in the answer pod: that is where memory runs out.
    while pod := support.running_pod(admin, namespace, "oom-g1-answer", exclude=killed):
        kubelet.oom_kill(namespace, pod, "answer")
        killed.add(pod)
        assert len(killed) <= 3, "the Job keeps retrying an OOM-killed runner"
    obj = support.wait_for_verdict(admin, namespace, "oom", operator=operator)
    # Its one shard failed for good: nothing to judge (no judge Job), the answer Job's reason.
    assert_stalled(
        obj, "OOMKilled", "the answer container was OOMKilled", "exit code 137", "spec.resources.memory"
    )
    assert support.job_failed_reason(admin, namespace, "oom-g1-answer") == "FailedIndexes"
    assert support.get_or_none(admin, support.jobs_path(namespace, "oom-g1")) is None
    assert len(killed) == 2


# --- the runner's result ------------------------------------------------------------------------------------


def test_an_unreadable_summary_is_rejected_whatever_it_claims(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    """A fake runner exits 0 with a bad termination message (chosen by the name): never a Pass."""
    operator = operators(namespace, image=support.images().fake_runner)
    brain = brains("v1")
    cases = {
        "junk-1": "the termination message is not a valid RunSummary",
        "empty-1": "the runner wrote no summary",
        "schema-1": "the termination message is not a valid RunSummary",
        "future-1": "schemaVersion 2",
    }
    for name in [*cases, "pass-1", "blocked-1"]:
        support.create_evaluation(admin, namespace, name, replay_spec(brain))
    for name, hint in cases.items():
        obj = support.wait_for_verdict(admin, namespace, name, operator=operator)
        assert_stalled(obj, "ResultUnreadable", hint)
    # Controls: the fake runner's valid summaries are accepted, so the cases above fail for their content.
    passed = support.wait_for_verdict(admin, namespace, "pass-1", operator=operator)
    assert passed["status"]["verdict"] == "Pass" and passed["status"]["score"] == 0.95
    blocked = support.wait_for_verdict(admin, namespace, "blocked-1", operator=operator)
    assert blocked["status"]["verdict"] == "Blocked"
    assert (condition(blocked, "Stalled") or {}).get("reason") == "GateBlocked"
    assert blocked["status"]["tickets"]["failing"] == ["T-003", "T-004"]


def test_a_crashing_runner_uses_its_retry_then_blocks_even_with_a_pass_summary(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    """The fake runner writes a valid Pass summary and exits 1: a summary counts only on exit 0."""
    operator = operators(namespace, image=support.images().fake_runner)
    support.create_evaluation(admin, namespace, "crash-1", replay_spec(brains("v1")))
    obj = support.wait_for_verdict(admin, namespace, "crash-1", operator=operator)
    assert_stalled(obj, "BackoffLimitExceeded", "retries are used up")
    assert support.job_failed_reason(admin, namespace, "crash-1-g1") == "BackoffLimitExceeded"
    assert len(support.pods_of_job(admin, namespace, "crash-1-g1")) == 2  # backoffLimit 1: one retry


def test_bad_input_fails_the_job_at_once_with_the_runners_message(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    suite = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "broken-suite"},
        "data": {
            "suite.yaml": (
                "name: broken\n"
                "judges:\n"
                "  - {name: vibes, type: vibes, weight: 1, threshold: 0.5}\n"
                "tickets:\n"
                "  - id: T-1\n"
                "    split: validation\n"
                "    question: Is the suite broken\n"
                "    key: {mustMention: [yes]}\n"
            )
        },
    }
    admin.create(support.config_maps_path(namespace), suite)
    spec = replay_spec(brains("v1"), suite={"configMap": {"name": "broken-suite"}})
    support.create_evaluation(admin, namespace, "bad-input", spec)
    obj = support.wait_for_verdict(admin, namespace, "bad-input", operator=operator)
    assert_stalled(obj, "PodFailurePolicy", "bad input", "vibes")
    assert support.job_failed_reason(admin, namespace, "bad-input-g1-answer") == "PodFailurePolicy"
    pods = support.pods_of_job(admin, namespace, "bad-input-g1-answer")
    assert len(pods) == 1, "exit code 2 must fail the Job at once, without a retry"
    assert support.get_or_none(admin, support.jobs_path(namespace, "bad-input-g1")) is None  # no judge


# --- a missing brain ---------------------------------------------------------------------------------------


def test_a_missing_brain_waits_without_a_job_then_proceeds_by_itself(
    admin: KubeApi, namespace: str, operator: OperatorProcess
) -> None:
    support.create_evaluation(admin, namespace, "early", replay_spec("brain-late"))
    waiting = support.wait_for_evaluation(
        admin,
        namespace,
        "early",
        lambda o: (condition(o, "Reconciling") or {}).get("reason") == "BrainNotFound",
        what="BrainNotFound",
        operator=operator,
    )
    assert support.condition_status(waiting, "Reconciling") == "True"
    assert support.condition_status(waiting, "Ready") == "False"
    assert support.condition_status(waiting, "Completed") == "False"
    assert "brain-late" in waiting["status"]["message"]
    assert not waiting["status"].get("verdict")
    assert support.jobs_of(admin, namespace, "early") == []
    support.wait_for_events(admin, namespace, "early", {"BrainNotFound"})

    admin.create(support.config_maps_path(namespace), support.brain_config_map("brain-late", "v1"))
    done = support.wait_for_verdict(admin, namespace, "early", operator=operator)
    assert done["status"]["verdict"] == "Pass"
    assert support.condition_status(done, "Stalled") == "False"
    assert sorted(j["metadata"]["name"] for j in support.jobs_of(admin, namespace, "early")) == [
        "early-g1",
        "early-g1-answer",
    ]


# --- garbage collection ------------------------------------------------------------------------------------


def owned_config_maps(admin: KubeApi, namespace: str) -> list[str]:
    return [
        c["metadata"]["name"]
        for c in admin.get(support.config_maps_path(namespace))["items"]
        if any(r["kind"] == "Evaluation" for r in c["metadata"].get("ownerReferences") or [])
    ]


def owned_claims(admin: KubeApi, namespace: str) -> list[str]:
    return [
        c["metadata"]["name"]
        for c in admin.get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims")["items"]
        if any(r["kind"] == "Evaluation" for r in c["metadata"].get("ownerReferences") or [])
    ]


def answering(admin: KubeApi, namespace: str, name: str) -> None:
    """Wait until the runner of the Evaluation's answer pod answers (its manifest on the claim): mid-run. From
    then on it handles SIGTERM, and a deleted pod ends at once; deleted while the runner still starts, the pod
    waits out its 30 s grace period for the SIGKILL (the runner is its container's PID 1, and the kernel drops
    a signal that PID 1 has no handler for)."""
    manifest = support.claim_path(admin, namespace, f"{name}-g1-answers") / "shard-0" / "answers.json"
    wait_until(manifest.is_file, timeout=60, what=f"the runner of {name} to answer (its manifest)")


def test_deleting_an_evaluation_mid_run_collects_its_job_pods_config_maps_and_volume(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    brain = brains("v1")
    created = support.create_evaluation(admin, namespace, "doomed", replay_spec(brain, agent=HANGING_AGENT))
    assert not created["metadata"].get("finalizers")
    support.running_pod(admin, namespace, "doomed-g1-answer")
    assert len(owned_config_maps(admin, namespace)) == 2
    assert owned_claims(admin, namespace) == ["doomed-g1-answers"]
    claim = admin.get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/doomed-g1-answers")
    volume = claim["spec"]["volumeName"]
    live = admin.get(support.evaluations_path(namespace, "doomed"))
    assert not live["metadata"].get("finalizers"), "no finalizer may block deletion"
    answering(admin, namespace, "doomed")

    admin.delete(support.evaluations_path(namespace, "doomed"))

    def collected() -> bool:
        return (
            support.get_or_none(admin, support.evaluations_path(namespace, "doomed")) is None
            and support.jobs_of(admin, namespace, "doomed") == []
            and support.pods_of_job(admin, namespace, "doomed-g1-answer") == []
            and owned_config_maps(admin, namespace) == []
            and owned_claims(admin, namespace) == []
            # The claim's volume too: released, then removed by the provisioner (reclaim policy Delete).
            and support.get_or_none(admin, f"/api/v1/persistentvolumes/{volume}") is None
        )

    # The Kubernetes garbage collector's own pace, not the operator's: it picks up a custom resource's owner
    # events only once its 30 s discovery resync has a monitor for the kind, and it pauses while it resyncs
    # its monitors after CRDs come and go (the suite installs and removes some). Alone: ~40 s; in the full
    # suite: 100-125 s, so 120 s made the test fail at random.
    wait_until(
        collected,
        timeout=300,
        what="the garbage collector to delete the Job, its pods, the owned ConfigMaps and the volume",
        describe=lambda: str(
            {
                "evaluation": support.get_or_none(admin, support.evaluations_path(namespace, "doomed"))
                is not None,
                "jobs": [j["metadata"]["name"] for j in support.jobs_of(admin, namespace, "doomed")],
                "pods": [
                    p["metadata"]["name"] for p in support.pods_of_job(admin, namespace, "doomed-g1-answer")
                ],
                "configMaps": owned_config_maps(admin, namespace),
                "claims": owned_claims(admin, namespace),
                "volume": (support.get_or_none(admin, f"/api/v1/persistentvolumes/{volume}") or {}).get(
                    "status"
                ),
            }
        ),
    )
    # The user's own brain ConfigMap is not the Evaluation's: it stays.
    assert support.get_or_none(admin, support.config_maps_path(namespace, brain)) is not None

    # No finalizer: deleting while the operator is down completes at once.
    support.create_evaluation(admin, namespace, "orphan", replay_spec(brain, agent=HANGING_AGENT))
    support.running_pod(admin, namespace, "orphan-g1-answer")
    answering(admin, namespace, "orphan")
    operator.stop()
    admin.delete(support.evaluations_path(namespace, "orphan"))
    wait_until(
        lambda: support.get_or_none(admin, support.evaluations_path(namespace, "orphan")) is None,
        timeout=30,
        what="the Evaluation to be deleted while the operator is down",
    )
    wait_until(
        lambda: support.pods_of_job(admin, namespace, "orphan-g1-answer") == [],
        timeout=90,
        what="its pods to be collected",
    )


# --- eviction ---------------------------------------------------------------------------------------------


def test_an_evicted_runner_does_not_use_the_backoff_limit_and_the_evaluation_completes(
    admin: KubeApi,
    kubelet: LocalKubelet,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    """backoffLimit(PerIndex) 0: a counted failure would fail the shard; an eviction must not."""
    operator = operators(namespace, env={"ASSAY_BACKOFF_LIMIT": "0"})
    support.create_evaluation(
        admin, namespace, "evicted", replay_spec(brains("v1"), agent=support.slow_agent(1.5))
    )
    pod = support.running_pod(admin, namespace, "evicted-g1-answer")
    kubelet.evict(namespace, pod)
    obj = support.wait_for_verdict(admin, namespace, "evicted", timeout=180, operator=operator)
    assert obj["status"]["verdict"] == "Pass", support.summarize(obj)
    status = support.job_status(admin, namespace, "evicted-g1-answer")
    assert status.get("succeeded") == 1
    assert not status.get("failed"), status
    phases = sorted(p["status"]["phase"] for p in support.pods_of_job(admin, namespace, "evicted-g1-answer"))
    assert phases == ["Failed", "Succeeded"]
    evicted = next(
        p for p in support.pods_of_job(admin, namespace, "evicted-g1-answer") if p["metadata"]["name"] == pod
    )
    assert evicted["status"].get("reason") == "Evicted"


# --- TTL ---------------------------------------------------------------------------------------------------


def test_a_ttl_deleted_job_leaves_the_verdict_and_is_not_recreated(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    operator = operators(namespace, env={"ASSAY_JOB_TTL_SECONDS": "2"})
    with support.recording(control_plane, support.jobs_path(namespace)) as jobs:
        support.create_evaluation(admin, namespace, "short-lived", replay_spec(brains("v1")))
        done = support.wait_for_verdict(admin, namespace, "short-lived", operator=operator)
        wait_until(
            lambda: support.jobs_of(admin, namespace, "short-lived") == [],
            timeout=60,
            what="the TTL controller to delete the finished Job",
        )
        # A restart resumes every Evaluation: still no Job for a generation that has its verdict.
        operator.stop()
        operator.start()
        wait_until(
            lambda: "Resuming is processed" in operator.log_text(),
            timeout=30,
            what="the restarted operator to resume the Evaluation",
            describe=operator.log_tail,
        )
        # A metadata edit is not a spec change.
        admin.merge_patch(
            support.evaluations_path(namespace, "short-lived"), {"metadata": {"labels": {"team": "a"}}}
        )
        support.barrier(admin, namespace, operator)
        after = admin.get(support.evaluations_path(namespace, "short-lived"))
    assert after["status"] == done["status"]
    assert support.jobs_of(admin, namespace, "short-lived") == []
    assert support.jobs_per_generation_of(jobs, "short-lived") == {"1": support.ONE_RUN}


# --- status writes ------------------------------------------------------------------------------------------


def test_twenty_status_patches_cause_no_new_job(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    path = support.evaluations_path(namespace, "patched")
    with support.recording(control_plane, support.jobs_path(namespace)) as jobs:
        support.create_evaluation(
            admin, namespace, "patched", replay_spec(brains("v1"), agent=support.slow_agent(0.5))
        )
        support.running_pod(admin, namespace, "patched-g1-answer")
        for i in range(10):  # while the Job runs
            admin.merge_patch(f"{path}/status", {"status": {"message": f"someone else's status write {i}"}})
        done = support.wait_for_verdict(admin, namespace, "patched", operator=operator)
        for i in range(10):  # and after the verdict (a field beside it: usage is sealed with the verdict)
            admin.merge_patch(f"{path}/status", {"status": {"mlflow": {"runId": f"someone-{i}"}}})
        support.barrier(admin, namespace, operator)
        after = admin.get(path)
    assert done["status"]["verdict"] == "Pass"
    assert after["metadata"]["generation"] == 1
    assert after["status"]["observedGeneration"] == 1
    assert support.jobs_per_generation_of(jobs, "patched") == {"1": support.ONE_RUN}
    handled = [
        line for line in operator.log_text().splitlines() if "/patched]" in line and "ensure_run" in line
    ]
    assert len([line for line in handled if "succeeded" in line]) == 1, handled
