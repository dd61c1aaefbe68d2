"""Generations, restarts and conditions: a spec edit mid-run, the operator killed between creating a Job and
writing the status, and conditions that move only when their status flips."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import HANGING_AGENT, Obj, OperatorProcess, condition, replay_spec
from assay_operator import rbac
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster


def conditions_by_type(obj: Obj) -> dict[str, Obj]:
    return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}


def assert_conditions_carry_their_generation(versions: list[Obj]) -> None:
    """In every status ever written: each condition's observedGeneration is the status's."""
    checked = 0
    for obj in versions:
        status = obj.get("status") or {}
        for c in status.get("conditions") or []:
            assert c.get("observedGeneration") == status.get("observedGeneration"), (
                c,
                support.summarize(obj),
            )
            checked += 1
    assert checked


# --- a spec edit mid-run ------------------------------------------------------------------------------------


def test_a_spec_edit_mid_run_replaces_the_job_and_the_status_follows_the_new_generation(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    brain = brains("v1")
    path = support.evaluations_path(namespace, "edited")
    with (
        support.recording(control_plane, support.evaluations_path(namespace)) as evaluations,
        support.recording(control_plane, support.jobs_path(namespace)) as jobs,
    ):
        support.create_evaluation(admin, namespace, "edited", replay_spec(brain, agent=HANGING_AGENT))
        old_pod = support.running_pod(admin, namespace, "edited-g1-answer")
        edited = admin.merge_patch(path, {"spec": {"agent": support.slow_agent(0.5)}})
        assert edited["metadata"]["generation"] == 2
        old_claim = f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/edited-g1-answers"

        def superseded_gone() -> bool:
            return (
                support.get_or_none(admin, support.jobs_path(namespace, "edited-g1-answer")) is None
                and support.get_or_none(admin, support.pods_path(namespace, old_pod)) is None
                # The old generation's answers volume too, once no pod uses it (its protection finalizer).
                and support.get_or_none(admin, old_claim) is None
            )

        # Background propagation: the old Job's pod goes with it (without it, the pod would stay).
        wait_until(superseded_gone, timeout=90, what="the superseded Job, pod and claim to go")
        done = support.wait_for_verdict(admin, namespace, "edited", generation=2, operator=operator)
        history = evaluations.versions("edited")

    assert done["status"]["verdict"] == "Pass"
    assert done["status"]["jobName"] == "edited-g2"
    assert_conditions_carry_their_generation(history)
    # While generation 2 ran: Reconciling=True, Ready=Unknown, no verdict, all about generation 2.
    running_g2 = [
        o
        for o in history
        if (o.get("status") or {}).get("observedGeneration") == 2
        and support.condition_status(o, "Reconciling") == "True"
    ]
    assert running_g2, [support.summarize(o) for o in history]
    for o in running_g2:
        assert support.condition_status(o, "Ready") == "Unknown"
        assert support.condition_status(o, "Completed") == "False"
        assert o["status"].get("verdict") is None and o["status"]["jobName"] == "edited-g2"
    # Generation 1 never got a verdict: its Job was superseded, not finished.
    assert not [
        o
        for o in history
        if (o.get("status") or {}).get("observedGeneration") == 1 and o["status"].get("verdict")
    ]
    # Generation 1 never got to its judge Job.
    assert support.jobs_per_generation_of(jobs, "edited") == {"1": {"answer": 1}, "2": support.ONE_RUN}
    support.wait_for_events(admin, namespace, "edited", {"JobCreated", "Completed"})
    created = [
        e["message"] for e in support.events_for(admin, namespace, "edited") if e["reason"] == "JobCreated"
    ]
    assert any("edited-g1" in m for m in created) and any("edited-g2" in m for m in created), created


# --- operator killed ----------------------------------------------------------------------------------------


def test_operator_killed_after_creating_the_job_before_writing_the_status(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    """Deterministic: the first operator may not write status, so it dies exactly between creating the Job
    and recording it. The Job then finishes while no operator runs. The next operator adopts it (409),
    makes no second Job, and writes the verdict."""
    brain = brains("v1")
    no_status = [r for r in rbac.role_rules() if r["resources"] != ["evaluations/status"]]
    first = operators(namespace, rules=no_status, expect_problems=True)
    with support.recording(control_plane, support.jobs_path(namespace)) as jobs:
        support.create_evaluation(admin, namespace, "adopted", replay_spec(brain))
        wait_until(
            lambda: (
                support.log_count(first, "adopted", "evaluations/status") > 0
                or support.log_count(first, "adopted", "Forbidden") > 0
            ),
            timeout=60,
            what="the first operator to fail writing the status",
            describe=first.log_tail,
        )
        first.kill()
        obj = admin.get(support.evaluations_path(namespace, "adopted"))
        assert not (obj.get("status") or {}).get("jobName"), support.summarize(obj)
        assert [j["metadata"]["name"] for j in support.jobs_of(admin, namespace, "adopted")] == [
            "adopted-g1-answer"
        ]
        wait_until(
            lambda: support.job_condition(admin, namespace, "adopted-g1-answer", "Complete"),
            timeout=60,
            what="the answer Job to complete while no operator runs",
        )
        support.grant_operator(admin, namespace)  # the full Role again
        second = operators(namespace)
        done = support.wait_for_verdict(admin, namespace, "adopted", operator=second)
    assert done["status"]["verdict"] == "Pass" and done["status"]["jobName"] == "adopted-g1"
    assert support.jobs_per_generation_of(jobs, "adopted") == {"1": support.ONE_RUN}


def test_operator_sigkilled_the_moment_its_job_appears(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    """Racy by nature (the status write may or may not have happened): either way, one Job and a verdict."""
    brain = brains("v1")
    operator = operators(namespace)
    killed = threading.Event()

    def kill_on_job(kind: str, obj: Obj) -> None:
        if kind == "ADDED" and obj["metadata"]["name"] == "killed-g1-answer" and not killed.is_set():
            operator.kill()
            killed.set()

    with support.recording(control_plane, support.jobs_path(namespace), kill_on_job) as jobs:
        support.create_evaluation(
            admin, namespace, "killed", replay_spec(brain, agent=support.slow_agent(0.2))
        )
        assert killed.wait(60), "the Job never appeared"
        wait_until(
            lambda: support.job_condition(admin, namespace, "killed-g1-answer", "Complete"),
            timeout=60,
            what="the answer Job to complete while the operator is dead",
        )
        operator.start()
        done = support.wait_for_verdict(admin, namespace, "killed", operator=operator)
    assert done["status"]["verdict"] == "Pass"
    assert support.jobs_per_generation_of(jobs, "killed") == {"1": support.ONE_RUN}


# --- conditions ---------------------------------------------------------------------------------------------


def test_conditions_move_only_when_their_status_flips_and_stale_ones_are_not_believed(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    brain = brains("v1")
    path = support.evaluations_path(namespace, "steady")
    with support.recording(control_plane, support.evaluations_path(namespace)) as evaluations:
        support.create_evaluation(admin, namespace, "steady", replay_spec(brain))
        done = support.wait_for_verdict(admin, namespace, "steady", operator=operator)

        # Ten no-op reconciles: the finished Job changes ten times, its watch fires, the verdict is there.
        seen = support.log_count(operator, "/steady-g1]", "job_changed", "succeeded")
        for i in range(10):
            admin.merge_patch(
                support.jobs_path(namespace, "steady-g1"), {"metadata": {"annotations": {"poke": str(i)}}}
            )
        wait_until(
            lambda: support.log_count(operator, "/steady-g1]", "job_changed", "succeeded") >= seen + 10,
            timeout=60,
            what="the operator to handle ten Job events",
            describe=operator.log_tail,
        )
        # ... and two restarts, each resuming the Evaluation.
        for restart in (1, 2):
            operator.stop()
            operator.start()
            wait_until(
                lambda: support.log_count(operator, "/steady]", "Resuming is processed") >= restart,  # noqa: B023
                timeout=60,
                what="the restarted operator to resume the Evaluation",
                describe=operator.log_tail,
            )
        support.barrier(admin, namespace, operator)
        unchanged = admin.get(path)
        assert unchanged["status"] == done["status"], "a no-op reconcile rewrote the status"
        status_writes = {
            o["metadata"]["resourceVersion"] for o in evaluations.versions("steady") if o.get("status")
        }
        assert len(status_writes) >= 2 and unchanged["metadata"]["generation"] == 1, (
            "status writes bumped generation"
        )

        # A spec edit while the operator is down: Ready=True of generation 1 is stale, and not believed.
        operator.stop()
        admin.merge_patch(path, {"spec": {"gate": {"minScore": 0.85}}})
        for wanted in ("--for=condition=Ready", "--for=condition=Completed"):
            stale = control_plane.kubectl(
                "wait", "-n", namespace, wanted, "evaluation/steady", "--timeout=3s", check=False
            )
            assert stale.returncode != 0 and "timed out" in stale.stderr, (wanted, stale)
        operator.start()
        final = support.wait_for_verdict(admin, namespace, "steady", generation=2, operator=operator)
        ready = control_plane.kubectl(
            "wait", "-n", namespace, "--for=condition=Ready", "evaluation/steady", "--timeout=30s"
        )
        assert "condition met" in ready.stdout
        history = evaluations.versions("steady")

    assert_conditions_carry_their_generation(history)
    before, after = conditions_by_type(done), conditions_by_type(final)
    assert final["status"]["observedGeneration"] == 2 and final["status"]["verdict"] == "Pass"
    # Stalled stayed False through generation 2's run: its transition time is generation 1's.
    assert after["Stalled"]["status"] == before["Stalled"]["status"] == "False"
    assert after["Stalled"]["lastTransitionTime"] == before["Stalled"]["lastTransitionTime"]
    # Ready went True -> Unknown -> True, Completed True -> False -> True: both moved.
    for kind in ("Ready", "Completed", "Reconciling"):
        assert after[kind]["lastTransitionTime"] > before[kind]["lastTransitionTime"], kind
    unknown = [o for o in history if support.condition_status(o, "Ready") == "Unknown"]
    assert any(o["status"]["observedGeneration"] == 2 for o in unknown)
    assert (condition(final, "Ready") or {}).get("observedGeneration") == 2


# --- names -------------------------------------------------------------------------------------------------


def test_evaluations_sharing_a_long_name_prefix_keep_their_own_jobs(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    """Names may have 253 characters, Job names and label values 63: two Evaluations that share their first
    63 characters must still get a Job each, and a spec edit of one must not delete the other's Job."""
    brain = brains("v1")
    prefix = "nightly-release-candidate-of-the-support-desk-agent-brain-v1-run-"
    assert len(prefix) > 63
    first, second = prefix + "alpha", prefix + "beta"
    with support.recording(control_plane, support.jobs_path(namespace)) as jobs:
        for name in (first, second):
            support.create_evaluation(admin, namespace, name, replay_spec(brain))
        done = {
            name: support.wait_for_verdict(admin, namespace, name, operator=operator)
            for name in (first, second)
        }
        assert {name: obj["status"]["verdict"] for name, obj in done.items()} == {
            first: "Pass",
            second: "Pass",
        }
        job_names = {name: obj["status"]["jobName"] for name, obj in done.items()}
        assert len(set(job_names.values())) == 2 and all(len(j) <= 63 for j in job_names.values())

        admin.merge_patch(support.evaluations_path(namespace, first), {"spec": {"gate": {"minScore": 0.8}}})
        support.wait_for_verdict(admin, namespace, first, generation=2, operator=operator)
        wait_until(
            lambda: support.get_or_none(admin, support.jobs_path(namespace, job_names[first])) is None,
            timeout=60,
            what="the first Evaluation's superseded Job to be deleted",
        )
        support.barrier(admin, namespace, operator)
        others = support.get_or_none(admin, support.jobs_path(namespace, job_names[second]))
        assert others is not None, "a spec edit of one Evaluation deleted another Evaluation's Job"
        assert admin.get(support.evaluations_path(namespace, second))["status"] == done[second]["status"]
        owners = {
            e.object["metadata"]["name"]: e.object["metadata"]["ownerReferences"][0]["name"]
            for e in jobs.snapshot()
        }
    assert owners[job_names[second]] == second


def test_deleted_and_recreated_under_the_same_name_gets_its_own_run_and_verdict(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    """GitOps replaces an object by deleting and creating it again. The old Evaluation's Job, run config
    and snapshot have the same names and outlive it until the garbage collector gets to them: the new
    Evaluation must neither adopt them nor take the old Job's verdict."""
    v1, v0 = brains("v1"), brains("v0")
    path = support.evaluations_path(namespace)
    old = admin.create(
        path, support.evaluation("again", replay_spec(v0, "v0", agent=support.slow_agent(1, "v0")))
    )
    support.running_pod(admin, namespace, "again-g1-answer")  # the old run is under way
    admin.delete(support.evaluations_path(namespace, "again"))
    new = admin.create(path, support.evaluation("again", replay_spec(v1, "v1")))
    assert new["metadata"]["uid"] != old["metadata"]["uid"]
    done = support.wait_for_verdict(admin, namespace, "again", operator=operator, timeout=180)
    assert done["metadata"]["uid"] == new["metadata"]["uid"]
    assert done["status"]["verdict"] == "Pass"  # v1's verdict, not the old v0 run's Blocked
    for child in (
        support.jobs_path(namespace, "again-g1"),
        support.jobs_path(namespace, "again-g1-answer"),
        support.config_maps_path(namespace, "again-run-g1"),
        f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/again-g1-answers",
    ):
        owners = [r["uid"] for r in admin.get(child)["metadata"]["ownerReferences"]]
        assert owners == [new["metadata"]["uid"]], child
